/* A plan the console's terminal decides (docs/console.md, "A plan", 2
 * and 3): the card and the human's decision, typed values (no echo),
 * then the tail both entries share, the answer at the quantum. */
#include "console/plan_entry.h"
#include "lib/log.h"

/* The value of a placeholder not held yet, typed by the human. */
static long
typed_value(struct plan *pl, const char *ph, const struct manifest_input *in,
    uint8_t *buf, enum lf_err *err, const char **cause)
{
	const struct plan_env *e = pl->e;
	long n = e->human->read_value(e->human_ctx, ph, in, buf,
	    VALUE_MAX_BYTES + 1, plan_now(pl) +
	    (long long)e->pol->approval_timeout_s * 1000, pl->peer->fd);

	if (n >= 0)
		return n;
	if (n == PLAN_VALUE_PEER_GONE) {
		*err = E_APPROVAL_TIMEOUT;
		*cause = "the agent hung up";
	} else {
		*err = n == PLAN_VALUE_TIMEOUT ? E_APPROVAL_TIMEOUT :
		    E_INPUT_INVALID;
		*cause = "value not typed";
	}
	return -1;
}

static const struct plan_value_source typed_values = { typed_value, NULL };

static char *
approve(struct plan *pl)
{
	const struct plan_env *e = pl->e;
	struct card card;
	enum decision d;

	plan_card(pl, &card);
	d = e->human->decide(e->human_ctx, &card, plan_now(pl) +
	    (long long)e->pol->approval_timeout_s * 1000, pl->peer->fd);
	json_object_set_new(pl->rec, "decision", json_string(
	    d == DECISION_APPROVED ? "approved" :
	    d == DECISION_DENIED ? "denied" :
	    d == DECISION_WITHDRAWN ? "withdrawn" : "timeout"));
	if (d == DECISION_DENIED)
		return plan_refuse(pl, E_APPROVAL_DENIED, NULL);
	if (d == DECISION_TIMEOUT)
		return plan_refuse(pl, E_APPROVAL_TIMEOUT, NULL);
	if (d == DECISION_WITHDRAWN)
		return plan_refuse(pl, E_APPROVAL_TIMEOUT, "the agent hung up");
	/* Typed now, before the quantum starts: the human's typing time is
	 * not the file's (plan_tail then takes none from a source). */
	return plan_values(pl, &typed_values);
}

char *
plan_local(struct plan *pl, const char *planid, int *recorded)
{
	const struct plan_env *e = pl->e;
	long long t0;
	char *line;

	line = approve(pl);	/* the agent's hang-up withdraws the card */
	if (line != NULL)
		return line;
	/* From the approval on, the answer (or a fetch failure) leaves only at
	 * the next multiple of the quantum: neither the fetch nor the runs show
	 * in the timing. */
	t0 = plan_now(pl);
	line = plan_tail(pl, NULL, NULL, planid, t0);
	/* Durable before the answer, inside the quantum: the fsync's time
	 * does not show. */
	e->audit->write(e->audit_ctx, json_incref(pl->rec));
	*recorded = 1;
	plan_hold_quantum(e, t0);
	plan_window(pl, "  plan %s: %s", planid, json_string_value(
	    json_object_get(pl->rec, "outcome")));
	return line;
}
