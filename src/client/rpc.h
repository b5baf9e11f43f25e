/* One request to the console and its one answer, as a non-blocking state
 * machine (so the MCP server can hold several, and watch stdin, in one
 * poll loop; the CLI simply loops on one).
 *
 * Boundary: "the client forwards only what its whitelist recognises". The
 * answer must be exactly one line of at most PROTO_MAX_LINE bytes (the
 * newline included) followed by the console closing the connection, and
 * it must pass proto_check_reply() against the request that was sent. Anything else --
 * no line, two lines, an oversized line, a slow or dying server, a line
 * outside the closed list -- is RPC_CONSOLE_ERROR, and none of its bytes
 * leave this module. */
#ifndef LOCKFILE_CLIENT_RPC_H
#define LOCKFILE_CLIENT_RPC_H

#include <poll.h>
#include <jansson.h>

#include "protocol/check.h"

enum rpc_status {
	RPC_PENDING = 0,
	RPC_ANSWERED,		/* reply holds a checked result or listed error */
	RPC_CONSOLE_ERROR,	/* anything outside the list */
	RPC_TIMEOUT,		/* no answer before the deadline */
	RPC_UNREACHABLE,	/* no socket, or this account may not open it */
};

struct rpc {
	enum rpc_status status;
	int state;		/* internal: connect, send, receive, tail */
	int fd;
	enum lf_method method;
	json_t *id, *params;	/* what was sent (params may be NULL) */
	char sockpath[108];
	char *out;		/* the request line */
	size_t outlen, outoff;
	char *in;		/* PROTO_MAX_LINE bytes, the newline included */
	size_t inlen, linelen;
	long long deadline_ms;	/* for the whole answer */
	long long tail_ms;	/* for the rest of a begun line, then the close */
	long long retry_ms;	/* next connect attempt (backlog full) */
	struct proto_reply reply;
};

/* Start one request. params is taken (may be NULL). 0, or -1 when the
 * request itself cannot be sent (socket path too long, line too long):
 * status is then RPC_UNREACHABLE or RPC_CONSOLE_ERROR and the rpc is done. */
int rpc_begin(struct rpc *r, const char *sockpath, enum lf_method m,
    json_t *params, long timeout_ms);

/* What to wait for: pfd->fd is -1 when only a timer is pending; *wake_ms
 * is lowered to the time the rpc must be stepped at the latest. */
void rpc_poll(const struct rpc *r, struct pollfd *pfd, long long *wake_ms);

/* Advance with the revents seen (0 on a timer). Returns r->status. */
enum rpc_status rpc_step(struct rpc *r, short revents);

/* Close and free everything (also mid-way, on cancellation). */
void rpc_end(struct rpc *r);

/* Run one request to its end (CLI). */
enum rpc_status rpc_run(struct rpc *r);

#endif
