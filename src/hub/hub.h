/* lockhub: relays tickets from consoles to approvers and signed decisions
 * back (docs/hub.md). The hub never holds what the human types (it relays a
 * box sealed to the console) and cannot approve alone: the console checks
 * the approver's device signature as well as the hub's.
 *
 * api.c is the whole request logic, as a function of a request and the
 * store (so the fuzzers and unit tests drive it without a socket); http.c
 * is the libmicrohttpd glue (limits, long-polls, TLS); main.c the command
 * line. */
#ifndef LOCKFILE_HUB_HUB_H
#define LOCKFILE_HUB_HUB_H

#include <stddef.h>
#include <sys/socket.h>

#include "hub/ratelimit.h"
#include "hub/store.h"
#include "hubwire/keys.h"
#include "lib/buf.h"

#define HUB_MAX_TRUSTED	8

struct hub_cfg {
	long long poll_ms;		/* a long-poll's own deadline */
	long long skew_ms;		/* signed requests: |hub - signer| */
	long long keep_max_ms;		/* a ticket's longest stay on the hub */
	unsigned rate_burst;
	long long rate_refill_ms;
	unsigned max_conns;		/* connections at once */
	unsigned max_per_ip;
	unsigned max_waiters;		/* suspended long-polls at once */
	long long conn_timeout_s;	/* an idle connection */
	long long request_ms;		/* a request's head and body, whole */
	long long recheck_ms;		/* a suspended long-poll re-reads */
	/* Balancers whose Lockhub-Client-Addr header names the client
	 * (docs/hub.md, "The balancer"); from any other address the header
	 * is ignored. */
	struct sockaddr_storage trusted[HUB_MAX_TRUSTED];
	unsigned ntrusted;
};

#define HUB_DEFAULT_POLL_MS	25000
#define HUB_DEFAULT_SKEW_MS	60000
#define HUB_DEFAULT_KEEP_MS	(60LL * 60 * 1000)
#define HUB_DEFAULT_BURST	60
#define HUB_DEFAULT_REFILL_MS	5000
#define HUB_DEFAULT_MAX_CONNS	256
#define HUB_DEFAULT_MAX_PER_IP	32
#define HUB_DEFAULT_MAX_WAITERS	200
#define HUB_DEFAULT_CONN_TIMEOUT 30
#define HUB_DEFAULT_REQUEST_MS	10000
#define HUB_DEFAULT_RECHECK_MS	1000

struct hub {
	struct hub_cfg cfg;
	struct hub_store store;
	struct hw_keypair key;		/* the hub's own (countersigns) */
	struct ratelimit rl;
	long long (*clock_ms)(void);	/* wall clock, unix ms */
	/* The phone page (docs/hub.md, "Approving from a phone"): the
	 * WebAuthn rp id (a DNS name) and the page's origin; NULL: the page
	 * and its API answer 404. */
	const char *rp_id, *origin;
};

void hub_cfg_defaults(struct hub_cfg *c);
/* An IPv4 or IPv6 literal and nothing else (no port, scope, name, space)
 * into *ss: 0, or -1. */
int hub_addr_parse(const char *s, struct sockaddr_storage *ss);
/* The same address (family and bytes; ports ignored). */
int hub_addr_same(const struct sockaddr *a, const struct sockaddr *b);
long long hub_wall_ms(void);

/* One request as the HTTP glue hands it over. */
struct hub_req {
	const char *method;		/* "GET", "POST", ... as received */
	const char *path;		/* without the query */
	int has_query;
	const char *auth;		/* the Lockhub-Auth header, or NULL */
	const uint8_t *body;
	size_t body_len;
	/* the page's requests only */
	const char *cookie;		/* the Cookie header, or NULL */
	const char *origin;		/* the Origin header, or NULL */
	int page_hdr;			/* a Lockhub-Page header was sent */
};

/* Who signed it, once hub_auth() accepted it. */
struct hub_who {
	int authed;
	struct hs_key key;
};

enum hub_wait { HUB_WAIT_NONE = 0, HUB_WAIT_TICKET, HUB_WAIT_LIST };

struct hub_resp {
	unsigned status;		/* 0: suspend (wait names on what) */
	struct buf *body;		/* a binary body, or NULL */
	const char *text;		/* else this static text */
	enum hub_wait wait;		/* status 0: what wakes it */
	enum hub_wait notify;		/* wake the waiters on this */
	char key[40];			/* the ticket id for both */
	/* the page's responses: its own headers (CSP, HSTS...) */
	int page;
	const char *ctype;		/* NULL: octet-stream or text */
	char set_cookie[160];		/* "" or a Set-Cookie value */
	int wake_all;			/* wake every waiter (a group) */
};

/* The largest body an endpoint takes (0: none), from method and path,
 * before any byte of it is read. */
size_t hub_body_cap(const char *method, const char *path);
/* Check the request's signature (docs/hub.md, "Signed requests"), in
 * order: header, parse, method and path, enrolled key and role, signature,
 * time, body hash, nonce. 0 and who filled, or an HTTP status (with the
 * static text in rs). Needs the whole body. */
unsigned hub_auth(struct hub *h, const struct hub_req *rq,
    struct hub_who *who, struct hub_resp *rs);
/* Serve an authenticated request. timed_out: a long-poll whose deadline
 * passed (answer 204 rather than wait again). rs->body is the caller's. */
void hub_route(struct hub *h, const struct hub_req *rq,
    const struct hub_who *who, int timed_out, struct hub_resp *rs);
/* A static answer, and an answer's body freed: inline, so that api.c and
 * page_api.c, which answer each other's routes, share them without using
 * each other. */
static inline void
hub_answer(struct hub_resp *rs, unsigned status, const char *text)
{
	rs->status = status;
	rs->text = text;
}

/* The answer to a failed store operation: 503
 * when the engine could not be reached, a PostgreSQL restart that the
 * client outlasts by asking again, signed afresh; 500 otherwise
 * (docs/hub.md, "The store: PostgreSQL"). */
static inline void
hub_store_failed(struct hub *h, struct hub_resp *rs)
{
	if (h->store.ops->unreachable != NULL &&
	    h->store.ops->unreachable(&h->store))
		hub_answer(rs, 503, "the hub's store cannot be reached now: "
		    "ask again\n");
	else
		hub_answer(rs, 500, "the hub cannot serve this now\n");
}

static inline void
hub_resp_free(struct hub_resp *rs)
{
	buf_free(rs->body);
	rs->body = NULL;
}

/* page_api.c: the page and its JSON API under a session cookie, and the
 * console's CARD (docs/hub.md, "Approving from a phone"). */
int hub_page_path(const char *method, const char *path);
size_t hub_page_body_cap(const char *method, const char *path);
void hub_page_route(struct hub *h, const struct hub_req *rq, int timed_out,
    struct hub_resp *rs);
void hub_post_card(struct hub *h, const char *id, const struct hub_req *rq,
    const struct hub_who *who, struct hub_resp *rs);
/* A registration code for NAME: its text into out (HUB_CODE_TEXT + 1). */
#define HUB_CODE_TEXT	43
#define HUB_CODE_MS	(10LL * 60 * 1000)
int hub_passkey_code(struct hub *h, const char *name,
    char out[HUB_CODE_TEXT + 1]);

/* http.c: serve until *stop becomes non-zero (signals set it). */
struct hub_tls {
	const char *cert_pem, *key_pem;	/* NULL: plain HTTP */
};
int hub_serve(struct hub *h, const char *addr, unsigned port,
    const struct hub_tls *tls, volatile int *stop, unsigned *bound_port,
    int ready_fd);

#endif
