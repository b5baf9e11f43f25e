/* The plan pipeline (docs/console.md "A plan") and the environment it
 * runs in. console.c builds one struct plan_env at start-up and hands it
 * to every plan: the policy, store, workspace and held values the plan
 * borrows, and the interfaces it calls instead of the console: a human
 * (the card and its decision, typed values, window lines), the sandbox, an
 * audit sink and a clock. The pipeline never sees struct console, so the
 * call direction is console.c -> plan*.c only, and it runs under unit
 * tests with a fake human, sandbox and clock (tests/unit/test_plan.c).
 *
 * Its files: plan.c (file.plan's front: the refusals before the card),
 * plan_local.c (the console's terminal decides), plan_hub.c (lockhub
 * decides: the ticket, file.run), plan_record.c (a pending plan's record)
 * and plan_steps.c (every step both modes share, plan_steps.h). Hub mode
 * is a second entry, not a second pipeline: both end in the same tail
 * (plan_tail: bounds, values, fetch, run, ledger, answer). */
#ifndef LOCKFILE_CONSOLE_PLAN_H
#define LOCKFILE_CONSOLE_PLAN_H

#include <stddef.h>

#include <jansson.h>

#include "console/approval.h"
#include "console/ledger.h"
#include "console/listener.h"
#include "console/policy.h"
#include "console/values.h"
#include "console/workspace.h"
#include "protocol/request.h"
#include "sandbox/sandbox.h"
#include "sources/source.h"
#include "store/manifest.h"
#include "store/store.h"

/* What read_value() returns besides a length. */
#define PLAN_VALUE_TIMEOUT	(-1)	/* no value before the deadline */
#define PLAN_VALUE_NONE		(-2)	/* the terminal is gone, or too long */
#define PLAN_VALUE_PEER_GONE	(-4)	/* the agent hung up */

/* The human. Every text the implementation shows of the plan comes from
 * the card (rendered: lib/render.h) or from plan.c's own words. */
struct plan_human_ops {
	/* Show the card and read the decision before deadline_ms (the
	 * monotonic clock); peer_fd is the requesting agent's connection,
	 * whose hang-up withdraws the card. */
	enum decision (*decide)(void *ctx, const struct card *card,
	    long long deadline_ms, int peer_fd);
	/* The value of placeholder for input in, which the console does not
	 * hold, into buf (locked memory of cap bytes): its length, or a
	 * PLAN_VALUE_* code. */
	long (*read_value)(void *ctx, const char *placeholder,
	    const struct manifest_input *in, uint8_t *buf, size_t cap,
	    long long deadline_ms, int peer_fd);
	/* The value for placeholder does not fit in: the human is told the
	 * placeholder and the input, never the value. */
	void (*value_refused)(void *ctx, const char *placeholder,
	    const struct manifest_input *in);
	/* A line for the console window (plan.c's words, never agent text). */
	void (*window)(void *ctx, const char *line);
	/* Level 0 ("clear results") only: plugin i's outcome and its detail
	 * (outside bytes, for the implementation to render). */
	void (*result)(void *ctx, size_t i, const char *plugin,
	    const char *outcome, const char *detail, size_t detail_len);
};

struct plan_sandbox_ops {
	/* 1 when plugins may run, else 0 with a static reason. */
	int (*ready)(void *ctx, const char **why);
	/* 0 when the plugins' processes would be hidden from other accounts
	 * (docs/isolation.md), else -1 with a static reason. */
	int (*proc_hidden)(void *ctx, const char **why);
	/* Before a plan's runs: the task count the limits are made from. */
	void (*refresh)(void *ctx);
	void (*run)(void *ctx, const struct plugin_run *r,
	    struct plugin_result *res);
};

struct plan_clock_ops {
	long long (*now_ms)(void *ctx);			/* monotonic */
	void (*sleep_until)(void *ctx, long long deadline_ms);
};

/* The audit: takes the record; when it cannot be written the console
 * stops (wiping values, deleting files) and this never returns. write
 * returns once the record is fsync'd: for answers that wait for the
 * quantum, called before the wait. note returns at once, the record made
 * durable off the serving thread: for answers given at once, which must
 * not wait on the file system (docs/console.md, "The audit's
 * durability"). A NULL note is write. */
struct plan_audit_ops {
	void (*write)(void *ctx, json_t *rec);
	void (*note)(void *ctx, json_t *rec);
};

/* The answer ledger cannot record a plan: the console stops (values
 * wiped, files deleted) before the answer the record was for leaves, as
 * when the audit cannot be written; never returns. */
struct plan_ledger_ops {
	void (*failed)(void *ctx, const char *why);
};

/* Hub mode (docs/hub.md): the human decides on lockhub, later.
 * plan_hub.c hands over what the ticket is made of; the hub side (hub.c) makes and
 * signs the ticket, keeps its one-use key and replay state, and checks
 * the decision in the order of docs/hub.md. */
#define PLAN_ID_TEXT	40	/* an id ("t_" + 32 hex) and its NUL, with room */
#define PLAN_MAX_MOVED	32	/* inputs a renewal names (docs/hub.md) */

enum plan_content {
	PLAN_CONTENT_FETCHED = 0,	/* sha256 and size known */
	PLAN_CONTENT_FAILED,		/* the first fetch failed */
	PLAN_CONTENT_UNCHECKED,		/* a renewal: the first ticket's sha256 */
	PLAN_CONTENT_LATER,		/* fetched behind the pending answer */
};

struct plan_ticket {
	const char *plan_id;
	uid_t uid;
	const struct card *card;	/* what the human is shown */
	const struct request *req;	/* its bindings */
	const char *profile, *key, *handle;	/* cleaned; handle or "" */
	enum plan_content content;
	const uint8_t *sha256;		/* unless FAILED */
	unsigned long long size;
	const struct lock_entry *pins;	/* per plugin, what runs */
	size_t npins;
	const char *renews;		/* "" or the ticket this one renews */
	const char *const *moved;	/* a renewal: the inputs that moved */
	size_t nmoved;
	/* PLAN_CONTENT_LATER: the hub side fetches key from this source
	 * (src NULL: the profile is unavailable) behind the answer, bytes
	 * kept nowhere, at most cap of them; the fetch's detail is scrubbed
	 * of these words. */
	const struct source_kind *kind;
	struct source *src;
	unsigned long long cap;
	const char *const *scrub_words;
	size_t nscrub;
};

enum plan_verdict {
	PLAN_APPROVED,		/* hub_value() gives the typed values */
	PLAN_DENIED,
	PLAN_EXPIRED,		/* past its expiry, or its one-use key is gone
				 * (the console restarted): renew it */
	PLAN_NO_DECISION,	/* none that holds (a refused one, the hub
				 * unreachable or refusing) */
	PLAN_UNDECIDED,		/* none yet: file.run answers pending again */
};

/* What became of a ticket made with PLAN_CONTENT_LATER. */
enum plan_prep {
	PLAN_PREP_DONE = 0,	/* posted: the content's state is known */
	PLAN_PREP_BUSY,		/* still fetching or posting */
	PLAN_PREP_REFUSED,	/* the hub did not take the ticket */
	PLAN_PREP_GONE,		/* no state (the console restarted) */
};

enum plan_ask {
	PLAN_ASK_OK = 0,
	PLAN_ASK_REFUSED,	/* the hub did not take it, the table is full */
	PLAN_ASK_SHARE,		/* the agent's share of the table is taken */
	PLAN_ASK_MUTED,		/* an approver muted the agent (a passkey's
				 * deny-and-mute): E_APPROVAL_DENIED */
};

struct plan_hub_ops {
	/* Make the ticket: PLAN_ASK_OK and its id (and the instance name)
	 * in ticket, or why not. Never waits: the fetch (PLAN_CONTENT_LATER),
	 * the signing, the post and the decision's long-poll go on behind
	 * the answer (docs/hub.md, "The console's side"). */
	enum plan_ask (*ask)(void *ctx, const struct plan_ticket *t,
	    char ticket[PLAN_ID_TEXT], char instance[33]);
	/* Before anything is fetched: PLAN_ASK_SHARE when uid's pending
	 * plans fill its share of the ticket table (a plan that has a ticket
	 * keeps its place), else PLAN_ASK_OK (docs/hub.md). */
	enum plan_ask (*room)(void *ctx, uid_t uid, const char *plan_id);
	/* A PLAN_CONTENT_LATER ticket: whether it is made and posted, and
	 * then the content's state, sha256 and size. Waits for it no later
	 * than until_ms: the end of the quantum a pending answer is held to
	 * anyway, never longer. */
	enum plan_prep (*prepared)(void *ctx, const char *plan_id,
	    enum plan_content *content, uint8_t sha256[32],
	    unsigned long long *size, long long until_ms);
	/* The decision on the plan's ticket, checked, if one came by
	 * until_ms (as above: within the pending answer's own quantum; the
	 * hub's long-poll is never waited for); else PLAN_UNDECIDED. */
	enum plan_verdict (*await)(void *ctx, const char *plan_id, uid_t uid,
	    long long until_ms);
	/* After PLAN_APPROVED: the value typed for placeholder, into buf
	 * (locked memory of cap bytes): its length, or -1 when the decision
	 * carried none. */
	long (*value)(void *ctx, const char *plan_id, const char *placeholder,
	    uint8_t *buf, size_t cap);
	/* The plan is done: its ticket state and values wiped. */
	void (*forget)(void *ctx, const char *plan_id);
	/* The pending plan itself, kept across a restart (no secret in it). */
	int (*save)(void *ctx, const char *plan_id, json_t *rec);
	json_t *(*load)(void *ctx, const char *plan_id);
	void (*drop)(void *ctx, const char *plan_id);
};


struct plan_env {
	const struct policy *pol;
	struct store *store;
	struct workspace *ws;
	struct values *values;
	/* extra words scrubbed from text bound for the window or the audit
	 * (the profiles' locations: scrub.h) */
	const char *const *scrub_words;
	size_t nscrub;
	const struct plan_human_ops *human;
	void *human_ctx;
	const struct plan_sandbox_ops *sandbox;
	void *sandbox_ctx;
	const struct plan_clock_ops *clock;
	void *clock_ctx;
	const struct plan_audit_ops *audit;
	void *audit_ctx;
	/* The answer ledger (ledger.h, docs/ledger.md), required: the cap
	 * is checked before the card from the request and the requesting
	 * agent's own entry, the card shows that entry, and every plan that
	 * reveals answers is recorded (and fsync'd) before they leave. */
	struct ledger *ledger;
	const struct plan_ledger_ops *ledger_ops;
	void *ledger_ctx;
	/* hub mode, or NULL: the console's terminal decides */
	const struct plan_hub_ops *hub;
	void *hub_ctx;
};

/* file.plan: one response line (malloc'ed, with its newline) from the
 * closed table. In hub mode the answer is the pending shape. */
char *plan_handle(const struct plan_env *e, const struct request *req,
    const struct peer *peer);
/* The same, but in hub mode an answer that waits only for its quantum
 * (the pending shape, or a refusal of the ticket) is returned with
 * *release_ms, the end of that quantum, for the caller to send then (the
 * console parks it, serve.h); *release_ms is 0 for any other answer
 * (a local plan's, held here: it follows the human and a fetch). Issue 27:
 * no agent is busy while another plans. */
char *plan_handle_parked(const struct plan_env *e, const struct request *req,
    const struct peer *peer, long long *release_ms);
/* file.run (hub mode): wait for the plan's decision and run it, or
 * renew its ticket. */
char *plan_run(const struct plan_env *e, const struct request *req,
    const struct peer *peer);
/* The same, but a pending answer (no decision yet) is not held on the
 * serving thread: it is returned with *release_ms, the end of its quantum,
 * when the caller sends it (the console parks it, serve.h), and nothing
 * waits for the hub meanwhile. *release_ms is 0 for any other answer
 * (held to its quantum here, as plan_run's). Issue 27: no agent is busy
 * while another waits for its decision. */
char *plan_run_parked(const struct plan_env *e, const struct request *req,
    const struct peer *peer, long long *release_ms);

/* Sleep until the first multiple of the policy's quantum after start_ms
 * (at least one): every answer that follows an approval, a fetch or a
 * deletion leaves then (docs/security.md, "Side channels"). */
void plan_hold_quantum(const struct plan_env *e, long long start_ms);
/* That time itself, not slept. */
long long plan_quantum_end(const struct plan_env *e, long long start_ms);

#endif
