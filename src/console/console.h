/* The console: state of one session and the request handlers. */
#ifndef LOCKFILE_CONSOLE_H
#define LOCKFILE_CONSOLE_H

#include <limits.h>

#include "console/audit.h"
#include "console/handlers.h"
#include "console/hub.h"
#include "host/isolation.h"
#include "console/ledger.h"
#include "console/listener.h"
#include "console/parser_worker.h"
#include "console/plan.h"
#include "console/policy.h"
#include "console/serve.h"
#include "term/term.h"
#include "console/values.h"
#include "console/workspace.h"
#include "protocol/request.h"
#include "sandbox/sandbox.h"
#include "store/store.h"

struct console {
	char home[PATH_MAX];
	struct policy pol;
	struct listener lis;
	struct parser parser;
	struct serve conns;		/* serve.h: the open connections */
	struct term term;
	struct sandbox sb;
	struct store store;
	struct workspace ws;
	struct audit audit;
	struct ledger *ledger;		/* ledger.h: answers per agent and key */
	char ledger_dir[PATH_MAX];
	struct values values;
	struct isolation iso;		/* isolation.h: snapshot, last cause */
	struct iso_agents agents;	/* host/agents.h: built once by start()
					 * (agents_build); the listener's
					 * allowed uids are these */
	const char *scrub_words[POLICY_MAX_PROFILES * 8];
	size_t nscrub;
	struct plan_env env;		/* what plans borrow (plan.h) */
	struct handler_env methods;	/* what the other methods borrow
					 * (handlers.h) */
	struct console_hub hub;		/* hub mode (hub.h), or hub.on 0 */
	long long start_ms, last_request_ms, session_end_ms;
	int sigfd;
	int stopping;
};

/* start() copies the agents' uids into the listener: each fits. */
_Static_assert(ISO_MAX_AGENTS <= LISTENER_MAX_ALLOWED,
    "the listener holds every allowed agent");

/* console_env.c: fill c->env from the console's parts (after start-up
 * has opened them). audit_failed stops the console when the audit cannot
 * be written, ledger_failed when the answer ledger cannot record a plan;
 * neither returns. */
void console_env_init(struct console *c, void (*audit_failed)(struct console *),
    void (*ledger_failed)(struct console *, const char *why));

#endif
