/* The plan pipeline's own header (docs/console.md, "A plan"): the plan
 * as it goes, and the steps both of its entries take, in plan_steps.c.
 * Only the pipeline's files include it: plan.c (file.plan's front: the
 * refusals before the card), plan_local.c (the console's terminal
 * decides), plan_hub.c (lockhub decides: the ticket, file.run) and
 * plan_record.c (the pending plan's record). The rest of the console
 * sees plan.h only.
 *
 * One pipeline: both entries end in plan_tail(), and the bounds that
 * must hold when plugins run are one function, plan_bounds(), asked
 * before the card and once more right before the run
 * (docs/security.md, "one bounds check"). */
#ifndef LOCKFILE_CONSOLE_PLAN_STEPS_H
#define LOCKFILE_CONSOLE_PLAN_STEPS_H

#include "console/plan.h"
#include "protocol/table.h"

struct plan {
	const struct plan_env *e;
	enum lf_method method;		/* file.plan, or file.run (hub mode) */
	const struct request *req;
	const struct peer *peer;
	json_t *id;
	json_t *rec;			/* the audit record */
	const struct profile *pr;
	struct ws_handle *h;		/* plan by handle, or after fetch */
	char key[PROTO_MAX_KEY + 1];	/* cleaned */
	struct opened_plugin op[PROTO_MAX_PLUGINS];
	size_t nop;
	/* What the card showed, per plugin (name, version, both hashes,
	 * marketplace, official): the run opens exactly this. */
	struct lock_entry pin[PROTO_MAX_PLUGINS];
	struct card_plugin cp[PROTO_MAX_PLUGINS];
	unsigned left_before;
	/* this agent's own ledger entry for the key, inside the window */
	struct ledger_usage used;
	char ledger_line[200];
	struct ledger_screen_line screen[LEDGER_SCREEN_LINES];
	struct card_ledger cl[LEDGER_SCREEN_LINES];
	/* hub mode: the plan as it waits */
	char planid[PLAN_ID_TEXT];
	struct request *own_req;	/* restored from its record */
	/* hub mode: where a pending answer's quantum end goes when it is
	 * parked rather than held (serve.h, issue 27); NULL: held */
	long long *release_ms;
};

/* A plan for method, its audit record begun empty (the caller fills
 * pl->req). plan_free() records it at once unless recorded (the caller
 * wrote it inside the quantum), closes its plugins and wipes it. */
struct plan *plan_new(const struct plan_env *e, enum lf_method method,
    const struct request *req, const struct peer *peer);
void plan_free(struct plan *pl, int recorded);

long long plan_now(const struct plan *pl);
/* A line for the console window, in plan.c's words (never agent text). */
void plan_window(const struct plan *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Refuse with err: the response line; the audit names the precise cause. */
char *plan_refuse(struct plan *pl, enum lf_err err, const char *cause);

/* The request's binding of input for plugin rp, or NULL. */
const struct req_input *plan_binding(const struct req_plugin *rp,
    const char *input);
/* Every manifest input bound exactly once to a placeholder. */
int plan_bindings_match(const struct req_plugin *rp, const struct manifest *m);
/* The plan's plugins as plugins.lock records them now (they become its
 * pins), or exactly its pins; both E_NONE or the code, with why. */
enum lf_err plan_open_plugins(struct plan *pl, const char **why);
enum lf_err plan_open_pinned(struct plan *pl, const char **why);
void plan_close_plugins(struct plan *pl);

/* file.plan's refusals before the card (docs/console.md, "A plan", 1):
 * NULL, or the response line. */
char *plan_precheck(struct plan *pl);
/* The handle's answers left (pl->left_before): 0 when it has none. */
int plan_handle_left(struct plan *pl);
/* The handle's answers left and the agent's answer cap for the key
 * (the ledger): E_NONE, E_TOO_MANY_PLUGINS or E_ANSWER_CAP. */
enum lf_err plan_answer_bounds(const struct plan *pl,
    unsigned long long nanswers);
/* Every check that must pass for plugins to run: plan_answer_bounds(),
 * then the sandbox ready, then /proc hidden (*why: a static reason for
 * the last two, NULL for the first). */
enum lf_err plan_bounds(const struct plan *pl, unsigned long long nanswers,
    const char **why);

/* The card the human decides on (approval.h), pointing into pl. */
void plan_card(struct plan *pl, struct card *card_out);

/* Where the values of placeholders not held yet come from: the human at
 * the console's terminal (plan_local.c) or a hub decision's sealed box
 * (plan_hub.c). */
struct plan_value_source {
	/* The value for placeholder ph of input in, into buf (locked memory
	 * of at least VALUE_MAX_BYTES + 1 bytes): its length, or -1 with the
	 * refusal's code and cause. */
	long (*read)(struct plan *pl, const char *ph,
	    const struct manifest_input *in, uint8_t *buf, enum lf_err *err,
	    const char **cause);
	/* A pending plan's record, or NULL: the placeholders held when its
	 * ticket was made must be held still. */
	const json_t *record;
};
/* 1 when ph is among the placeholders a pending plan's record r says
 * were held when its ticket was made. */
int plan_held_then(const json_t *r, const char *ph);
/* Every value of the plan, from src when not held, checked against the
 * input it is bound to: NULL, or the response line. */
char *plan_values(struct plan *pl, const struct plan_value_source *src);

/* What the hub's ticket fixed of the content (plan_tail). */
struct plan_want {
	int first_failed;		/* the ticket's fetch failed */
	const uint8_t *sha256;		/* what the approval was for */
};

/* The tail both entries share, from the approval on (t0: its time, the
 * quantum's start): the bounds again, the values (from src; NULL when the
 * human typed them at the approval), the content (fetched, or the
 * handle's, and in hub mode what the ticket fixed: want), the ledger's
 * per-file budget, the run, the ledger, the answer; a handle whose
 * answers are used up is dropped. The response line (the caller records
 * the plan and holds it to the quantum). */
char *plan_tail(struct plan *pl, const struct plan_value_source *src,
    const struct plan_want *want, const char *planid, long long t0);

#endif
