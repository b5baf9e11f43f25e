/* One request and its checked answer (see rpc.h). */
#include "client/rpc.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum { ST_CONNECT = 1, ST_SEND, ST_RECV, ST_TAIL, ST_DONE };

/* The console writes its answer line in one go and closes the connection
 * at once after it (the client half-closes after its request, so no next
 * request can come). A server that trickles a line, keeps the connection
 * open, or sends more, is not the console. */
#define TAIL_MS		2000
#define RETRY_MS	50	/* connect again while the backlog is full */

static enum rpc_status
finish(struct rpc *r, enum rpc_status st)
{
	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	if (st != RPC_ANSWERED)
		proto_reply_free(&r->reply);
	/* Nothing of what the server sent outlives the exchange. */
	if (r->in != NULL) {
		explicit_bzero(r->in, PROTO_MAX_LINE);
		free(r->in);
		r->in = NULL;
	}
	free(r->out);
	r->out = NULL;
	r->state = ST_DONE;
	r->status = st;
	return st;
}

static json_t *
new_id(void)
{
	uint32_t v;

	/* Not a counter: a stale answer from another exchange never fits. */
	random_bytes(&v, sizeof(v));
	return json_integer((json_int_t)(v & 0x7fffffff));
}

int
rpc_begin(struct rpc *r, const char *sockpath, enum lf_method m,
    json_t *params, long timeout_ms)
{
	json_t *doc;
	char *s;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->method = m;
	r->params = params;
	r->id = new_id();
	r->deadline_ms = now_ms() + timeout_ms;
	r->state = ST_CONNECT;
	r->status = RPC_PENDING;
	if (strlen(sockpath) >= sizeof(r->sockpath)) {
		finish(r, RPC_UNREACHABLE);
		return -1;
	}
	memcpy(r->sockpath, sockpath, strlen(sockpath) + 1);

	doc = json_object();
	json_object_set_new(doc, "jsonrpc", json_string("2.0"));
	json_object_set(doc, "id", r->id);
	json_object_set_new(doc, "method", json_string(proto_method(m)->name));
	if (params != NULL)
		json_object_set(doc, "params", params);
	s = jsonx_dump_line(doc);
	json_decref(doc);
	n = strlen(s);
	if (n + 1 > PROTO_MAX_LINE) {
		free(s);
		finish(r, RPC_CONSOLE_ERROR);
		return -1;
	}
	r->out = xmalloc(n + 2);
	r->in = xmalloc(PROTO_MAX_LINE);
	memcpy(r->out, s, n);
	r->out[n] = '\n';
	r->outlen = n + 1;
	free(s);
	return 0;
}

/* One connect attempt. A full backlog (the console serves one request at
 * a time) is not an error: wait and try again until the deadline. */
static void
try_connect(struct rpc *r)
{
	struct sockaddr_un sa;
	int fd, err;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		logit_errno("socket");
		finish(r, RPC_UNREACHABLE);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, r->sockpath, strlen(r->sockpath));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ||
	    errno == EINPROGRESS) {
		r->fd = fd;
		r->state = ST_SEND;
		return;
	}
	err = errno;
	close(fd);
	if (err == EAGAIN || err == EINTR) {
		r->retry_ms = now_ms() + RETRY_MS;
		return;
	}
	/* ENOENT, ECONNREFUSED (no console), EACCES (not a client), ... */
	finish(r, RPC_UNREACHABLE);
}

static void
do_send(struct rpc *r)
{
	while (r->outoff < r->outlen) {
		ssize_t n = send(r->fd, r->out + r->outoff, r->outlen - r->outoff,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			r->outoff += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EINPROGRESS ||
		    errno == ENOTCONN))
			return;	/* wait for POLLOUT */
		/* The console may refuse a peer before reading its request
		 * (E_PEER_REFUSED): read what it said. */
		break;
	}
	(void)shutdown(r->fd, SHUT_WR);
	r->state = ST_RECV;
}

static void
check_line(struct rpc *r)
{
	struct proto_expect exp = {
		.method = r->method, .id = r->id, .params = r->params,
	};

	if (proto_check_reply(r->in, r->linelen + 1, &exp, &r->reply) != 0) {
		finish(r, RPC_CONSOLE_ERROR);
		return;
	}
	finish(r, RPC_ANSWERED);
}

static void
do_recv(struct rpc *r)
{
	for (;;) {
		char scratch[256];
		ssize_t n;

		if (r->state == ST_TAIL) {
			/* Nothing may follow the line. */
			n = recv(r->fd, scratch, sizeof(scratch), MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return;
			/* A console that refuses a peer closes without reading
			 * its request: Linux reports that as a reset. */
			if (n == 0 || (n < 0 && errno == ECONNRESET)) {
				check_line(r);
				return;
			}
			explicit_bzero(scratch, sizeof(scratch));
			finish(r, RPC_CONSOLE_ERROR);
			return;
		}
		if (r->inlen == PROTO_MAX_LINE) {
			finish(r, RPC_CONSOLE_ERROR);	/* oversized line */
			return;
		}
		n = recv(r->fd, r->in + r->inlen, PROTO_MAX_LINE - r->inlen,
		    MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			/* closed (or reset) before a whole line */
			finish(r, RPC_CONSOLE_ERROR);
			return;
		}
		if (r->inlen == 0)
			r->tail_ms = now_ms() + TAIL_MS;
		r->inlen += (size_t)n;
		{
			char *nl = memchr(r->in, '\n', r->inlen);
			if (nl == NULL)
				continue;
			r->linelen = (size_t)(nl - r->in);
			if (r->linelen + 1 != r->inlen) {
				finish(r, RPC_CONSOLE_ERROR);	/* two lines */
				return;
			}
			r->state = ST_TAIL;
			r->tail_ms = now_ms() + TAIL_MS;
		}
	}
}

void
rpc_poll(const struct rpc *r, struct pollfd *pfd, long long *wake_ms)
{
	long long t = r->deadline_ms;

	pfd->fd = -1;
	pfd->events = 0;
	pfd->revents = 0;
	switch (r->state) {
	case ST_CONNECT:
		if (r->retry_ms < t)
			t = r->retry_ms;
		break;
	case ST_SEND:
		pfd->fd = r->fd;
		pfd->events = POLLOUT;
		break;
	case ST_RECV:
		pfd->fd = r->fd;
		pfd->events = POLLIN;
		if (r->inlen > 0 && r->tail_ms < t)
			t = r->tail_ms;
		break;
	case ST_TAIL:
		pfd->fd = r->fd;
		pfd->events = POLLIN;
		if (r->tail_ms < t)
			t = r->tail_ms;
		break;
	default:
		return;
	}
	if (t < *wake_ms)
		*wake_ms = t;
}

enum rpc_status
rpc_step(struct rpc *r, short revents)
{
	long long now = now_ms();

	if (r->state == ST_DONE)
		return r->status;
	if (r->state == ST_CONNECT && now >= r->retry_ms)
		try_connect(r);
	if (r->state == ST_SEND)
		do_send(r);
	if (r->state == ST_RECV || r->state == ST_TAIL)
		do_recv(r);
	if (r->state == ST_DONE)
		return r->status;
	(void)revents;
	now = now_ms();
	if ((r->state == ST_TAIL || (r->state == ST_RECV && r->inlen > 0)) &&
	    now >= r->tail_ms)
		return finish(r, RPC_CONSOLE_ERROR);	/* trickled, or never closed */
	if (now >= r->deadline_ms)
		return finish(r, RPC_TIMEOUT);
	return RPC_PENDING;
}

void
rpc_end(struct rpc *r)
{
	if (r->state != ST_DONE)
		finish(r, RPC_TIMEOUT);
	proto_reply_free(&r->reply);
	json_decref(r->id);
	json_decref(r->params);
	r->id = r->params = NULL;
}

enum rpc_status
rpc_run(struct rpc *r)
{
	while (rpc_step(r, 0) == RPC_PENDING) {
		struct pollfd pfd;
		long long wake = r->deadline_ms, now;

		rpc_poll(r, &pfd, &wake);
		now = now_ms();
		if (poll(&pfd, pfd.fd >= 0 ? 1 : 0,
		    wake > now ? (int)(wake - now) : 0) < 0 && errno != EINTR)
			fatal_errno("poll");
	}
	return r->status;
}
