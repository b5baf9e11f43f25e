/* A plan lockhub decides (docs/hub.md): file.plan's ticket and pending
 * answer, and file.run.
 *
 * file.plan: the checks before the card (plan.c), then a first fetch for
 * the masked screen and the plan hash (its bytes released at once; a
 * failure is told only after an approval), the ticket made and posted,
 * the pending answer at the quantum. file.run: the decision checked
 * (hub.c), the values from its box, a second fetch whose sha256 must be
 * the first's (else E_STALE, the spool released), the run, the answers at
 * the quantum: the tail the local entry ends in too (plan_tail). An
 * expired ticket, or one whose key went with a restart, is asked again as
 * a new ticket for the same plan, re-checked. The pending plan is kept as
 * a record (plan_record.c, no secret in it) so a restarted console can
 * renew it. */
#include "console/plan_entry.h"
#include "console/plan_record.h"
#include "protocol/response.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdlib.h>
#include <string.h>

static char *
pending_line(struct plan *pl, const char *planid, const char *ticket,
    const char *instance)
{
	json_t *r = json_object();

	json_object_set_new(r, "status", json_string("pending"));
	json_object_set_new(r, "plan", json_string(planid));
	json_object_set_new(r, "ticket", json_string(ticket));
	json_object_set_new(r, "lock", json_string("lockfile"));
	json_object_set_new(r, "instance", json_string(instance));
	json_object_set_new(r, "text", json_string(PROTO_PENDING_TEXT));
	return proto_result_line(pl->method, pl->id, r);
}

/* Hold a hub answer that waits only for its quantum from t0: parked when
 * the caller parks (its end in *pl->release_ms, the console sends it
 * then, serve_park), else slept here. Never shorter either way. */
static void
hub_hold(struct plan *pl, long long t0)
{
	if (pl->release_ms != NULL)
		*pl->release_ms = plan_quantum_end(pl->e, t0);
	else
		plan_hold_quantum(pl->e, t0);
}

/* Ask the hub side for a ticket and keep the plan's record. */
static char *
ticket_for(struct plan *pl, const char *planid, enum plan_content content,
    const uint8_t *sha, unsigned long long size, const char *renews,
    const char *const *moved, size_t nmoved)
{
	const struct plan_env *e = pl->e;
	struct plan_ticket f;
	struct card card;
	char ticket[PLAN_ID_TEXT], instance[33];
	json_t *rec;

	plan_card(pl, &card);
	memset(&f, 0, sizeof(f));
	f.plan_id = planid;
	f.uid = pl->peer->uid;
	f.card = &card;
	f.req = pl->req;
	f.profile = pl->pr->name;
	f.key = pl->key;
	f.handle = pl->h ? pl->h->id : "";
	f.content = content;
	f.sha256 = sha;
	f.size = size;
	f.pins = pl->pin;
	f.npins = pl->nop;
	f.renews = renews;
	f.moved = moved;
	f.nmoved = nmoved;
	if (content == PLAN_CONTENT_LATER) {
		f.kind = pl->pr->kind;
		f.src = pl->pr->src;
		f.cap = e->ws->cap;
		f.scrub_words = e->scrub_words;
		f.nscrub = e->nscrub;
	}
	switch (e->hub->ask(e->hub_ctx, &f, ticket, instance)) {
	case PLAN_ASK_OK:
		break;
	case PLAN_ASK_MUTED:
		return plan_refuse(pl, E_APPROVAL_DENIED, "its agent is muted "
		    "by an approver");
	case PLAN_ASK_SHARE:
		/* its record stays: the renewal can be asked again once
		 * another of the agent's plans is done */
		return plan_refuse(pl, E_TOO_MANY_PENDING, "its share of the "
		    "ticket table is taken");
	case PLAN_ASK_REFUSED:
	default:
		e->hub->drop(e->hub_ctx, planid);
		return plan_refuse(pl, E_APPROVAL_TIMEOUT, "the hub did not take the "
		    "ticket");
	}
	rec = plan_record(pl, planid, ticket, content, sha, size);
	json_object_set_new(rec, "instance", json_string(instance));
	if (e->hub->save(e->hub_ctx, planid, rec) != 0) {
		json_decref(rec);
		e->hub->forget(e->hub_ctx, planid);
		return plan_refuse(pl, E_APPROVAL_TIMEOUT, "the pending plan cannot "
		    "be kept");
	}
	json_decref(rec);
	json_object_set_new(pl->rec, "ticket", json_string(ticket));
	json_object_set_new(pl->rec, "outcome", json_string("pending"));
	if (renews[0] != '\0')
		json_object_set_new(pl->rec, "renews", json_string(renews));
	plan_window(pl, "  plan %s: waiting for its decision on lockhub (ticket %s)",
	    planid, ticket);
	return pending_line(pl, planid, ticket, instance);
}

char *
plan_hub_ask(struct plan *pl, const char *planid)
{
	const struct plan_env *e = pl->e;
	long long t0 = plan_now(pl);
	enum plan_content content = PLAN_CONTENT_LATER;
	uint8_t sha[32];
	unsigned long long size = 0;
	char *line;

	memset(sha, 0, sizeof(sha));
	/* One agent's plans take only its share of the ticket table: told
	 * before the fetch, as the other refusals before the card are. */
	switch (e->hub->room(e->hub_ctx, pl->peer->uid, planid)) {
	case PLAN_ASK_OK:
		break;
	case PLAN_ASK_MUTED:
		/* a deny-and-mute (docs/hub.md, "Passkeys"): the denial's
		 * own code, nothing fetched */
		return plan_refuse(pl, E_APPROVAL_DENIED, "its agent is muted "
		    "by an approver");
	default:
		return plan_refuse(pl, E_TOO_MANY_PENDING, "its share of the ticket "
		    "table is taken");
	}
	if (pl->h != NULL) {
		content = PLAN_CONTENT_FETCHED;
		memcpy(sha, pl->h->sha256, 32);
		size = pl->h->size;
	}
	/* Else the first fetch (for the human's masked screen and the plan
	 * hash) runs behind this answer, with the signing and the post: the
	 * agent has its ticket id at the first quantum whatever the file's
	 * size, and a failure is told only after an approval, on the
	 * quantum, so planning is no existence or size oracle (docs/hub.md,
	 * "The console's side"). */
	line = ticket_for(pl, planid, content, sha, size, "", NULL, 0);
	hub_hold(pl, t0);
	return line;
}

/* The plan inputs that moved since its ticket, by name, never by value. */
static size_t
moved_inputs(struct plan *pl, const struct lock_entry *old, size_t nold,
    const json_t *r, char moved[][64], size_t max)
{
	const struct request *req = pl->req;
	size_t i, j, n = 0;

	for (i = 0; i < pl->nop && i < nold && n < max; i++) {
		const struct lock_entry *a = &old[i], *b = &pl->pin[i];
		if (strcmp(a->version, b->version) != 0)
			str_msg(moved[n++], 64, "plugin %s: version", b->name);
		else if (memcmp(a->manifest_sha256, b->manifest_sha256, 32) != 0 ||
		    memcmp(a->binary_sha256, b->binary_sha256, 32) != 0)
			str_msg(moved[n++], 64, "plugin %s: files", b->name);
		else if (strcmp(a->marketplace, b->marketplace) != 0 ||
		    a->official != b->official)
			str_msg(moved[n++], 64, "plugin %s: marketplace", b->name);
	}
	for (i = 0; i < req->nplugins && n < max; i++)
		for (j = 0; j < req->plugins[i].ninputs && n < max; j++) {
			const char *ph = req->plugins[i].inputs[j].placeholder;
			if (!plan_held_then(r, ph) && values_find(pl->e->values,
			    pl->peer->uid, ph) != NULL)
				str_msg(moved[n++], 64, "value held: ${%s}", ph);
		}
	return n;
}

/* A new ticket for the same plan, re-checked: its plugins as installed
 * now (what moved is named), its held values, its handle. */
static char *
renew(struct plan *pl, const json_t *r, enum plan_content content,
    const uint8_t *sha, unsigned long long size)
{
	const struct plan_env *e = pl->e;
	struct lock_entry old[PROTO_MAX_PLUGINS];
	char moved[PLAN_MAX_MOVED][64], ticket[PLAN_ID_TEXT];
	const char *mp[PLAN_MAX_MOVED], *why = NULL, *t;
	size_t i, nold = pl->req->nplugins, nmoved;
	long long t0 = plan_now(pl);
	enum lf_err err;
	char *line;

	t = plan_rstr(r, "ticket", 40);
	if (str_fmt(ticket, sizeof(ticket), "%s", t ? t : "") != STR_OK)
		ticket[0] = '\0';
	memcpy(old, pl->pin, sizeof(old));
	err = plan_open_plugins(pl, &why);
	if (err != E_NONE) {
		line = plan_refuse(pl, err, why);
		goto out;
	}
	plan_close_plugins(pl);
	for (i = 0; i < pl->nop; i++)
		if (!plan_bindings_match(&pl->req->plugins[i], &pl->op[i].m)) {
			line = plan_refuse(pl, E_PLUGIN_TAMPERED, "inputs changed");
			goto out;
		}
	for (i = 0; i < pl->req->nplugins; i++) {
		size_t j;
		for (j = 0; j < pl->req->plugins[i].ninputs; j++) {
			const char *ph = pl->req->plugins[i].inputs[j].placeholder;
			if (plan_held_then(r, ph) && values_find(e->values, pl->peer->uid,
			    ph) == NULL) {
				line = plan_refuse(pl, E_INPUT_INVALID, "a reused value is "
				    "no longer held (the console restarted)");
				goto out;
			}
		}
	}
	if (!plan_handle_left(pl)) {
		line = plan_refuse(pl, E_HANDLE_EXPIRED, "answers used up meanwhile");
		goto out;
	}
	/* The answer bounds only: a renewal runs nothing, and asks the
	 * sandbox nothing, as before the split. */
	if ((err = plan_answer_bounds(pl, pl->req->nplugins)) != E_NONE) {
		line = plan_refuse(pl, err, "past a bound meanwhile");
		goto out;
	}
	/* the card's ledger lines, as they are now */
	ledger_window_usage(e->ledger, pl->peer->uid, pl->pr->name, pl->key,
	    &pl->used);
	nmoved = moved_inputs(pl, old, nold, r, moved, PLAN_MAX_MOVED);
	for (i = 0; i < nmoved; i++)
		mp[i] = moved[i];
	json_object_set_new(pl->rec, "decision", json_string("renewed"));
	line = ticket_for(pl, pl->planid, content == PLAN_CONTENT_FAILED ||
	    content == PLAN_CONTENT_LATER ? content : PLAN_CONTENT_UNCHECKED,
	    sha, size, ticket, mp, nmoved);
	hub_hold(pl, t0);
	return line;
out:
	e->hub->forget(e->hub_ctx, pl->planid);
	e->hub->drop(e->hub_ctx, pl->planid);
	hub_hold(pl, t0);
	return line;
}

/* The pending shape again, for a ticket not decided yet (or not posted
 * yet): the plan's own ticket. */
static char *
pending_again(struct plan *pl, const json_t *r)
{
	const char *t = plan_rstr(r, "ticket", 40), *in = plan_rstr(r, "instance", 32);

	json_object_set_new(pl->rec, "ticket", json_string(t ? t : ""));
	json_object_set_new(pl->rec, "decision", json_string("none yet"));
	json_object_set_new(pl->rec, "outcome", json_string("pending"));
	return pending_line(pl, pl->planid, t ? t : "", in ? in : "");
}

/* What the ticket's fetch found, into the plan's record (a restart then
 * renews it with it). Its lifetime is kept (hub_save). */
static void
record_content(struct plan *pl, json_t *r, enum plan_content content,
    const uint8_t *sha, unsigned long long size)
{
	plan_record_content(r, content, sha, size);
	if (pl->e->hub->save(pl->e->hub_ctx, pl->planid, r) != 0)
		plan_window(pl, "  plan %s: its record could not be updated",
		    pl->planid);
}

/* A file.run as it goes: the plan's record and what its ticket fixed. */
struct run_state {
	json_t *r;			/* the pending plan's record */
	enum plan_content content;
	uint8_t sha[32];
	unsigned long long size;
	long long tstart, quantum_end;
	long long t0;			/* the answer leaves at its quantum... */
	int hold;			/* ...when this is set */
	int pending;			/* the pending shape again */
	long long until;		/* the hub is waited for until then */
};

/* The value of a placeholder not held yet: the one sealed in the
 * decision's box. */
static long
box_value(struct plan *pl, const char *ph, const struct manifest_input *in,
    uint8_t *buf, enum lf_err *err, const char **cause)
{
	long n = pl->e->hub->value(pl->e->hub_ctx, pl->planid, ph, buf,
	    VALUE_MAX_BYTES);

	(void)in;
	if (n > 0)
		return n;
	*err = E_INPUT_INVALID;
	*cause = "the decision carries no value for it";
	return -1;
}

/* The pending plan from its record, for this agent, under this policy,
 * its handle or profile still there: NULL, or the response line. */
static char *
run_load(struct plan *pl, const struct request *req, struct run_state *s)
{
	const struct plan_env *e = pl->e;

	if (str_fmt(pl->planid, sizeof(pl->planid), "%s", req->plan) != STR_OK ||
	    !id_is_valid(pl->planid, PROTO_PREFIX_PLAN) ||
	    (s->r = e->hub->load(e->hub_ctx, pl->planid)) == NULL ||
	    plan_restore(pl, s->r, pl->planid, &s->content, s->sha,
	    &s->size) != 0)
		/* Unknown, another agent's, or made under another policy: to
		 * this agent, a plan nobody decided on. */
		return plan_refuse(pl, E_APPROVAL_TIMEOUT, "no such pending plan");
	if (pl->req->has_handle) {
		ws_expire(e->ws, plan_now(pl));
		pl->h = ws_find(e->ws, pl->req->handle, pl->peer->uid);
		if (pl->h == NULL) {
			e->hub->forget(e->hub_ctx, pl->planid);
			e->hub->drop(e->hub_ctx, pl->planid);
			return plan_refuse(pl, E_HANDLE_EXPIRED, "expired meanwhile");
		}
		pl->pr = pl->h->profile;
	} else {
		pl->pr = policy_served_profile(e->pol, pl->req->profile);
		if (pl->pr == NULL)
			return plan_refuse(pl, E_APPROVAL_TIMEOUT,
			    "its profile is gone");
	}
	if (str_fmt(pl->key, sizeof(pl->key), "%s", plan_rstr(s->r, "key",
	    PROTO_MAX_KEY)) != STR_OK)
		return plan_refuse(pl, E_APPROVAL_TIMEOUT,
		    "its record does not hold");
	pl->nop = pl->req->nplugins;
	json_object_set_new(pl->rec, "profile", json_string(pl->pr->name));
	json_object_set_new(pl->rec, "key", json_string(pl->key));
	return NULL;
}

/* The ticket's fetch and post went on behind the plan's answer: what
 * they found goes into the plan's record now. NULL to go on, or the
 * response line. */
static char *
run_prepared(struct plan *pl, struct run_state *s)
{
	const struct plan_env *e = pl->e;

	if (s->content != PLAN_CONTENT_LATER)
		return NULL;
	switch (e->hub->prepared(e->hub_ctx, pl->planid, &s->content, s->sha,
	    &s->size, s->until)) {
	case PLAN_PREP_BUSY:
		s->hold = s->pending = 1;
		s->t0 = s->tstart;
		return pending_again(pl, s->r);
	case PLAN_PREP_REFUSED:
		e->hub->forget(e->hub_ctx, pl->planid);
		e->hub->drop(e->hub_ctx, pl->planid);
		return plan_refuse(pl, E_APPROVAL_TIMEOUT, "the hub did not take "
		    "the ticket");
	case PLAN_PREP_GONE:
		break;		/* no ticket state: renewed below */
	case PLAN_PREP_DONE:
		record_content(pl, s->r, s->content, s->sha, s->size);
		break;
	}
	return NULL;
}

/* An approved plan: the manifests the ticket showed, exactly (their
 * inputs take the values), then the tail both entries share; the plan is
 * done whatever comes of it. */
static char *
run_approved(struct plan *pl, struct run_state *s)
{
	const struct plan_env *e = pl->e;
	const struct plan_value_source box = { box_value, s->r };
	const struct plan_want want = {
		s->content == PLAN_CONTENT_FAILED, s->sha
	};
	const char *why = NULL;
	enum lf_err err;
	char *line;

	json_object_set_new(pl->rec, "decision", json_string("approved"));
	/* From the verified approval on, everything leaves at the quantum. */
	s->t0 = plan_now(pl);
	s->hold = 1;
	err = plan_open_pinned(pl, &why);
	if (err != E_NONE) {
		line = plan_refuse(pl, err, why);
	} else {
		plan_close_plugins(pl);
		line = plan_tail(pl, &box, &want, pl->planid, s->t0);
	}
	e->hub->forget(e->hub_ctx, pl->planid);
	e->hub->drop(e->hub_ctx, pl->planid);
	return line;
}

/* The decision on the plan's ticket, if one came within the quantum. */
static char *
run_decision(struct plan *pl, struct run_state *s)
{
	const struct plan_env *e = pl->e;

	switch (e->hub->await(e->hub_ctx, pl->planid, pl->peer->uid,
	    s->until)) {
	case PLAN_EXPIRED:
		return renew(pl, s->r, s->content, s->sha, s->size);
	case PLAN_UNDECIDED:
		/* No decision yet: pending again, at the quantum; the console
		 * is held by no agent's wait (docs/hub.md). */
		s->hold = s->pending = 1;
		s->t0 = s->tstart;
		return pending_again(pl, s->r);
	case PLAN_NO_DECISION:
		json_object_set_new(pl->rec, "decision", json_string("none"));
		return plan_refuse(pl, E_APPROVAL_TIMEOUT,
		    "no decision that holds");
	case PLAN_DENIED:
		json_object_set_new(pl->rec, "decision", json_string("denied"));
		e->hub->forget(e->hub_ctx, pl->planid);
		e->hub->drop(e->hub_ctx, pl->planid);
		return plan_refuse(pl, E_APPROVAL_DENIED, NULL);
	case PLAN_APPROVED:
		break;
	}
	return run_approved(pl, s);
}

char *
plan_run(const struct plan_env *e, const struct request *req,
    const struct peer *peer)
{
	return plan_run_parked(e, req, peer, NULL);
}

char *
plan_run_parked(const struct plan_env *e, const struct request *req,
    const struct peer *peer, long long *release_ms)
{
	struct plan *pl = plan_new(e, M_FILE_RUN, req, peer);
	const char *outcome;
	struct run_state s;
	char *line;

	memset(&s, 0, sizeof(s));
	s.content = PLAN_CONTENT_FETCHED;
	s.tstart = plan_now(pl);
	/* A pending answer leaves at the quantum: until then a decision (or
	 * the ticket's post) that comes is taken, and never later. */
	s.quantum_end = s.tstart + (long long)e->pol->answer_quantum_s * 1000;
	/* Parked, the pending answer waits for nothing on the serving
	 * thread: what the ticket's thread has by now is taken, the rest at
	 * the agent's next run (docs/hub.md, "The console's side"). */
	s.until = release_ms != NULL ? s.tstart : s.quantum_end;
	if (release_ms != NULL)
		*release_ms = 0;
	pl->release_ms = release_ms;	/* a renewal's answer too */
	json_object_set_new(pl->rec, "method", json_string("file.run"));
	json_object_set_new(pl->rec, "peer_uid", json_integer(peer->uid));
	json_object_set_new(pl->rec, "plan", json_string(req->plan));
	/* Only a console with a hub has tickets. */
	if (e->hub == NULL) {
		line = proto_error_line(M_FILE_RUN, pl->id, E_BAD_REQUEST);
		json_object_set_new(pl->rec, "outcome",
		    json_string("E_BAD_REQUEST"));
	} else if ((line = run_load(pl, req, &s)) == NULL &&
	    (line = run_prepared(pl, &s)) == NULL) {
		line = run_decision(pl, &s);
	}
	if (s.hold) {
		/* durable inside the quantum, as in plan_local() */
		e->audit->write(e->audit_ctx, json_incref(pl->rec));
		if (s.pending && release_ms != NULL)
			*release_ms = plan_quantum_end(e, s.t0);
		else
			plan_hold_quantum(e, s.t0);
	}
	outcome = json_string_value(json_object_get(pl->rec, "outcome"));
	plan_window(pl, "  run %s: %s", pl->planid[0] ? pl->planid : "?",
	    outcome ? outcome : "?");
	plan_free(pl, s.hold);
	json_decref(s.r);
	return line;
}
