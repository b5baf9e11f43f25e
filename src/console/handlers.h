/* The socket's small methods (status, sources, file.plugins, file.release,
 * change.request) and what they borrow: built once by console.c after
 * start-up, so they never see struct console (docs/hacking.md, "Layers"). */
#ifndef LOCKFILE_CONSOLE_HANDLERS_H
#define LOCKFILE_CONSOLE_HANDLERS_H

#include "console/listener.h"
#include "console/plan.h"
#include "protocol/request.h"
#include "term/term.h"

struct handler_env {
	/* the policy, store, workspace, sandbox, audit sink and clock, as
	 * the plan pipeline borrows them */
	const struct plan_env *plan;
	/* the console's window: plugins left out of file.plugins, change
	 * requests (agent text, rendered by term_untrusted) */
	struct term *term;
	long long session_end_ms;	/* monotonic, for status */
};

/* Each returns one response line (malloc'ed, with its newline) built from
 * the closed table. */
char *handle_status(const struct handler_env *m, const struct request *req);
char *handle_sources(const struct handler_env *m,
    const struct request *req);
char *handle_plugins(const struct handler_env *m,
    const struct request *req);
char *handle_release(const struct handler_env *m, const struct request *req,
    const struct peer *peer);
char *handle_change(const struct handler_env *m, const struct request *req,
    const struct peer *peer);

#endif
