/* The signed HTTP client of hub mode (docs/hub.md, "Signed requests"),
 * shared by lox and the console: every request carries a Lockhub-Auth
 * REQUEST signed by the caller's key over its method, path, body hash,
 * the wall-clock time and a fresh nonce. Nothing rides in the URL: the
 * hub's URL is scheme, host and port only (no user, password, path or
 * query), redirects are never followed, and a reply is read to a cap. */
#ifndef LOCKFILE_HUBCLIENT_H
#define LOCKFILE_HUBCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "hubwire/keys.h"
#include "lib/buf.h"

#define HC_MAX_URL	256

enum hc_err {
	HC_OK = 0,		/* 200 or 201, the reply in *reply */
	HC_NO_DATA,		/* 204: a long-poll ended with nothing */
	HC_UNREACHABLE,		/* no connection, timed out */
	HC_TLS_UNTRUSTED,	/* the hub's certificate does not verify */
	HC_TLS_CA_FILE,		/* the CA given cannot be used */
	HC_TLS_HANDSHAKE,	/* no TLS session (not TLS on that port...) */
	HC_REFUSED,		/* 400, 401, 403, 413: the hub refused it */
	HC_NOT_FOUND,		/* 404 */
	HC_CONFLICT,		/* 409: already there, already decided */
	HC_BUSY,		/* 429, 502, 503, 504: ask again later */
	HC_PROTOCOL,		/* any other status, a reply over its cap */
};

struct hubclient {
	char url[HC_MAX_URL + 1];	/* scheme://host[:port] */
	const struct hw_keypair *key;
	const char *ca_file;		/* NULL: the system's CA store */
	const uint8_t *ca_pem;		/* or the CA in memory (the console) */
	size_t ca_pem_len;
	long connect_timeout_ms;
};

/* 0 when url is http:// or https://, a host (a name, an IPv4 address or
 * a bracketed IPv6 address) and an optional port, nothing else. */
int hc_url_ok(const char *url);
/* Send one signed request. reply (may be NULL) gets the body of a 200 or
 * 201 answer, at most max_reply bytes; *status (may be NULL) the HTTP
 * status. timeout_ms bounds the whole request (a long-poll's too). */
enum hc_err hc_call(const struct hubclient *c, const char *method,
    const char *path, const uint8_t *body, size_t len, size_t max_reply,
    long timeout_ms, struct buf **reply, long *status);
const char *hc_err_text(enum hc_err e);

#endif
