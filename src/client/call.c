/* A client call: the busy probe, the request, and what it ended in (see
 * client.h). */
#include "client/client.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { PH_PROBE = 1, PH_MAIN, PH_DONE };

int
client_cfg_init(struct client_cfg *cfg, const char *socket_arg,
    const char *wait_arg, const char **why)
{
	const char *s = socket_arg;
	unsigned long long w = CLIENT_DEFAULT_WAIT_S;

	memset(cfg, 0, sizeof(*cfg));
	if (s == NULL)
		s = getenv(CLIENT_SOCKET_ENV);
	if (s == NULL || s[0] == '\0')
		s = LF_SOCKET;
	if (s[0] != '/' || strlen(s) >= sizeof(cfg->socket)) {
		*why = "the socket must be an absolute path of at most 107 bytes";
		return -1;
	}
	memcpy(cfg->socket, s, strlen(s) + 1);
	if (wait_arg == NULL)
		wait_arg = getenv(CLIENT_WAIT_ENV);
	if (wait_arg != NULL && wait_arg[0] != '\0' &&
	    parse_u64(wait_arg, 1, CLIENT_MAX_WAIT_S, &w) != 0) {
		*why = "the wait must be a whole number of seconds (1 to 176400)";
		return -1;
	}
	cfg->wait_s = (long)w;
	return 0;
}

static void
done(struct call *c, enum cl_outcome o)
{
	c->outcome = o;
	c->phase = PH_DONE;
}

/* How long the request itself may take, once the console is known to be
 * free: a plan waits for the human and its quantum. */
static long
main_timeout_ms(const struct call *c)
{
	switch (c->method) {
	case M_FILE_PLAN:
		return c->cfg->wait_s * 1000;
	case M_FILE_RUN:
		/* asked again while pending: the wait is the whole call's */
		return c->first_ms + c->cfg->wait_s * 1000 - now_ms() > 1 ?
		    (long)(c->first_ms + c->cfg->wait_s * 1000 - now_ms()) : 1;
	case M_FILE_RELEASE:
		/* held until the quantum, refusals included */
		return (long)c->quantum_s * 1000 + CLIENT_SHORT_MS;
	default:
		return CLIENT_SHORT_MS;
	}
}

static void
start_main(struct call *c)
{
	json_t *params = c->params;

	c->params = NULL;
	c->main_start_ms = now_ms();
	if (c->method == M_FILE_RUN && c->again == NULL) {
		c->again = params != NULL ? json_deep_copy(params) : NULL;
		c->first_ms = c->main_start_ms;
	}
	c->phase = PH_MAIN;
	if (rpc_begin(&c->rpc, c->cfg->socket, c->method, params,
	    c->method == M_STATUS ? CLIENT_PROBE_MS : main_timeout_ms(c)) != 0) {
		/* rpc_begin already ended it */
	}
}

void
call_begin(struct call *c, const struct client_cfg *cfg, enum lf_method m,
    json_t *params)
{
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->method = m;
	c->params = params;
	if (m == M_STATUS) {
		/* status is its own probe */
		start_main(c);
		return;
	}
	c->phase = PH_PROBE;
	(void)rpc_begin(&c->rpc, cfg->socket, M_STATUS, NULL, CLIENT_PROBE_MS);
}

void
call_poll(const struct call *c, struct pollfd *pfd, long long *wake_ms)
{
	pfd->fd = -1;
	pfd->events = pfd->revents = 0;
	if (c->phase == PH_PROBE || c->phase == PH_MAIN)
		rpc_poll(&c->rpc, pfd, wake_ms);
}

static void
probe_done(struct call *c, enum rpc_status st)
{
	struct proto_reply *rep = &c->rpc.reply;

	switch (st) {
	case RPC_ANSWERED:
		if (rep->is_error) {
			c->err = rep->err;
			done(c, CL_REFUSED);
			break;
		}
		c->quantum_s = (unsigned)json_integer_value(json_object_get(
		    rep->result, "answer_quantum_s"));
		rpc_end(&c->rpc);
		start_main(c);
		return;
	case RPC_TIMEOUT:
		/* Serving another request: a plan waiting for the human, or a
		 * run held until its quantum. */
		done(c, CL_BUSY);
		break;
	case RPC_UNREACHABLE:
		done(c, CL_UNREACHABLE);
		break;
	default:
		done(c, CL_CONSOLE_ERROR);
		break;
	}
	rpc_end(&c->rpc);
}

/* A hub-mode file.run answered pending (no decision yet, or a renewed
 * ticket): asked again, while the wait lasts. The console holds each
 * pending answer to its quantum, so this is one request a quantum. */
static int
ask_again(struct call *c, enum rpc_status st)
{
	const struct proto_reply *rep = &c->rpc.reply;
	const json_t *status;

	if (c->method != M_FILE_RUN || st != RPC_ANSWERED || rep->is_error ||
	    c->again == NULL)
		return 0;
	status = json_object_get(rep->result, "status");
	if (!json_is_string(status) ||
	    strcmp(json_string_value(status), "pending") != 0 ||
	    now_ms() + 1000 >= c->first_ms + c->cfg->wait_s * 1000)
		return 0;
	rpc_end(&c->rpc);
	c->params = json_deep_copy(c->again);
	start_main(c);
	return 1;
}

static void
main_done(struct call *c, enum rpc_status st)
{
	struct proto_reply *rep = &c->rpc.reply;

	if (ask_again(c, st))
		return;
	switch (st) {
	case RPC_ANSWERED:
		if (rep->is_error) {
			c->err = rep->err;
			done(c, CL_REFUSED);
		} else {
			c->result = json_incref(rep->result);
			done(c, CL_RESULT);
		}
		break;
	case RPC_TIMEOUT:
		/* A short request that got no answer found the console busy
		 * after all (another client came first); a plan ran past the
		 * client's wait. */
		done(c, (c->method == M_FILE_PLAN || c->method == M_FILE_RUN ||
		    c->method == M_FILE_RELEASE) ? CL_TIMEOUT : CL_BUSY);
		break;
	case RPC_UNREACHABLE:
		done(c, CL_UNREACHABLE);
		break;
	default:
		done(c, CL_CONSOLE_ERROR);
		break;
	}
	rpc_end(&c->rpc);
}

int
call_step(struct call *c, short revents)
{
	enum rpc_status st;

	if (c->phase == PH_DONE)
		return 1;
	if (c->rpc.status == RPC_PENDING)
		st = rpc_step(&c->rpc, revents);
	else
		st = c->rpc.status;	/* rpc_begin refused at once */
	if (st == RPC_PENDING)
		return 0;
	if (c->phase == PH_PROBE)
		probe_done(c, st);
	else
		main_done(c, st);
	if (c->phase == PH_MAIN)
		return call_step(c, 0);	/* the request starts now */
	return c->phase == PH_DONE;
}

int
call_in_main(const struct call *c)
{
	return c->phase == PH_MAIN;
}

void
call_end(struct call *c)
{
	if (c->phase == PH_PROBE || c->phase == PH_MAIN)
		rpc_end(&c->rpc);
	json_decref(c->params);
	json_decref(c->result);
	json_decref(c->again);
	c->params = c->result = c->again = NULL;
	c->phase = PH_DONE;
}

void
call_run(struct call *c)
{
	while (!call_step(c, 0)) {
		struct pollfd pfd;
		long long wake = now_ms() + 60000, now;

		call_poll(c, &pfd, &wake);
		now = now_ms();
		if (poll(&pfd, pfd.fd >= 0 ? 1 : 0,
		    wake > now ? (int)(wake - now) : 0) < 0 && errno != EINTR)
			fatal_errno("poll");
	}
}

/* ---- the client's own outcomes: static words only ---- */

static const struct {
	const char *code, *words, *hint;
	int exit;
} own[] = {
	[CL_RESULT] = { NULL, "answered", NULL, EXIT_RESULT },
	[CL_REFUSED] = { NULL, "refused", NULL, EXIT_REFUSED },
	[CL_CONSOLE_ERROR] = { "console error", "console error",
	    "the console's answer was outside the closed list; nothing of it "
	    "is shown", EXIT_CONSOLE_ERROR },
	[CL_BUSY] = { "busy", "busy",
	    "the console is serving another request (a plan waiting for the "
	    "human, or a run held until its quantum); try again later",
	    EXIT_BUSY },
	[CL_UNREACHABLE] = { "unreachable", "unreachable",
	    "no console answers on the socket, or this account may not use it",
	    EXIT_UNREACHABLE },
	[CL_TIMEOUT] = { "timeout", "timeout",
	    "no answer within the client's wait; a card still waiting for the "
	    "human is withdrawn", EXIT_TIMEOUT },
};

const char *
outcome_code(enum cl_outcome o, enum lf_err e)
{
	ASSERT(o >= CL_RESULT && o <= CL_TIMEOUT);
	if (o == CL_REFUSED)
		return proto_error(e)->name;
	return own[o].code;
}

const char *
outcome_hint(enum cl_outcome o, enum lf_err e)
{
	ASSERT(o >= CL_RESULT && o <= CL_TIMEOUT);
	if (o == CL_REFUSED)
		return proto_error(e)->hint;
	return own[o].hint;
}

const char *
outcome_words(enum cl_outcome o)
{
	ASSERT(o >= CL_RESULT && o <= CL_TIMEOUT);
	return own[o].words;
}

int
outcome_exit(enum cl_outcome o)
{
	ASSERT(o >= CL_RESULT && o <= CL_TIMEOUT);
	return own[o].exit;
}

json_t *
outcome_error_json(enum cl_outcome o, enum lf_err e)
{
	json_t *j = json_object();

	ASSERT(o != CL_RESULT);
	json_object_set_new(j, "error", json_string(outcome_code(o, e)));
	json_object_set_new(j, "hint", json_string(outcome_hint(o, e)));
	return j;
}
