/* The plan pipeline's environment as the console provides it (plan.h): the
 * human at the console's own terminal, the real sandbox and isolation
 * checks, the audit log, the monotonic clock. Built once at start-up by
 * console.c; the plan pipeline (plan*.c) only ever sees the interfaces. */
#include "console/console.h"
#include "host/isolation.h"
#include "console/plan.h"
#include "term/human.h"
#include "lib/clock.h"

#include <string.h>

/* ---- the human at the console's terminal ---- */

static enum decision
term_decide(void *ctx, const struct card *card, long long deadline_ms,
    int peer_fd)
{
	struct console *c = ctx;
	char why[ISO_DETAIL_MAX + 64];
	enum decision d;

	/* The human types here: the terminal checks again before each card
	 * (term/human.h), a terminal that fails them since the start answers
	 * no card (E_APPROVAL_TIMEOUT: nobody decided). */
	if (term_human_here(&c->term, &c->agents, why, sizeof(why)) != 0) {
		term_printf(&c->term, "%s: this plan is refused\n", why);
		return DECISION_TIMEOUT;
	}
	c->term.peer_fd = peer_fd;	/* a hang-up withdraws the card */
	d = approval_ask(&c->term, card, deadline_ms);
	c->term.peer_fd = -1;
	return d;
}

static long
term_read_value(void *ctx, const char *placeholder,
    const struct manifest_input *in, uint8_t *buf, size_t cap,
    long long deadline_ms, int peer_fd)
{
	struct console *c = ctx;
	long n;

	term_printf(&c->term, "  value for ${%s} (%s, at most %u bytes; not "
	    "shown): ", placeholder, input_kind_name(in->kind), in->max_bytes);
	term_flush_input(&c->term);
	c->term.peer_fd = peer_fd;
	n = term_read_line(&c->term, (char *)buf, cap, 0, deadline_ms);
	c->term.peer_fd = -1;
	if (n == TERM_PEER_GONE) {
		term_printf(&c->term, "\n  the agent went away: plan withdrawn\n");
		return PLAN_VALUE_PEER_GONE;
	}
	if (n < 0) {
		term_printf(&c->term, "  no value for ${%s}\n", placeholder);
		return n == TERM_TIMEOUT ? PLAN_VALUE_TIMEOUT : PLAN_VALUE_NONE;
	}
	return n;
}

static void
term_value_refused(void *ctx, const char *placeholder,
    const struct manifest_input *in)
{
	struct console *c = ctx;

	term_printf(&c->term, "  the value for ${%s} does not fit input %s (%s, "
	    "at most %u bytes)\n", placeholder, in->name,
	    input_kind_name(in->kind), in->max_bytes);
}

static void
term_window(void *ctx, const char *line)
{
	struct console *c = ctx;

	term_printf(&c->term, "%s\n", line);
}

static void
term_result(void *ctx, size_t i, const char *plugin, const char *outcome,
    const char *detail, size_t detail_len)
{
	struct console *c = ctx;

	term_printf(&c->term, "  [%zu] %s: %s", i + 1, plugin, outcome);
	if (detail_len > 0) {
		term_printf(&c->term, "  detail: ");
		term_untrusted(&c->term, detail, detail_len, LF_PLUGIN_DETAIL_MAX);
	}
	term_printf(&c->term, "\n");
}

static const struct plan_human_ops term_human = {
	.decide = term_decide,
	.read_value = term_read_value,
	.value_refused = term_value_refused,
	.window = term_window,
	.result = term_result,
};

/* ---- the sandbox and the isolation checks ---- */

static int
sb_ready(void *ctx, const char **why)
{
	struct console *c = ctx;

	*why = c->sb.why;
	return c->sb.ready;
}

static int
sb_proc_hidden(void *ctx, const char **why)
{
	struct console *c = ctx;

	return isolation_proc_hidden(&c->agents, &c->iso, why);
}

static void
sb_refresh(void *ctx)
{
	struct console *c = ctx;

	(void)sandbox_refresh_nproc(&c->sb);
}

static void
sb_run(void *ctx, const struct plugin_run *r, struct plugin_result *res)
{
	struct console *c = ctx;

	sandbox_run(&c->sb, r, res);
}

static const struct plan_sandbox_ops real_sandbox = {
	.ready = sb_ready,
	.proc_hidden = sb_proc_hidden,
	.refresh = sb_refresh,
	.run = sb_run,
};

/* ---- the clock ---- */

static long long
mono_now(void *ctx)
{
	return now_ms();
}

static void
mono_sleep(void *ctx, long long deadline_ms)
{
	sleep_until_ms(deadline_ms);
}

static const struct plan_clock_ops mono_clock = {
	.now_ms = mono_now,
	.sleep_until = mono_sleep,
};

/* ---- the audit ---- */

static void (*audit_failed_fn)(struct console *);

static void
log_write(void *ctx, json_t *rec)
{
	struct console *c = ctx;

	if (audit_write(&c->audit, rec) != 0)
		audit_failed_fn(c);	/* never returns */
}

static void
log_note(void *ctx, json_t *rec)
{
	struct console *c = ctx;

	if (audit_note(&c->audit, rec) != 0)
		audit_failed_fn(c);	/* never returns */
}

static const struct plan_audit_ops log_audit = {
	.write = log_write,
	.note = log_note,
};

/* ---- the ledger ---- */

static void (*ledger_failed_fn)(struct console *, const char *);

static void
ledger_failed(void *ctx, const char *why)
{
	ledger_failed_fn(ctx, why);	/* never returns */
}

static const struct plan_ledger_ops ledger_stop = {
	.failed = ledger_failed,
};

void
console_env_init(struct console *c, void (*audit_failed)(struct console *),
    void (*ledger_failed_stop)(struct console *, const char *))
{
	struct plan_env *e = &c->env;

	audit_failed_fn = audit_failed;
	ledger_failed_fn = ledger_failed_stop;
	memset(e, 0, sizeof(*e));
	e->pol = &c->pol;
	e->store = &c->store;
	e->ws = &c->ws;
	e->values = &c->values;
	e->scrub_words = c->scrub_words;
	e->nscrub = c->nscrub;
	e->human = &term_human;
	e->human_ctx = c;
	e->sandbox = &real_sandbox;
	e->sandbox_ctx = c;
	e->clock = &mono_clock;
	e->audit = &log_audit;
	e->audit_ctx = c;
	e->ledger = c->ledger;
	e->ledger_ops = &ledger_stop;
	e->ledger_ctx = c;
	if (c->hub.on) {
		e->hub = &console_hub_ops;
		e->hub_ctx = &c->hub;
		c->hub.audit = &log_audit;
		c->hub.audit_ctx = c;
	}
}
