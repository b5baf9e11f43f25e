/* The agent's side of lockfile: what a client call can end in, and the
 * call itself (a busy probe, then the request), shared by the CLI and the
 * MCP server.
 *
 * Seed: "the agent only ever sees 1s and 0s about a file". The only things
 * a client ever shows are a result that passed the closed list (rpc.h), a
 * listed E_* code with its static hint, or one of the client's own
 * outcomes below, each with a static text. Nothing a console sends outside
 * the list is shown: it becomes "console error". */
#ifndef LOCKFILE_CLIENT_H
#define LOCKFILE_CLIENT_H

#include <jansson.h>

#include "client/rpc.h"
#include "lib/paths.h"
#include "protocol/table.h"

/* The socket is LF_SOCKET (lib/paths.h) unless the environment names
 * another. */
#define CLIENT_SOCKET_ENV	"LOCKFILE_SOCKET"
#define CLIENT_WAIT_ENV		"LOCKFILE_WAIT"
#define CLIENT_PROBE_MS		2000	/* the busy probe */
#define CLIENT_SHORT_MS		10000	/* sources, plugins, change.request */
#define CLIENT_DEFAULT_WAIT_S	900	/* a plan: the human, then the quantum */
#define CLIENT_MAX_WAIT_S	(2 * 86400 + 3600)

enum cl_outcome {
	CL_RESULT = 0,		/* a result inside the closed list */
	CL_REFUSED,		/* a listed E_* error */
	CL_CONSOLE_ERROR,	/* the console's answer was outside the list */
	CL_BUSY,		/* the status probe got no answer in time */
	CL_UNREACHABLE,		/* no console socket for this account */
	CL_TIMEOUT,		/* no answer within the client's wait */
};

struct client_cfg {
	char socket[108];
	long wait_s;		/* plan and run */
};

/* Socket from arg, else $LOCKFILE_SOCKET, else the default; wait from arg
 * (seconds, may be NULL), else $LOCKFILE_WAIT, else the default. 0, or -1
 * with a static reason. */
int client_cfg_init(struct client_cfg *cfg, const char *socket_arg,
    const char *wait_arg, const char **why);

/* One call: for every method but status, a status probe on its own
 * connection first (busy when it gets no answer within CLIENT_PROBE_MS),
 * then the request. */
struct call {
	const struct client_cfg *cfg;
	enum lf_method method;
	json_t *params;		/* owned until the main request starts */
	int phase;		/* internal */
	struct rpc rpc;
	unsigned quantum_s;	/* from the probe; 0 before */
	long long main_start_ms;	/* when the request itself was sent */
	/* file.run: its params again, and when the first was sent: a run
	 * answered pending (no decision yet) is asked again until the wait
	 * is over (docs/hub.md, "The console's side") */
	json_t *again;
	long long first_ms;
	enum cl_outcome outcome;
	enum lf_err err;	/* CL_REFUSED */
	json_t *result;		/* CL_RESULT; owned */
};

void call_begin(struct call *c, const struct client_cfg *cfg,
    enum lf_method m, json_t *params);
void call_poll(const struct call *c, struct pollfd *pfd, long long *wake_ms);
/* 1 when the call has ended (outcome set), else 0. */
int call_step(struct call *c, short revents);
/* 1 once the request itself is on its way (after the probe). */
int call_in_main(const struct call *c);
void call_end(struct call *c);
/* Run to the end (CLI). */
void call_run(struct call *c);

/* The outcome's code: "E_..." for a listed error, else "busy",
 * "console error", "unreachable" or "timeout"; NULL for a result. */
const char *outcome_code(enum cl_outcome o, enum lf_err e);
/* Its static hint (the table's, or the client's own). */
const char *outcome_hint(enum cl_outcome o, enum lf_err e);
/* Human words for the client's own outcomes ("console error", ...). */
const char *outcome_words(enum cl_outcome o);
/* The documented exit status: depends on the outcome only, never on an
 * answer (docs/client.md). */
int outcome_exit(enum cl_outcome o);
/* {"error": code, "hint": hint} for anything but a result. */
json_t *outcome_error_json(enum cl_outcome o, enum lf_err e);

#define EXIT_RESULT		0
#define EXIT_REFUSED		1
#define EXIT_CONSOLE_ERROR	2
#define EXIT_BUSY		3
#define EXIT_UNREACHABLE	4
#define EXIT_TIMEOUT		5
#define EXIT_USAGE		64

#endif
