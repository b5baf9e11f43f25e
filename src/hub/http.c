/* lockhub's HTTP side on libmicrohttpd (docs/hub.md, "Limits" and "Long
 * polls"): TLS through its GnuTLS support or plain HTTP behind a
 * terminating proxy; limits on connections (total and per address), idle
 * time, body sizes (checked against Content-Length before a byte is read)
 * and request rates (token buckets), a deadline for each request's head
 * and body whatever trickles in (libmicrohttpd's own timeout is an idle
 * one, reset by every byte); long-polls suspended with a deadline
 * of our own, since libmicrohttpd 0.9.75 never times a suspended
 * connection out nor sees its client go away; every suspended connection
 * resumed before the daemon stops. */
#include "hub/hub.h"
#include "lib/clock.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <microhttpd.h>
#include <sodium.h>

#define REAP_MS		100
#define PURGE_MS	60000
#define HEADER_AUTH	"Lockhub-Auth"
/* Set by a trusted balancer only (docs/hub.md, "The balancer"). */
#define HEADER_CLIENT	"Lockhub-Client-Addr"
#define ADDR_TEXT_MAX	45	/* INET6_ADDRSTRLEN - 1 */

struct ctx {
	struct buf *body;
	size_t cap;
	int refused;			/* a response is queued or the body broke */
	int suspended, timed_out;
	int listed;			/* in S.waiters */
	long long deadline_ms;		/* monotonic */
	long long recheck_at;		/* monotonic: re-read the store */
	enum hub_wait wait;
	char key[40];
	struct hub_who who;
	struct MHD_Connection *conn;
	struct ctx *next, *prev;	/* waiters */
};

/* One per connection (libmicrohttpd's socket context): the deadline by
 * which its request's head and body must be in (docs/hub.md, "Limits"),
 * armed when it opens and after each answer, disarmed once the request is
 * whole. Listed while libmicrohttpd holds the socket open: it tells us
 * NOTIFY_CLOSED before it closes the descriptor. */
struct sconn {
	int fd;
	long long deadline_ms;		/* monotonic; 0: not armed */
	struct sconn *next, *prev;
};

static struct {
	struct hub *h;
	pthread_mutex_t mu;
	struct sconn *conns;
	struct ctx *waiters;
	unsigned nwaiters;
	unsigned long long gen;		/* notifications so far */
	volatile int stopping;
} S = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* The phone page's own headers (docs/hub.md, "Approving from a phone"):
 * its code from this origin only, no inline script or style, never framed,
 * HTTPS pinned, no referrer. */
static void
page_headers(struct MHD_Response *r, const struct hub_resp *rs)
{
	(void)MHD_add_response_header(r, "Content-Security-Policy",
	    "default-src 'self'; script-src 'self'; style-src 'self'; "
	    "img-src 'self'; connect-src 'self'; object-src 'none'; "
	    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
	(void)MHD_add_response_header(r, "Strict-Transport-Security",
	    "max-age=31536000");
	(void)MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	(void)MHD_add_response_header(r, "X-Frame-Options", "DENY");
	(void)MHD_add_response_header(r, "Cross-Origin-Opener-Policy",
	    "same-origin");
	(void)MHD_add_response_header(r, "Cross-Origin-Resource-Policy",
	    "same-origin");
	if (rs->set_cookie[0] != '\0')
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE,
		    rs->set_cookie);
}

static enum MHD_Result
respond_page(struct MHD_Connection *conn, const struct hub_resp *rs);

static enum MHD_Result
respond(struct MHD_Connection *conn, unsigned status, const struct buf *body,
    const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (body != NULL)
		r = MHD_create_response_from_buffer(buf_len(body),
		    (void *)buf_data(body), MHD_RESPMEM_MUST_COPY);
	else
		r = MHD_create_response_from_buffer(text ? strlen(text) : 0,
		    (void *)(text ? text : ""), MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    body != NULL ? "application/octet-stream" : "text/plain");
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store");
	(void)MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
respond_page(struct MHD_Connection *conn, const struct hub_resp *rs)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *text = rs->text != NULL ? rs->text : "";

	if (rs->body != NULL)
		r = MHD_create_response_from_buffer(buf_len(rs->body),
		    (void *)buf_data(rs->body), MHD_RESPMEM_MUST_COPY);
	else
		r = MHD_create_response_from_buffer(strlen(text), (void *)text,
		    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    rs->ctype != NULL ? rs->ctype : "text/plain; charset=utf-8");
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store");
	(void)MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	page_headers(r, rs);
	ret = MHD_queue_response(conn, rs->status, r);
	MHD_destroy_response(r);
	return ret;
}

static void
unlink_waiter(struct ctx *c)
{
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		S.waiters = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	c->next = c->prev = NULL;
	c->listed = 0;
	S.nwaiters--;
}

/* Resume every waiter on what, or all of them (what == HUB_WAIT_NONE). */
static void
wake(enum hub_wait what, const char *key, int timed_out)
{
	struct ctx *c, *next;

	pthread_mutex_lock(&S.mu);
	S.gen++;
	for (c = S.waiters; c != NULL; c = next) {
		next = c->next;
		if (what != HUB_WAIT_NONE && (c->wait != what ||
		    (what == HUB_WAIT_TICKET && strcmp(c->key, key) != 0)))
			continue;
		unlink_waiter(c);
		c->timed_out = timed_out;
		MHD_resume_connection(c->conn);
	}
	pthread_mutex_unlock(&S.mu);
}

static void *
reaper(void *arg)
{
	volatile int *stop = arg;
	long long last_purge = 0;

	while (!*stop) {
		long long now = now_ms();
		struct ctx *c, *next;
		struct sconn *sc;

		pthread_mutex_lock(&S.mu);
		for (c = S.waiters; c != NULL; c = next) {
			next = c->next;
			if (c->deadline_ms > now && c->recheck_at > now)
				continue;
			/* Past its deadline it answers 204; at its recheck it
			 * reads the store again: what another hub process
			 * committed, its wake-up lost, is seen this late at
			 * most (docs/hub.md, "Operating several hubs"). */
			unlink_waiter(c);
			c->timed_out = c->deadline_ms <= now;
			MHD_resume_connection(c->conn);
		}
		for (sc = S.conns; sc != NULL; sc = sc->next) {
			if (sc->deadline_ms == 0 || sc->deadline_ms > now)
				continue;
			/* libmicrohttpd then reads the end and closes it */
			(void)shutdown(sc->fd, SHUT_RDWR);
			sc->deadline_ms = 0;
		}
		pthread_mutex_unlock(&S.mu);
		if (now - last_purge >= PURGE_MS) {
			S.h->store.ops->purge(&S.h->store, S.h->clock_ms(),
			    2 * S.h->cfg.skew_ms + 60000);
			last_purge = now;
		}
		usleep(REAP_MS * 1000);
	}
	return NULL;
}

/* Arm (the next request's head is due by then) or disarm (the request
 * is whole) the connection's deadline. */
static void
arm(struct MHD_Connection *conn, int on)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct sconn *sc = ci != NULL ? ci->socket_context : NULL;

	if (sc == NULL)
		return;
	pthread_mutex_lock(&S.mu);
	sc->deadline_ms = on ? now_ms() + S.h->cfg.request_ms : 0;
	pthread_mutex_unlock(&S.mu);
}

static void
notify_conn(void *cls, struct MHD_Connection *conn, void **socket_context,
    enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	struct sconn *sc = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci == NULL)
			fatal_f("libmicrohttpd has no descriptor for it");
		sc = xcalloc(1, sizeof(*sc));
		sc->fd = ci->connect_fd;
		pthread_mutex_lock(&S.mu);
		sc->deadline_ms = now_ms() + S.h->cfg.request_ms;
		sc->next = S.conns;
		if (S.conns != NULL)
			S.conns->prev = sc;
		S.conns = sc;
		pthread_mutex_unlock(&S.mu);
		*socket_context = sc;
		return;
	}
	if (sc == NULL)
		return;
	pthread_mutex_lock(&S.mu);
	if (sc->prev != NULL)
		sc->prev->next = sc->next;
	else
		S.conns = sc->next;
	if (sc->next != NULL)
		sc->next->prev = sc->prev;
	pthread_mutex_unlock(&S.mu);
	free(sc);
	*socket_context = NULL;
}

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct ctx *c = *con_cls;

	/* a kept-alive connection's next request is due in time too */
	arm(conn, 1);
	if (c == NULL)
		return;
	pthread_mutex_lock(&S.mu);
	if (c->listed)
		unlink_waiter(c);
	pthread_mutex_unlock(&S.mu);
	buf_free(c->body);
	free(c);
	*con_cls = NULL;
}

int
hub_addr_parse(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	size_t n = strlen(s);

	memset(ss, 0, sizeof(*ss));
	if (n == 0 || n > ADDR_TEXT_MAX ||
	    strspn(s, "0123456789abcdefABCDEF:.") != n)
		return -1;
	if (inet_pton(AF_INET, s, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &in6->sin6_addr) != 1) {
		memset(ss, 0, sizeof(*ss));
		return -1;
	}
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		/* one client, one bucket: ::ffff:a.b.c.d is a.b.c.d */
		struct in_addr a;
		memcpy(&a, &in6->sin6_addr.s6_addr[12], 4);
		memset(ss, 0, sizeof(*ss));
		in->sin_family = AF_INET;
		in->sin_addr = a;
		return 0;
	}
	in6->sin6_family = AF_INET6;
	return 0;
}

int
hub_addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a == NULL || b == NULL || a->sa_family != b->sa_family)
		return 0;
	if (a->sa_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)a)->sin_addr,
		    &((const struct sockaddr_in *)b)->sin_addr, 4) == 0;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		    &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
	return 0;
}

struct hdr_seen {
	unsigned n;
	const char *value;
};

static enum MHD_Result
client_header(void *cls, enum MHD_ValueKind kind, const char *k,
    const char *v)
{
	struct hdr_seen *hs = cls;

	if (k != NULL && strcasecmp(k, HEADER_CLIENT) == 0) {
		hs->n++;
		hs->value = v;
	}
	return MHD_YES;
}

/* Whom a request counts for in the limits: the socket's peer, or, on a
 * connection from a trusted balancer (--trusted-proxy), the address its
 * Lockhub-Client-Addr header names: exactly one header, an IP literal and
 * nothing else; none is the balancer's own request (its health check).
 * The header from any other peer is ignored (docs/hub.md, "The
 * balancer"). 0, or -1 when a trusted balancer sent a bad header. */
static int
client_of(struct MHD_Connection *conn, struct sockaddr_storage *out)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
	    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *peer = ci != NULL ? ci->client_addr : NULL;
	struct hdr_seen hs = { 0, NULL };
	unsigned i;
	int trusted = 0;

	memset(out, 0, sizeof(*out));
	if (peer == NULL)
		return 0;
	if (peer->sa_family == AF_INET)
		memcpy(out, peer, sizeof(struct sockaddr_in));
	else if (peer->sa_family == AF_INET6)
		memcpy(out, peer, sizeof(struct sockaddr_in6));
	for (i = 0; i < S.h->cfg.ntrusted; i++)
		if (hub_addr_same(peer,
		    (const struct sockaddr *)&S.h->cfg.trusted[i]))
			trusted = 1;
	if (!trusted)
		return 0;
	(void)MHD_get_connection_values(conn, MHD_HEADER_KIND, client_header,
	    &hs);
	if (hs.n == 0)
		return 0;
	if (hs.n > 1 || hs.value == NULL || hub_addr_parse(hs.value, out) != 0)
		return -1;
	return 0;
}

/* Another hub process committed a ticket or a decision (the store's
 * watch thread): wake the long-polls as a post here does. wake() takes
 * S.mu and MHD_resume_connection() may be called from any thread with
 * the internal polling thread (libmicrohttpd's documentation). */
static void
on_changed(void *arg, char kind, const char *id)
{
	if (kind == 't')
		wake(HUB_WAIT_LIST, NULL, 0);
	else if (kind == 'd' && id != NULL && strlen(id) < HW_ID_LEN + 1)
		wake(HUB_WAIT_TICKET, id, 0);
}

static enum MHD_Result
count_args(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	(*(int *)cls)++;
	return MHD_YES;
}

/* Serve, or suspend as a waiter. */
static enum MHD_Result
serve(struct MHD_Connection *conn, struct ctx *c, const struct hub_req *rq)
{
	struct hub_resp rs;
	unsigned long long gen;
	enum MHD_Result ret;

	for (;;) {
		pthread_mutex_lock(&S.mu);
		gen = S.gen;
		pthread_mutex_unlock(&S.mu);
		hub_route(S.h, rq, &c->who, c->timed_out || S.stopping, &rs);
		if (rs.status != 0)
			break;
		pthread_mutex_lock(&S.mu);
		/* A waiter back from its recheck keeps its place: only a new
		 * one is counted against the limit. */
		if (S.stopping || (!c->suspended &&
		    S.nwaiters >= S.h->cfg.max_waiters)) {
			pthread_mutex_unlock(&S.mu);
			return respond(conn, 503, NULL,
			    "the hub is busy or stopping\n");
		}
		if (S.gen != gen) {
			/* Something was posted while we looked: look again
			 * rather than sleep through it. */
			pthread_mutex_unlock(&S.mu);
			continue;
		}
		if (!c->suspended)
			c->deadline_ms = now_ms() + S.h->cfg.poll_ms;
		/* jittered (0.75 to 1.25 of it): the waiters of a hub do not
		 * all read the store in the same tick */
		c->recheck_at = now_ms() + S.h->cfg.recheck_ms * 3 / 4 +
		    (long long)randombytes_uniform((uint32_t)
		    (S.h->cfg.recheck_ms / 2 + 1));
		c->suspended = 1;
		c->wait = rs.wait;
		ASSERT(str_fmt(c->key, sizeof(c->key), "%s", rs.key) == STR_OK);
		c->conn = conn;
		c->prev = NULL;
		c->next = S.waiters;
		if (S.waiters != NULL)
			S.waiters->prev = c;
		S.waiters = c;
		c->listed = 1;
		S.nwaiters++;
		MHD_suspend_connection(conn);
		pthread_mutex_unlock(&S.mu);
		return MHD_YES;
	}
	c->suspended = 0;
	ret = rs.page ? respond_page(conn, &rs) :
	    respond(conn, rs.status, rs.body, rs.text);
	if (rs.notify != HUB_WAIT_NONE)
		wake(rs.notify, rs.key, 0);
	if (rs.wake_all)
		wake(HUB_WAIT_NONE, NULL, 0);
	hub_resp_free(&rs);
	return ret;
}

static enum MHD_Result
access_cb(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	struct ctx *c = *con_cls;
	struct hub_req rq;
	struct hub_resp rs;
	int nargs = 0;

	if (c == NULL) {
		struct sockaddr_storage client;
		const char *cl;
		unsigned long long n;

		c = calloc(1, sizeof(*c));
		if (c == NULL)
			return MHD_NO;
		*con_cls = c;
		if (client_of(conn, &client) != 0) {
			c->refused = 1;
			return respond(conn, 400, NULL,
			    "the balancer's client address is malformed\n");
		}
		if (!rl_allow(&S.h->rl, (const struct sockaddr *)&client,
		    now_ms())) {
			c->refused = 1;
			return respond(conn, 429, NULL, "too many requests\n");
		}
		c->cap = hub_body_cap(method, url);
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_CONTENT_LENGTH);
		/* Refused before any of the body is read. */
		if (cl != NULL && (parse_u64(cl, 0, c->cap, &n) != 0)) {
			c->refused = 1;
			return respond(conn, 413, NULL, "the body is too large\n");
		}
		c->body = buf_new(c->cap);
		return MHD_YES;
	}
	if (c->refused)
		return MHD_YES;
	if (*upload_data_size != 0) {
		/* A chunked body past the cap: drop the connection. */
		if (buf_append(c->body, upload_data, *upload_data_size) != 0)
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* The request is whole: its deadline is met (a long-poll has its
	 * own). */
	arm(conn, 0);
	memset(&rq, 0, sizeof(rq));
	rq.method = method;
	rq.path = url;
	(void)MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, count_args,
	    &nargs);
	rq.has_query = nargs > 0;
	rq.auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, HEADER_AUTH);
	rq.cookie = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_COOKIE);
	rq.origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	rq.page_hdr = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    "Lockhub-Page") != NULL;
	rq.body = buf_data(c->body);
	rq.body_len = buf_len(c->body);
	if (!c->who.authed) {
		unsigned st = hub_auth(S.h, &rq, &c->who, &rs);
		if (st != 0) {
			c->refused = 1;
			return respond(conn, st, NULL, rs.text);
		}
	}
	return serve(conn, c, &rq);
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[256];

	str_vmsg(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	logit("http: %s", line);
}

int
hub_serve(struct hub *h, const char *addr, unsigned port,
    const struct hub_tls *tls, volatile int *stop, unsigned *bound_port,
    int ready_fd)
{
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *di;
	pthread_t reap;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
	    MHD_USE_ERROR_LOG;
	char line[32];
	/* Behind a balancer every connection is the balancer's: it limits
	 * connections per client itself (docs/hub.md, "The balancer"). */
	unsigned per_ip = h->cfg.ntrusted > 0 ? h->cfg.max_conns :
	    h->cfg.max_per_ip;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, addr,
	    &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
		flags |= MHD_USE_IPv6;
	} else {
		logit("--listen: not an IP address");
		return -1;
	}
	if (tls != NULL && tls->cert_pem != NULL) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			logit("this libmicrohttpd has no TLS");
			return -1;
		}
		flags |= MHD_USE_TLS;
	}
	S.h = h;
	S.stopping = 0;
	if (tls != NULL && tls->cert_pem != NULL)
		d = MHD_start_daemon(flags, 0, NULL, NULL, access_cb, NULL,
		    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)4,
		    MHD_OPTION_CONNECTION_LIMIT, h->cfg.max_conns,
		    MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
		    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)h->cfg.conn_timeout_s,
		    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		    MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
		    MHD_OPTION_NOTIFY_CONNECTION, notify_conn, NULL,
		    MHD_OPTION_HTTPS_MEM_KEY, tls->key_pem,
		    MHD_OPTION_HTTPS_MEM_CERT, tls->cert_pem,
		    MHD_OPTION_HTTPS_PRIORITIES,
		    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
		    MHD_OPTION_END);
	else
		d = MHD_start_daemon(flags, 0, NULL, NULL, access_cb, NULL,
		    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)4,
		    MHD_OPTION_CONNECTION_LIMIT, h->cfg.max_conns,
		    MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
		    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)h->cfg.conn_timeout_s,
		    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		    MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
		    MHD_OPTION_NOTIFY_CONNECTION, notify_conn, NULL,
		    MHD_OPTION_END);
	if (d == NULL) {
		logit("cannot listen on %s port %u", addr, port);
		return -1;
	}
	di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	*bound_port = di != NULL ? di->port : port;
	if (pthread_create(&reap, NULL, reaper, (void *)stop) != 0)
		fatal("cannot start the long-poll reaper");
	/* Other hub processes' commits wake ours (an engine with a channel);
	 * without one the recheck timer alone covers them. */
	if (h->store.ops->watch != NULL &&
	    h->store.ops->watch(&h->store, on_changed, NULL) != 0)
		logit("the store cannot tell of other hubs' commits: long-polls "
		    "see them by their %lld ms recheck", h->cfg.recheck_ms);
	logit("listening on %s port %u (%s)", addr, *bound_port,
	    flags & MHD_USE_TLS ? "TLS" : "plain HTTP: put a TLS proxy in front");
	if (ready_fd >= 0) {
		if (str_fmt(line, sizeof(line), "%u\n", *bound_port) == STR_OK)
			(void)write_full(ready_fd, line, strlen(line));
		close(ready_fd);
	}
	while (!*stop)
		usleep(REAP_MS * 1000);
	/* Every suspended long-poll answers before the daemon stops
	 * (libmicrohttpd must not stop with suspended connections). */
	S.stopping = 1;
	wake(HUB_WAIT_NONE, NULL, 1);
	for (int i = 0; i < 50; i++) {
		unsigned n;
		pthread_mutex_lock(&S.mu);
		n = S.nwaiters;
		pthread_mutex_unlock(&S.mu);
		if (n == 0)
			break;
		usleep(REAP_MS * 1000);
	}
	usleep(REAP_MS * 1000);
	MHD_stop_daemon(d);
	pthread_join(reap, NULL);
	return 0;
}
