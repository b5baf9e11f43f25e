/* file.plan: the plan pipeline (docs/console.md, "A plan"), in its order.
 *
 * 1. Checks before anything is read, each answered at once: a literal
 *    input, unknown profile, key outside the prefix (or an unknown handle),
 *    plugins not installed / yanked / tampered, bindings that do not match
 *    the manifests, more answers than the handle allows, more than the
 *    agent's answer cap for the key leaves (the ledger), sandbox
 *    unavailable, /proc not hidden.
 * 2. The approval card (with the agent's own ledger counts for the key);
 *    the human's decision; typed values (no echo).
 * 3. Fetch into the workspace, run each plugin in the sandbox, record the
 *    answers in the ledger, answer at the next multiple of the quantum
 *    counted from the approval, audit.
 * The agent learns 1, 0 or plugin_error per plugin, or one E_* code.
 *
 * Everything outside the pipeline comes through its environment
 * (plan.h): the human, the sandbox, the audit and the clock. */
#include "console/plan.h"
#include "console/scrub.h"
#include "protocol/key.h"
#include "protocol/response.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

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
};

static long long
now(const struct plan *pl)
{
	return pl->e->clock->now_ms(pl->e->clock_ctx);
}

static void
window(const struct plan *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
window(const struct plan *pl, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	str_vmsg(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pl->e->human->window(pl->e->human_ctx, buf);
}

void
plan_hold_quantum(const struct plan_env *e, long long start_ms)
{
	long long q = (long long)e->pol->answer_quantum_s * 1000;
	long long elapsed = e->clock->now_ms(e->clock_ctx) - start_ms;
	long long k = (elapsed + q - 1) / q;

	/* The first multiple of the quantum at or after the end, and never
	 * less than one: a run longer than k quanta shows only that. */
	if (k < 1)
		k = 1;
	e->clock->sleep_until(e->clock_ctx, start_ms + k * q);
}

static json_t *
hex_json(const uint8_t *h)
{
	char hex[SHA256_HEX_LEN + 1];

	hex_encode(h, SHA256_LEN, hex);
	return json_string(hex);
}

static void
close_plugins(struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nop; i++)
		if (pl->op[i].binfd >= 0) {
			close(pl->op[i].binfd);
			pl->op[i].binfd = -1;
		}
}

/* The record of an answer given at once (a refusal before the card, a
 * human's no): made durable off the serving thread, which never waits on
 * the file system outside the quantum (docs/console.md, "The audit's
 * durability"; issue 25). */
static void
audit_at_once(const struct plan_env *e, json_t *rec)
{
	if (e->audit->note != NULL)
		e->audit->note(e->audit_ctx, rec);
	else
		e->audit->write(e->audit_ctx, rec);
}

/* Refuse with e; the audit names the precise cause. */
static char *
refuse(struct plan *pl, enum lf_err e, const char *cause)
{
	char *line = proto_error_line(pl->method, pl->id, e);

	json_object_set_new(pl->rec, "outcome",
	    json_string(proto_error(e)->name));
	if (cause != NULL)
		json_object_set_new(pl->rec, "cause", json_string(cause));
	/* The cause is the audit's alone (the agent learns only the code);
	 * the window says where the human reads it (issue 32), on every
	 * refusal alike: the agent may read the window at level 1
	 * (docs/console.md), so whether a cause exists is not shown. */
	window(pl, "  plan refused: %s (the cause: lockfile audit)",
	    proto_error(e)->name);
	return line;
}

static const struct req_input *
binding(const struct req_plugin *rp, const char *input)
{
	size_t i;

	for (i = 0; i < rp->ninputs; i++)
		if (strcmp(rp->inputs[i].name, input) == 0)
			return &rp->inputs[i];
	return NULL;
}

/* Every manifest input bound exactly once to a placeholder, nothing else. */
static int
bindings_match(const struct req_plugin *rp, const struct manifest *m)
{
	size_t i;

	if (rp->ninputs != m->ninputs)
		return 0;
	for (i = 0; i < m->ninputs; i++)
		if (binding(rp, m->inputs[i].name) == NULL)
			return 0;
	return 1;
}

static enum lf_err
store_err(enum store_status st)
{
	switch (st) {
	case STORE_NOT_INSTALLED:
		return E_PLUGIN_NOT_INSTALLED;
	case STORE_YANKED:
		return E_PLUGIN_YANKED;
	default:
		return E_PLUGIN_TAMPERED;
	}
}

/* Open (and verify) every plugin of the plan, as plugins.lock records it
 * now; what was opened becomes the plan's pins. Before the card, so an
 * agent times it: the binaries' digests come from the store's digest cache
 * (store_check_plugin); open_pinned() hashes in full, inside the quantum. */
static enum lf_err
open_plugins(struct plan *pl, const char **why)
{
	const struct request *req = pl->req;
	size_t i;

	close_plugins(pl);
	pl->nop = 0;
	/* plugins.lock may have changed since the last plan: a `plugin verify`
	 * that recorded a yank, an update. Read it again every time. */
	if (store_reload(pl->e->store, why) != 0)
		return E_PLUGIN_TAMPERED;
	for (i = 0; i < req->nplugins; i++) {
		enum store_status st = store_check_plugin(pl->e->store,
		    req->plugins[i].name, req->plugins[i].version, &pl->op[i],
		    why);
		if (st != STORE_OK) {
			close_plugins(pl);
			return store_err(st);
		}
		pl->pin[i] = pl->op[i].entry;
		pl->nop = i + 1;
	}
	return E_NONE;
}

/* Just before the run: exactly the pinned versions, or nothing. An update,
 * a rewritten plugins.lock or a removed version since the card was shown
 * is E_PLUGIN_TAMPERED (docs/security.md), so a version whose inputs
 * differ never reaches values_blob(). */
static enum lf_err
open_pinned(struct plan *pl, const char **why)
{
	size_t i, n = pl->nop;

	close_plugins(pl);
	pl->nop = 0;
	if (store_reload(pl->e->store, why) != 0)
		return E_PLUGIN_TAMPERED;
	for (i = 0; i < n; i++) {
		enum store_status st = store_open_pinned(pl->e->store,
		    &pl->pin[i], &pl->op[i], why);
		pl->nop = i + 1;
		if (st == STORE_OK &&
		    !bindings_match(&pl->req->plugins[i], &pl->op[i].m)) {
			*why = "inputs differ from the approved manifest";
			st = STORE_TAMPERED;
		}
		if (st != STORE_OK) {
			close_plugins(pl);
			return st == STORE_YANKED ? E_PLUGIN_YANKED
			    : E_PLUGIN_TAMPERED;
		}
	}
	return E_NONE;
}

static void
record_request(struct plan *pl)
{
	const struct request *req = pl->req;
	json_t *names = json_array(), *phs = json_array();
	size_t i, j;

	json_object_set_new(pl->rec, "method", json_string("file.plan"));
	json_object_set_new(pl->rec, "peer_uid", json_integer(pl->peer->uid));
	for (i = 0; i < req->nplugins; i++) {
		json_array_append_new(names, json_string(req->plugins[i].name));
		for (j = 0; j < req->plugins[i].ninputs; j++)
			json_array_append_new(phs, json_string(
			    req->plugins[i].inputs[j].placeholder));
	}
	json_object_set_new(pl->rec, "plugins_requested", names);
	json_object_set_new(pl->rec, "placeholders", phs);
}

/* Every bound that must hold when plugins run, in this order: the
 * handle's answers left (max_plugins_per_handle; by key, a new handle's),
 * then the agent's answer cap for the key through the ledger's own rule
 * (ledger_would_pass: this uid's entry only, docs/ledger.md). precheck()
 * asks it before the card; both pipelines ask it again after the approval,
 * in the request that runs the plugins, before anything is fetched: in
 * hub mode other plans on the same handle or key may have run between
 * (docs/security.md, "one bounds check"). */
static enum lf_err
plan_bounds(const struct plan *pl, unsigned long long nanswers)
{
	const struct plan_env *e = pl->e;
	unsigned long long max = e->pol->max_plugins_per_handle;
	unsigned long long used = pl->h ? pl->h->answers_used : 0;

	if (used > max || nanswers > max - used)
		return E_TOO_MANY_PLUGINS;
	if (nanswers > LEDGER_MAX_ANSWERS || ledger_would_pass(e->ledger,
	    pl->peer->uid, pl->pr->name, pl->key, (unsigned)nanswers,
	    e->pol->max_answers_per_key))
		return E_ANSWER_CAP;
	return E_NONE;
}

/* Step 1: everything that can be refused before the file is read. */
static char *
precheck(struct plan *pl)
{
	const struct plan_env *e = pl->e;
	const struct request *req = pl->req;
	const char *why = NULL;
	enum lf_err err;
	size_t i;

	if (req->error == E_LITERAL_INPUT)
		return refuse(pl, E_LITERAL_INPUT, "literal input");
	if (req->has_handle) {
		ws_expire(e->ws, now(pl));
		pl->h = ws_find(e->ws, req->handle, pl->peer->uid);
		if (pl->h == NULL)
			return refuse(pl, E_HANDLE_EXPIRED, "unknown or expired");
		pl->pr = pl->h->profile;
		/* the same size as the handle's key: never cut */
		ASSERT(str_fmt(pl->key, sizeof(pl->key), "%s", pl->h->key) ==
		    STR_OK);
		json_object_set_new(pl->rec, "handle", json_string(pl->h->id));
		json_object_set_new(pl->rec, "profile", json_string(pl->pr->name));
		json_object_set_new(pl->rec, "key", json_string(pl->key));
	} else {
		enum key_status ks;
		pl->pr = policy_served_profile(e->pol, req->profile);
		if (pl->pr == NULL)
			return refuse(pl, E_UNKNOWN_PROFILE, NULL);
		json_object_set_new(pl->rec, "profile", json_string(pl->pr->name));
		ks = key_clean_in_prefix(req->key, req->key_len, pl->pr->prefix,
		    pl->key, sizeof(pl->key));
		if (ks != KEY_OK) {
			json_object_set_new(pl->rec, "typed_key",
			    json_stringn(req->key, req->key_len));
			return refuse(pl, E_KEY_OUTSIDE_PREFIX, key_status_name(ks));
		}
		json_object_set_new(pl->rec, "key", json_string(pl->key));
	}
	err = open_plugins(pl, &why);
	if (err != E_NONE)
		return refuse(pl, err, why);
	for (i = 0; i < pl->nop; i++)
		if (!bindings_match(&req->plugins[i], &pl->op[i].m))
			return refuse(pl, E_BAD_REQUEST,
			    "inputs do not match the manifest");
	pl->left_before = e->pol->max_plugins_per_handle -
	    (pl->h ? pl->h->answers_used : 0);
	if (pl->h != NULL && pl->left_before == 0)
		return refuse(pl, E_HANDLE_EXPIRED, "answers used up");
	if (req->too_many_plugins)
		return refuse(pl, E_TOO_MANY_PLUGINS, NULL);
	/* The handle's answers left, then the answer cap (docs/ledger.md):
	 * computed from the request and the requesting agent's own ledger
	 * entry only — never from the file, never from another agent's counts
	 * or the content totals — so this refusal, answered at once like those
	 * above, tells the agent only what it already knows: how many answers
	 * it has had. The card shows the same entry. */
	ledger_window_usage(e->ledger, pl->peer->uid, pl->pr->name, pl->key,
	    &pl->used);
	err = plan_bounds(pl, req->nplugins);
	if (err != E_TOO_MANY_PLUGINS)
		json_object_set_new(pl->rec, "ledger_window_answers",
		    json_integer((json_int_t)pl->used.answers));
	if (err != E_NONE)
		return refuse(pl, err, NULL);
	if (!e->sandbox->ready(e->sandbox_ctx, &why))
		return refuse(pl, E_SANDBOX_UNAVAILABLE, why);
	if (e->sandbox->proc_hidden(e->sandbox_ctx, &why) != 0)
		return refuse(pl, E_PROC_NOT_HIDDEN, why);
	return NULL;
}

/* Step 2b: the values of placeholders not yet held, typed without echo,
 * and every value checked against the input it is bound to. */
static char *
collect_values(struct plan *pl)
{
	const struct plan_env *e = pl->e;
	const struct request *req = pl->req;
	size_t i, j;

	for (i = 0; i < pl->nop; i++) {
		const struct manifest *m = &pl->op[i].m;
		for (j = 0; j < m->ninputs; j++) {
			const struct manifest_input *in = &m->inputs[j];
			const struct req_input *b = binding(&req->plugins[i],
			    in->name);
			struct held_value *hv = values_find(e->values,
			    pl->peer->uid, b->placeholder);
			long n;

			if (hv == NULL) {
				hv = values_new(e->values, pl->peer->uid,
				    b->placeholder);
				if (hv == NULL)
					return refuse(pl, E_INPUT_INVALID,
					    "too many held values");
				n = e->human->read_value(e->human_ctx, b->placeholder,
				    in, hv->bytes, VALUE_MAX_BYTES + 1, now(pl) +
				    (long long)e->pol->approval_timeout_s * 1000,
				    pl->peer->fd);
				if (n == PLAN_VALUE_PEER_GONE) {
					values_discard(e->values, hv);
					return refuse(pl, E_APPROVAL_TIMEOUT,
					    "the agent hung up");
				}
				if (n < 0) {
					values_discard(e->values, hv);
					return refuse(pl, n == PLAN_VALUE_TIMEOUT ?
					    E_APPROVAL_TIMEOUT : E_INPUT_INVALID,
					    "value not typed");
				}
				hv->len = (size_t)n;
			}
			if (!input_value_fits(in, hv->bytes, hv->len)) {
				/* The human is told which placeholder; the value is
				 * never echoed. A fresh value is forgotten. */
				e->human->value_refused(e->human_ctx, b->placeholder,
				    in);
				if (hv->nfiles == 0)
					values_discard(e->values, hv);
				return refuse(pl, E_INPUT_INVALID, "value does not fit");
			}
		}
	}
	return NULL;
}

/* The card: everything the human decides on (approval.h). */
static void
build_card(struct plan *pl, struct card *card_out)
{
	const struct plan_env *e = pl->e;
	const struct request *req = pl->req;
	struct card card;
	size_t i, j;

	memset(&card, 0, sizeof(card));
	for (i = 0; i < pl->nop; i++) {
		struct card_plugin *cp = &pl->cp[i];
		const struct manifest *m = &pl->op[i].m;
		cp->m = m;
		cp->official = pl->op[i].entry.official;
		cp->nbind = m->ninputs;
		for (j = 0; j < m->ninputs; j++) {
			const struct req_input *b = binding(&req->plugins[i],
			    m->inputs[j].name);
			struct held_value *hv = values_find(e->values,
			    pl->peer->uid, b->placeholder);
			cp->bind[j].input = m->inputs[j].name;
			cp->bind[j].placeholder = b->placeholder;
			cp->bind[j].held = hv != NULL;
			cp->bind[j].replayed = hv ? hv->nfiles : 0;
		}
	}
	card.uid = pl->peer->uid;
	card.profile = pl->pr->name;
	card.production = pl->pr->production;
	card.key = pl->key;
	card.typed = req->has_key ? req->key : pl->key;
	card.typed_len = req->has_key ? req->key_len : strlen(pl->key);
	card.handle = pl->h ? pl->h->id : NULL;
	card.nplugins = pl->nop;
	card.plugins = pl->cp;
	card.reveals = (unsigned)req->nplugins;
	card.left_before = pl->left_before;
	/* The requesting agent's own ledger entry for this key, never
	 * another's nor the content totals: the window may be readable by
	 * the agent's account at level 1. As a line for this card, and as
	 * labelled counts for a hub ticket's masked screen (docs/hub.md). */
	ledger_usage_line(&pl->used, pl->peer->uid, e->pol->max_answers_per_key,
	    e->pol->ledger_window_s, pl->ledger_line, sizeof(pl->ledger_line));
	card.ledger_line = pl->ledger_line;
	card.nledger = ledger_screen(&pl->used, pl->peer->uid,
	    e->pol->max_answers_per_key, e->pol->ledger_window_s, pl->screen,
	    LEDGER_SCREEN_LINES);
	for (i = 0; i < card.nledger; i++) {
		pl->cl[i].label = pl->screen[i].label;
		pl->cl[i].count = pl->screen[i].count;
	}
	card.ledger = pl->cl;
	*card_out = card;
}

static char *
approve(struct plan *pl)
{
	const struct plan_env *e = pl->e;
	struct card card;
	enum decision d;

	build_card(pl, &card);
	d = e->human->decide(e->human_ctx, &card, now(pl) +
	    (long long)e->pol->approval_timeout_s * 1000, pl->peer->fd);
	json_object_set_new(pl->rec, "decision", json_string(
	    d == DECISION_APPROVED ? "approved" :
	    d == DECISION_DENIED ? "denied" :
	    d == DECISION_WITHDRAWN ? "withdrawn" : "timeout"));
	if (d == DECISION_DENIED)
		return refuse(pl, E_APPROVAL_DENIED, NULL);
	if (d == DECISION_TIMEOUT)
		return refuse(pl, E_APPROVAL_TIMEOUT, NULL);
	if (d == DECISION_WITHDRAWN)
		return refuse(pl, E_APPROVAL_TIMEOUT, "the agent hung up");
	return collect_values(pl);
}

/* Fetch into the workspace: 0 and pl->h, or -1 with the cause in the
 * audit record (the agent is told nothing of it). */
static int
fetch_quiet(struct plan *pl)
{
	const struct plan_env *e = pl->e;
	struct fetch_result fr;
	enum fetch_cause fc;
	const char *why = NULL;
	char scrubbed[256];
	int fd = -1;

	pl->h = ws_begin_fetch(e->ws, &fd, &why);
	if (pl->h == NULL) {
		json_object_set_new(pl->rec, "fetch_cause",
		    json_string("workspace-full"));
		json_object_set_new(pl->rec, "fetch_detail", json_string(why));
		return -1;
	}
	memset(&fr, 0, sizeof(fr));
	/* A profile whose source could not be opened at start (start-up said
	 * so) never reaches its source code: the fetch fails, told at the
	 * quantum like any other. */
	if (pl->pr->src == NULL)
		fc = FC_UNAVAILABLE;
	else
		fc = pl->pr->kind->fetch(pl->pr->src, pl->key, fd,
		    pl->h->reserved, &fr);
	if (fc == FC_OK && fsync(fd) != 0)
		fc = FC_IO;
	if (close(fd) != 0 && fc == FC_OK)
		fc = FC_IO;
	json_object_set_new(pl->rec, "fetch_cause",
	    json_string(fetch_cause_name(fc)));
	if (fr.detail[0] != '\0') {
		scrub_text(fr.detail, e->scrub_words, e->nscrub, scrubbed,
		    sizeof(scrubbed));
		json_object_set_new(pl->rec, "fetch_detail", json_string(scrubbed));
	}
	if (fc != FC_OK) {
		ws_drop(e->ws, pl->h);
		pl->h = NULL;
		return -1;
	}
	ws_commit(e->ws, pl->h, fr.size, fr.sha256,
	    (long long)e->pol->handle_ttl_s * 1000, pl->peer->uid);
	pl->h->profile = pl->pr;
	ASSERT(str_fmt(pl->h->key, sizeof(pl->h->key), "%s", pl->key) ==
	    STR_OK);
	memcpy(pl->h->object, fr.object, sizeof(pl->h->object));
	pl->h->object[sizeof(pl->h->object) - 1] = '\0';
	json_object_set_new(pl->rec, "handle", json_string(pl->h->id));
	return 0;
}

static char *
fetch(struct plan *pl)
{
	return fetch_quiet(pl) == 0 ? NULL : refuse(pl, E_FETCH_FAILED, NULL);
}

/* The bytes for fd 6: per manifest input, a 4-byte big-endian length and
 * the value. Built in locked memory, wiped after the run. */
static size_t
values_blob(struct plan *pl, size_t i, uint8_t *out, size_t cap)
{
	const struct manifest *m = &pl->op[i].m;
	size_t j, n = 0;

	for (j = 0; j < m->ninputs; j++) {
		const struct req_input *b = binding(&pl->req->plugins[i],
		    m->inputs[j].name);
		struct held_value *hv = values_find(pl->e->values,
		    pl->peer->uid, b->placeholder);
		ASSERT(hv != NULL &&
		    hv->len + LF_PLUGIN_VALUE_LEN_BYTES <= cap - n);
		out[n] = (uint8_t)(hv->len >> 24);
		out[n + 1] = (uint8_t)(hv->len >> 16);
		out[n + 2] = (uint8_t)(hv->len >> 8);
		out[n + 3] = (uint8_t)hv->len;
		memcpy(out + n + LF_PLUGIN_VALUE_LEN_BYTES, hv->bytes, hv->len);
		n += LF_PLUGIN_VALUE_LEN_BYTES + hv->len;
		values_note_file(hv, pl->h->sha256);
	}
	return n;
}

static char *
run(struct plan *pl, json_t **answers_out)
{
	const struct plan_env *e = pl->e;
	json_t *answers = NULL, *outcomes = NULL;
	const char *why = NULL;
	uint8_t *blob = NULL;
	char *line = NULL;
	enum lf_err err;
	int input = -1;
	size_t i;

	/* Again just before the run: the bytes checked are the bytes run, and
	 * they are the ones the human approved. */
	err = open_pinned(pl, &why);
	if (err != E_NONE)
		return refuse(pl, err, why);
	/* One reference to the file for all the plan's plugins: a TTL that
	 * ends while they run does not take it from the later ones. */
	input = ws_open_input(e->ws, pl->h);
	if (input < 0) {
		line = errno == ENOENT ?
		    refuse(pl, E_HANDLE_EXPIRED, "expired before the run") :
		    refuse(pl, E_FETCH_FAILED, "the fetched file cannot be opened");
		goto out;
	}
	blob = sodium_malloc(LF_PLUGIN_VALUES_MAX);
	if (blob == NULL) {
		line = refuse(pl, E_SANDBOX_UNAVAILABLE, "out of locked memory");
		goto out;
	}
	answers = json_array();
	outcomes = json_array();
	e->sandbox->refresh(e->sandbox_ctx);
	for (i = 0; i < pl->nop; i++) {
		struct plugin_run r;
		struct plugin_result res;
		json_t *a, *o;
		int bit;

		if (e->sandbox->proc_hidden(e->sandbox_ctx, &why) != 0) {
			line = refuse(pl, E_PROC_NOT_HIDDEN, why);
			goto out;
		}
		memset(&r, 0, sizeof(r));
		r.binfd = pl->op[i].binfd;
		r.inputfd = input;
		r.protocol = pl->op[i].m.protocol;
		r.values = blob;
		r.values_len = r.protocol == LF_PLUGIN_PROTOCOL_2 ?
		    values_blob(pl, i, blob, LF_PLUGIN_VALUES_MAX) : 0;
		r.limits.cpu_s = pl->op[i].m.cpu_s;
		r.limits.memory_bytes = pl->op[i].m.memory_bytes;
		r.limits.wall_ms = pl->op[i].m.wall_s * 1000;
		r.argv0 = pl->op[i].m.name;
		e->sandbox->run(e->sandbox_ctx, &r, &res);
		sodium_memzero(blob, LF_PLUGIN_VALUES_MAX);
		o = json_object();
		json_object_set_new(o, "plugin", json_string(pl->op[i].m.name));
		json_object_set_new(o, "version", json_string(pl->op[i].m.version));
		json_object_set_new(o, "outcome",
		    json_string(outcome_name(res.outcome)));
		json_object_set_new(o, "stderr_bytes",
		    json_integer((json_int_t)res.stderr_bytes));
		json_object_set_new(o, "wall_ms", json_integer(res.wall_ms));
		json_array_append_new(outcomes, o);
		/* The sandbox could not be set up (no descriptor, no process):
		 * the console's failure, not the plugin's answer. The plan is
		 * refused; nothing about the file is in that. */
		if (res.outcome == OUT_SANDBOX_UNAVAILABLE) {
			json_object_set(pl->rec, "plugins", outcomes);
			line = refuse(pl, E_SANDBOX_UNAVAILABLE,
			    "the sandbox could not be set up");
			goto out;
		}
		bit = outcome_bit(res.outcome);
		a = json_object();
		json_object_set_new(a, "plugin", json_string(pl->op[i].m.name));
		json_object_set_new(a, "version", json_string(pl->op[i].m.version));
		json_object_set_new(a, "result", bit < 0 ? json_null()
		    : json_integer(bit));
		if (bit < 0)
			json_object_set_new(a, "error", json_string("plugin_error"));
		json_array_append_new(answers, a);
		/* Level 0 ("clear results") only: answers and the plugin's
		 * detail on the console, for a human alone at the screen. */
		if (e->pol->security_level == 0)
			e->human->result(e->human_ctx, i, pl->op[i].m.name,
			    outcome_name(res.outcome), res.detail, res.detail_len);
	}
	pl->h->answers_used += (unsigned)pl->nop;
	json_object_set_new(pl->rec, "plugins", outcomes);
	outcomes = NULL;
	*answers_out = answers;
	answers = NULL;
out:
	if (blob != NULL)
		sodium_free(blob);
	if (input >= 0)
		close(input);
	close_plugins(pl);
	json_decref(answers);
	json_decref(outcomes);
	return line;
}

/* Answers are about to leave (or a fetch failure, one file-dependent
 * symbol): into the ledger, fsync'd, first. A ledger that cannot take
 * the record stops the console, and nothing leaves (docs/ledger.md). */
static void
ledger_note(struct plan *pl, const uint8_t *sha256, unsigned answers)
{
	const struct plan_env *e = pl->e;
	struct ledger_problem p;

	if (ledger_record(e->ledger, pl->peer->uid, pl->pr->name, pl->key,
	    pl->h != NULL ? pl->h->object : NULL, sha256, answers,
	    &p) != LEDGER_OK) {
		e->ledger_ops->failed(e->ledger_ctx, p.msg);
		fatal("the ledger's failure handler returned");
	}
	json_object_set_new(pl->rec, "ledger_answers", json_integer(answers));
	/* Inside the quantum: the rewrite does not show in the timing. A
	 * failed one leaves the ledger as it was, whole. */
	if (ledger_compact_due(e->ledger) &&
	    ledger_compact(e->ledger, &p) != LEDGER_OK)
		window(pl, "  ledger: compaction failed (%s); the ledger goes on "
		    "uncompacted", p.msg);
}

/* After the approval, inside the quantum: the object the fetch opened
 * has its own budget, so the names of one file (hard links, a source's
 * aliases the policy cannot know) share one. Refused with the ledger's
 * code, one file-dependent symbol, counted (docs/ledger.md, "Aliases"). */
static char *
object_check(struct plan *pl)
{
	const struct plan_env *e = pl->e;
	struct ledger_usage u;
	char *line;

	if (pl->h->object[0] == '\0' || !ledger_object_would_pass(e->ledger,
	    pl->peer->uid, pl->pr->name, pl->h->object, (unsigned)pl->nop,
	    e->pol->max_answers_per_key))
		return NULL;
	ledger_object_usage(e->ledger, pl->peer->uid, pl->pr->name,
	    pl->h->object, &u);
	json_object_set_new(pl->rec, "ledger_object_answers",
	    json_integer((json_int_t)u.answers));
	line = refuse(pl, E_ANSWER_CAP, "the file's answers are used up under "
	    "another name");
	ledger_note(pl, NULL, 1);
	return line;
}

/* The placeholders of the request this console holds a value for. */
static json_t *
held_json(const struct plan *pl)
{
	const struct request *req = pl->req;
	json_t *held = json_array();
	size_t i, j;

	for (i = 0; i < req->nplugins; i++)
		for (j = 0; j < req->plugins[i].ninputs; j++) {
			const char *ph = req->plugins[i].inputs[j].placeholder;
			size_t k;
			int dup = 0;
			json_t *v;
			json_array_foreach(held, k, v)
				if (strcmp(json_string_value(v), ph) == 0)
					dup = 1;
			if (!dup && values_find(pl->e->values, pl->peer->uid, ph) !=
			    NULL)
				json_array_append_new(held, json_string(ph));
		}
	return held;
}

/* The answers, with the plan id and the handle (takes answers). */
static char *
answer_line(struct plan *pl, const char *planid, json_t *answers)
{
	json_t *r = json_object();

	json_object_set_new(r, "plan", json_string(planid));
	json_object_set_new(r, "handle", json_string(pl->h->id));
	json_object_set_new(r, "answers", answers);
	json_object_set_new(r, "held_inputs", held_json(pl));
	return proto_result_line(pl->method, pl->id, r);
}

static char *hub_ask_plan(struct plan *pl, const char *planid);

char *
plan_handle(const struct plan_env *e, const struct request *req,
    const struct peer *peer)
{
	struct plan *pl = calloc(1, sizeof(*pl));
	json_t *answers = NULL;
	long long t0 = 0;
	int fetched, recorded = 0;
	char planid[40], *line;
	enum lf_err err;
	size_t i;

	if (pl == NULL)
		fatal("out of memory");
	ASSERT(e->ledger != NULL && e->ledger_ops != NULL);
	for (i = 0; i < PROTO_MAX_PLUGINS; i++)
		pl->op[i].binfd = -1;
	pl->e = e;
	pl->method = M_FILE_PLAN;
	pl->req = req;
	pl->peer = peer;
	pl->id = request_id_json(req);
	pl->rec = json_object();
	random_id(PROTO_PREFIX_PLAN, planid, sizeof(planid));
	json_object_set_new(pl->rec, "plan", json_string(planid));
	record_request(pl);

	if ((line = precheck(pl)) != NULL)
		goto out;
	close_plugins(pl);	/* held open again just before the run */
	if (e->hub != NULL) {
		/* Hub mode: the human decides on lockhub; the agent gets the
		 * pending answer and asks file.run later. */
		line = hub_ask_plan(pl, planid);
		goto out;
	}
	line = approve(pl);	/* the agent's hang-up withdraws the card */
	if (line != NULL)
		goto out;
	/* From the approval on, the answer (or a fetch failure) leaves only at
	 * the next multiple of the quantum: neither the fetch nor the runs show
	 * in the timing. */
	t0 = now(pl);
	fetched = pl->h == NULL;
	if ((err = plan_bounds(pl, pl->nop)) != E_NONE) {
		line = refuse(pl, err, "past a bound at the run");
		goto hold;
	}
	if (fetched && (line = fetch(pl)) != NULL) {
		ledger_note(pl, NULL, 1);
		goto hold;
	}
	/* The TTL ran out while the human read the card: the file's time is
	 * over, whatever the human decided. */
	if (!fetched && !ws_alive(e->ws, pl->h, t0)) {
		ws_drop(e->ws, pl->h);
		pl->h = NULL;
		line = refuse(pl, E_HANDLE_EXPIRED, "expired during the approval");
		goto hold;
	}
	json_object_set_new(pl->rec, "size", json_integer((json_int_t)pl->h->size));
	json_object_set_new(pl->rec, "sha256", hex_json(pl->h->sha256));
	if ((line = object_check(pl)) != NULL ||
	    (line = run(pl, &answers)) != NULL) {
		/* Refused before an answer (a plugin tampered with after the
		 * approval, /proc exposed): the agent never learns this handle,
		 * so the file this plan fetched must not wait for its TTL. */
		if (fetched)
			ws_drop(e->ws, pl->h);
		pl->h = NULL;
		goto hold;
	}
	ledger_note(pl, pl->h->sha256, (unsigned)pl->nop);

	line = answer_line(pl, planid, answers);
	json_object_set_new(pl->rec, "outcome", json_string("answered"));
	/* A handle whose answers are used up is of no further use. */
	if (pl->h->answers_used >= e->pol->max_plugins_per_handle)
		ws_drop(e->ws, pl->h);
hold:
	/* Durable before the answer, inside the quantum: the fsync's time
	 * does not show. */
	e->audit->write(e->audit_ctx, json_incref(pl->rec));
	recorded = 1;
	plan_hold_quantum(e, t0);
	window(pl, "  plan %s: %s", planid, json_string_value(
	    json_object_get(pl->rec, "outcome")));
out:
	close_plugins(pl);
	if (recorded)
		json_decref(pl->rec);
	else
		audit_at_once(e, pl->rec);
	json_decref(pl->id);
	explicit_bzero(pl, sizeof(*pl));
	free(pl);
	return line;
}
/* ==== hub mode (docs/hub.md) ====
 *
 * file.plan: the checks above, then a first fetch for the masked screen
 * and the plan hash (its bytes released at once; a failure is told only
 * after an approval), the ticket made and posted, the pending answer at
 * the quantum. file.run: the decision checked (hub.c), the values from
 * its box, a second fetch whose sha256 must be the first's (else E_STALE,
 * the spool released), the run, the answers at the quantum. An expired
 * ticket, or one whose key went with a restart, is asked again as a new
 * ticket for the same plan, re-checked. The pending plan is kept as a
 * record (no secret in it) so a restarted console can renew it. */

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

static json_t *
hex_of(const uint8_t *d, size_t n)
{
	char hex[2 * 64 + 1];

	ASSERT(n <= 64);
	hex_encode(d, n, hex);
	return json_string(hex);
}

static int
unhex(const json_t *v, uint8_t *out, size_t n)
{
	return json_is_string(v) && json_string_length(v) == 2 * n &&
	    hex_decode(json_string_value(v), out, n) == 0 ? 0 : -1;
}

/* The pending plan's record: what a renewal after a restart needs. */
static json_t *
plan_record(const struct plan *pl, const char *planid, const char *ticket,
    enum plan_content content, const uint8_t *sha, unsigned long long size)
{
	const struct request *req = pl->req;
	json_t *r = json_object(), *plugins = json_array(), *held = json_array();
	size_t i, j;

	json_object_set_new(r, "plan", json_string(planid));
	json_object_set_new(r, "uid", json_integer(pl->peer->uid));
	json_object_set_new(r, "ticket", json_string(ticket));
	json_object_set_new(r, "policy", hex_of(pl->e->pol->fingerprint, 32));
	json_object_set_new(r, "profile", json_string(pl->pr->name));
	json_object_set_new(r, "key", json_string(pl->key));
	{
		/* what the agent typed, for the renewal's card (in hex: it
		 * need not be UTF-8) */
		char *hex = calloc(1, 2 * PROTO_MAX_KEY + 1);
		if (hex == NULL)
			fatal("out of memory");
		if (req->has_key)
			hex_encode((const uint8_t *)req->key, req->key_len, hex);
		json_object_set_new(r, "typed", json_string(hex));
		free(hex);
	}
	json_object_set_new(r, "handle", json_string(pl->h ? pl->h->id : ""));
	json_object_set_new(r, "content", json_integer(content));
	if (content == PLAN_CONTENT_FETCHED || content == PLAN_CONTENT_UNCHECKED) {
		json_object_set_new(r, "sha256", hex_of(sha, 32));
		json_object_set_new(r, "size", json_integer((json_int_t)size));
	}
	for (i = 0; i < req->nplugins; i++) {
		const struct lock_entry *pin = &pl->pin[i];
		json_t *p = json_object(), *ins = json_array();
		for (j = 0; j < req->plugins[i].ninputs; j++) {
			json_t *in = json_object();
			const char *ph = req->plugins[i].inputs[j].placeholder;
			json_object_set_new(in, "name",
			    json_string(req->plugins[i].inputs[j].name));
			json_object_set_new(in, "placeholder", json_string(ph));
			json_array_append_new(ins, in);
			if (values_find(pl->e->values, pl->peer->uid, ph) != NULL)
				json_array_append_new(held, json_string(ph));
		}
		json_object_set_new(p, "name", json_string(req->plugins[i].name));
		json_object_set_new(p, "version",
		    json_string(req->plugins[i].version));
		json_object_set_new(p, "inputs", ins);
		json_object_set_new(p, "pin_version", json_string(pin->version));
		json_object_set_new(p, "manifest_sha256",
		    hex_of(pin->manifest_sha256, 32));
		json_object_set_new(p, "binary_sha256",
		    hex_of(pin->binary_sha256, 32));
		json_object_set_new(p, "marketplace", json_string(pin->marketplace));
		json_object_set_new(p, "official", json_boolean(pin->official));
		json_array_append_new(plugins, p);
	}
	json_object_set_new(r, "plugins", plugins);
	json_object_set_new(r, "held", held);
	return r;
}

static const char *
rstr(const json_t *r, const char *k, size_t max)
{
	const json_t *v = json_object_get(r, k);

	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

/* Rebuild a plan from its record, checked as if it came from outside (it
 * is the console's own file, in its 0700 home, but a mistake must not
 * run). 0, or -1 when the record does not hold. */
static int
plan_restore(struct plan *pl, const json_t *r, const char *planid,
    enum plan_content *content, uint8_t sha[32], unsigned long long *size)
{
	struct request *rq = calloc(1, sizeof(*rq));
	const json_t *plugins = json_object_get(r, "plugins"), *p;
	const char *s, *prof, *key, *handle;
	uint8_t fp[32];
	size_t i, j;

	if (rq == NULL)
		fatal("out of memory");
	pl->own_req = rq;
	pl->req = rq;
	if ((s = rstr(r, "plan", 40)) == NULL || strcmp(s, planid) != 0 ||
	    !json_is_integer(json_object_get(r, "uid")) ||
	    json_integer_value(json_object_get(r, "uid")) != pl->peer->uid ||
	    unhex(json_object_get(r, "policy"), fp, 32) != 0 ||
	    (prof = rstr(r, "profile", 64)) == NULL ||
	    (key = rstr(r, "key", PROTO_MAX_KEY)) == NULL ||
	    (handle = rstr(r, "handle", 40)) == NULL ||
	    !json_is_integer(json_object_get(r, "content")) ||
	    !json_is_array(plugins) || json_array_size(plugins) == 0 ||
	    json_array_size(plugins) > PROTO_MAX_PLUGINS)
		return -1;
	/* The policy this plan was made under: a decision made on another
	 * one never counts (docs/hub.md, the check chain). */
	if (sodium_memcmp(fp, pl->e->pol->fingerprint, 32) != 0)
		return -1;
	*content = (enum plan_content)json_integer_value(json_object_get(r,
	    "content"));
	if (*content > PLAN_CONTENT_LATER)
		return -1;
	if (*content == PLAN_CONTENT_FETCHED ||
	    *content == PLAN_CONTENT_UNCHECKED) {
		const json_t *sz = json_object_get(r, "size");
		if (unhex(json_object_get(r, "sha256"), sha, 32) != 0 ||
		    !json_is_integer(sz) || json_integer_value(sz) < 0)
			return -1;
		*size = (unsigned long long)json_integer_value(sz);
	}
	rq->magic = REQUEST_MAGIC;
	rq->method = M_FILE_PLAN;
	if (handle[0] != '\0') {
		if (!id_is_valid(handle, PROTO_PREFIX_HANDLE) ||
		    str_fmt(rq->handle, sizeof(rq->handle), "%s", handle) != STR_OK)
			return -1;
		rq->has_handle = 1;
	} else {
		const char *typed = rstr(r, "typed", 2 * PROTO_MAX_KEY);
		size_t tl = typed ? strlen(typed) / 2 : 0;
		if (str_fmt(rq->profile, sizeof(rq->profile), "%s", prof) !=
		    STR_OK || typed == NULL || tl == 0 || strlen(typed) % 2 ||
		    hex_decode(typed, (uint8_t *)rq->key, tl) != 0 ||
		    memchr(rq->key, '\0', tl) != NULL)
			return -1;
		rq->key_len = (uint32_t)tl;
		rq->has_profile = rq->has_key = 1;
	}
	json_array_foreach(plugins, i, p) {
		struct req_plugin *rp = &rq->plugins[i];
		const json_t *ins = json_object_get(p, "inputs"), *in;
		if ((s = rstr(p, "name", 32)) == NULL || !name_is_plugin(s) ||
		    str_fmt(rp->name, sizeof(rp->name), "%s", s) != STR_OK ||
		    (s = rstr(p, "version", 20)) == NULL ||
		    (s[0] != '\0' && !version_is_valid(s)) ||
		    str_fmt(rp->version, sizeof(rp->version), "%s", s) != STR_OK ||
		    !json_is_array(ins) || json_array_size(ins) > PROTO_MAX_INPUTS)
			return -1;
		json_array_foreach(ins, j, in) {
			const char *n = rstr(in, "name", 32), *ph = rstr(in,
			    "placeholder", 32);
			if (n == NULL || ph == NULL || !name_is_input(n) ||
			    !name_is_input(ph) ||
			    str_fmt(rp->inputs[j].name, sizeof(rp->inputs[j].name),
			    "%s", n) != STR_OK ||
			    str_fmt(rp->inputs[j].placeholder,
			    sizeof(rp->inputs[j].placeholder), "%s", ph) != STR_OK)
				return -1;
		}
		rp->ninputs = (uint8_t)json_array_size(ins);
		/* the pins the ticket showed */
		if ((s = rstr(p, "pin_version", 20)) == NULL ||
		    str_fmt(pl->pin[i].name, sizeof(pl->pin[i].name), "%s",
		    rp->name) != STR_OK ||
		    str_fmt(pl->pin[i].version, sizeof(pl->pin[i].version), "%s",
		    s) != STR_OK ||
		    unhex(json_object_get(p, "manifest_sha256"),
		    pl->pin[i].manifest_sha256, 32) != 0 ||
		    unhex(json_object_get(p, "binary_sha256"),
		    pl->pin[i].binary_sha256, 32) != 0 ||
		    (s = rstr(p, "marketplace", 64)) == NULL ||
		    str_fmt(pl->pin[i].marketplace, sizeof(pl->pin[i].marketplace),
		    "%s", s) != STR_OK)
			return -1;
		pl->pin[i].official = json_is_true(json_object_get(p, "official"));
	}
	rq->nplugins = (uint32_t)json_array_size(plugins);
	return 0;
}

/* The placeholders held when the ticket was made: a renewal or a run must
 * find them held still (else the reused value is gone: E_INPUT_INVALID). */
static int
held_then(const json_t *r, const char *ph)
{
	const json_t *held = json_object_get(r, "held"), *v;
	size_t i;

	json_array_foreach(held, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), ph) == 0)
			return 1;
	return 0;
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

	build_card(pl, &card);
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
	case PLAN_ASK_SHARE:
		/* its record stays: the renewal can be asked again once
		 * another of the agent's plans is done */
		return refuse(pl, E_TOO_MANY_PENDING, "its share of the "
		    "ticket table is taken");
	case PLAN_ASK_REFUSED:
	default:
		e->hub->drop(e->hub_ctx, planid);
		return refuse(pl, E_APPROVAL_TIMEOUT, "the hub did not take the "
		    "ticket");
	}
	rec = plan_record(pl, planid, ticket, content, sha, size);
	json_object_set_new(rec, "instance", json_string(instance));
	if (e->hub->save(e->hub_ctx, planid, rec) != 0) {
		json_decref(rec);
		e->hub->forget(e->hub_ctx, planid);
		return refuse(pl, E_APPROVAL_TIMEOUT, "the pending plan cannot "
		    "be kept");
	}
	json_decref(rec);
	json_object_set_new(pl->rec, "ticket", json_string(ticket));
	json_object_set_new(pl->rec, "outcome", json_string("pending"));
	if (renews[0] != '\0')
		json_object_set_new(pl->rec, "renews", json_string(renews));
	window(pl, "  plan %s: waiting for its decision on lockhub (ticket %s)",
	    planid, ticket);
	return pending_line(pl, planid, ticket, instance);
}

static char *
hub_ask_plan(struct plan *pl, const char *planid)
{
	const struct plan_env *e = pl->e;
	long long t0 = now(pl);
	enum plan_content content = PLAN_CONTENT_LATER;
	uint8_t sha[32];
	unsigned long long size = 0;
	char *line;

	memset(sha, 0, sizeof(sha));
	/* One agent's plans take only its share of the ticket table: told
	 * before the fetch, as the other refusals before the card are. */
	if (e->hub->room(e->hub_ctx, pl->peer->uid, planid) != PLAN_ASK_OK)
		return refuse(pl, E_TOO_MANY_PENDING, "its share of the ticket "
		    "table is taken");
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
	plan_hold_quantum(e, t0);
	return line;
}

/* The values of a hub decision: held ones, or those sealed in the box. */
static char *
hub_values(struct plan *pl, const json_t *r)
{
	const struct plan_env *e = pl->e;
	const struct request *req = pl->req;
	size_t i, j;

	for (i = 0; i < pl->nop; i++) {
		const struct manifest *m = &pl->op[i].m;
		for (j = 0; j < m->ninputs; j++) {
			const struct manifest_input *in = &m->inputs[j];
			const struct req_input *b = binding(&req->plugins[i],
			    in->name);
			struct held_value *hv = values_find(e->values,
			    pl->peer->uid, b->placeholder);
			long n;

			if (hv == NULL && held_then(r, b->placeholder))
				return refuse(pl, E_INPUT_INVALID, "a reused value "
				    "is no longer held (the console restarted)");
			if (hv == NULL) {
				hv = values_new(e->values, pl->peer->uid,
				    b->placeholder);
				if (hv == NULL)
					return refuse(pl, E_INPUT_INVALID,
					    "too many held values");
				n = e->hub->value(e->hub_ctx, pl->planid,
				    b->placeholder, hv->bytes, VALUE_MAX_BYTES);
				if (n <= 0) {
					values_discard(e->values, hv);
					return refuse(pl, E_INPUT_INVALID,
					    "the decision carries no value for it");
				}
				hv->len = (size_t)n;
			}
			if (!input_value_fits(in, hv->bytes, hv->len)) {
				e->human->value_refused(e->human_ctx, b->placeholder,
				    in);
				if (hv->nfiles == 0)
					values_discard(e->values, hv);
				return refuse(pl, E_INPUT_INVALID, "value does not fit");
			}
		}
	}
	return NULL;
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
			if (!held_then(r, ph) && values_find(pl->e->values,
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
	long long t0 = now(pl);
	enum lf_err err;
	char *line;

	t = rstr(r, "ticket", 40);
	if (str_fmt(ticket, sizeof(ticket), "%s", t ? t : "") != STR_OK)
		ticket[0] = '\0';
	memcpy(old, pl->pin, sizeof(old));
	err = open_plugins(pl, &why);
	if (err != E_NONE) {
		line = refuse(pl, err, why);
		goto out;
	}
	close_plugins(pl);
	for (i = 0; i < pl->nop; i++)
		if (!bindings_match(&pl->req->plugins[i], &pl->op[i].m)) {
			line = refuse(pl, E_PLUGIN_TAMPERED, "inputs changed");
			goto out;
		}
	for (i = 0; i < pl->req->nplugins; i++) {
		size_t j;
		for (j = 0; j < pl->req->plugins[i].ninputs; j++) {
			const char *ph = pl->req->plugins[i].inputs[j].placeholder;
			if (held_then(r, ph) && values_find(e->values, pl->peer->uid,
			    ph) == NULL) {
				line = refuse(pl, E_INPUT_INVALID, "a reused value is "
				    "no longer held (the console restarted)");
				goto out;
			}
		}
	}
	pl->left_before = e->pol->max_plugins_per_handle -
	    (pl->h ? pl->h->answers_used : 0);
	if (pl->h != NULL && pl->left_before == 0) {
		line = refuse(pl, E_HANDLE_EXPIRED, "answers used up meanwhile");
		goto out;
	}
	if ((err = plan_bounds(pl, pl->req->nplugins)) != E_NONE) {
		line = refuse(pl, err, "past a bound meanwhile");
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
	plan_hold_quantum(e, t0);
	return line;
out:
	e->hub->forget(e->hub_ctx, pl->planid);
	e->hub->drop(e->hub_ctx, pl->planid);
	plan_hold_quantum(e, t0);
	return line;
}

/* The pending shape again, for a ticket not decided yet (or not posted
 * yet): the plan's own ticket. */
static char *
pending_again(struct plan *pl, const json_t *r)
{
	const char *t = rstr(r, "ticket", 40), *in = rstr(r, "instance", 32);

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
	json_object_set_new(r, "content", json_integer(content));
	if (content == PLAN_CONTENT_FETCHED) {
		json_object_set_new(r, "sha256", hex_of(sha, 32));
		json_object_set_new(r, "size", json_integer((json_int_t)size));
	}
	if (pl->e->hub->save(pl->e->hub_ctx, pl->planid, r) != 0)
		window(pl, "  plan %s: its record could not be updated",
		    pl->planid);
}

char *
plan_run(const struct plan_env *e, const struct request *req,
    const struct peer *peer)
{
	struct plan *pl = calloc(1, sizeof(*pl));
	enum plan_content content = PLAN_CONTENT_FETCHED;
	uint8_t sha[32];
	unsigned long long size = 0;
	json_t *answers = NULL, *r = NULL;
	enum plan_verdict v;
	long long t0 = 0, tstart, quantum_end;
	char *line = NULL;
	size_t i;
	int hold = 0;

	if (pl == NULL)
		fatal("out of memory");
	ASSERT(e->ledger != NULL && e->ledger_ops != NULL);
	for (i = 0; i < PROTO_MAX_PLUGINS; i++)
		pl->op[i].binfd = -1;
	memset(sha, 0, sizeof(sha));
	pl->e = e;
	tstart = now(pl);
	/* A pending answer leaves at the quantum: until then a decision (or
	 * the ticket's post) that comes is taken, and never later. */
	quantum_end = tstart + (long long)e->pol->answer_quantum_s * 1000;
	pl->method = M_FILE_RUN;
	pl->peer = peer;
	pl->id = request_id_json(req);
	pl->rec = json_object();
	json_object_set_new(pl->rec, "method", json_string("file.run"));
	json_object_set_new(pl->rec, "peer_uid", json_integer(peer->uid));
	json_object_set_new(pl->rec, "plan", json_string(req->plan));
	/* Only a console with a hub has tickets. */
	if (e->hub == NULL) {
		line = proto_error_line(M_FILE_RUN, pl->id, E_BAD_REQUEST);
		json_object_set_new(pl->rec, "outcome", json_string("E_BAD_REQUEST"));
		goto out;
	}
	if (str_fmt(pl->planid, sizeof(pl->planid), "%s", req->plan) != STR_OK ||
	    !id_is_valid(pl->planid, PROTO_PREFIX_PLAN) ||
	    (r = e->hub->load(e->hub_ctx, pl->planid)) == NULL ||
	    plan_restore(pl, r, pl->planid, &content, sha, &size) != 0) {
		/* Unknown, another agent's, or made under another policy: to
		 * this agent, a plan nobody decided on. */
		line = refuse(pl, E_APPROVAL_TIMEOUT, "no such pending plan");
		goto out;
	}
	if (pl->req->has_handle) {
		ws_expire(e->ws, now(pl));
		pl->h = ws_find(e->ws, pl->req->handle, peer->uid);
		if (pl->h == NULL) {
			e->hub->forget(e->hub_ctx, pl->planid);
			e->hub->drop(e->hub_ctx, pl->planid);
			line = refuse(pl, E_HANDLE_EXPIRED, "expired meanwhile");
			goto out;
		}
		pl->pr = pl->h->profile;
	} else {
		pl->pr = policy_served_profile(e->pol, pl->req->profile);
		if (pl->pr == NULL) {
			line = refuse(pl, E_APPROVAL_TIMEOUT, "its profile is gone");
			goto out;
		}
	}
	if (str_fmt(pl->key, sizeof(pl->key), "%s", rstr(r, "key",
	    PROTO_MAX_KEY)) != STR_OK) {
		line = refuse(pl, E_APPROVAL_TIMEOUT, "its record does not hold");
		goto out;
	}
	pl->nop = pl->req->nplugins;
	json_object_set_new(pl->rec, "profile", json_string(pl->pr->name));
	json_object_set_new(pl->rec, "key", json_string(pl->key));
	/* The ticket's fetch and post went on behind the plan's answer: what
	 * they found goes into the plan's record now. */
	if (content == PLAN_CONTENT_LATER) {
		switch (e->hub->prepared(e->hub_ctx, pl->planid, &content, sha,
		    &size, quantum_end)) {
		case PLAN_PREP_BUSY:
			line = pending_again(pl, r);
			hold = 1;
			t0 = tstart;
			goto out;
		case PLAN_PREP_REFUSED:
			e->hub->forget(e->hub_ctx, pl->planid);
			e->hub->drop(e->hub_ctx, pl->planid);
			line = refuse(pl, E_APPROVAL_TIMEOUT, "the hub did not take "
			    "the ticket");
			goto out;
		case PLAN_PREP_GONE:
			break;		/* no ticket state: renewed below */
		case PLAN_PREP_DONE:
			record_content(pl, r, content, sha, size);
			break;
		}
	}
	v = e->hub->await(e->hub_ctx, pl->planid, peer->uid, quantum_end);
	switch (v) {
	case PLAN_EXPIRED:
		line = renew(pl, r, content, sha, size);
		goto out;
	case PLAN_UNDECIDED:
		/* No decision yet: pending again, at the quantum; the console
		 * is held by no agent's wait (docs/hub.md). */
		line = pending_again(pl, r);
		hold = 1;
		t0 = tstart;
		goto out;
	case PLAN_NO_DECISION:
		json_object_set_new(pl->rec, "decision", json_string("none"));
		line = refuse(pl, E_APPROVAL_TIMEOUT, "no decision that holds");
		goto out;
	case PLAN_DENIED:
		json_object_set_new(pl->rec, "decision", json_string("denied"));
		e->hub->forget(e->hub_ctx, pl->planid);
		e->hub->drop(e->hub_ctx, pl->planid);
		line = refuse(pl, E_APPROVAL_DENIED, NULL);
		goto out;
	case PLAN_APPROVED:
		break;
	}
	json_object_set_new(pl->rec, "decision", json_string("approved"));
	/* From the verified approval on, everything leaves at the quantum. */
	t0 = now(pl);
	hold = 1;
	{
		/* the manifests the ticket showed, exactly (their inputs
		 * take the values) */
		const char *why = NULL;
		enum lf_err er = open_pinned(pl, &why);
		if (er != E_NONE) {
			line = refuse(pl, er, why);
			goto done;
		}
		close_plugins(pl);
	}
	/* Other plans on this handle or key may have run since the ticket:
	 * the bounds again, before anything is fetched (nothing runs, the
	 * ledger is unchanged). */
	{
		enum lf_err er = plan_bounds(pl, pl->nop);
		if (er != E_NONE) {
			line = refuse(pl, er, "past a bound at the run");
			goto done;
		}
	}
	if ((line = hub_values(pl, r)) != NULL)
		goto done;
	if (content == PLAN_CONTENT_FAILED) {
		json_object_set_new(pl->rec, "fetch_cause",
		    json_string("first fetch failed"));
		line = refuse(pl, E_FETCH_FAILED, "the first fetch failed");
		ledger_note(pl, NULL, 1);	/* one file-dependent symbol */
		goto done;
	}
	if (!pl->req->has_handle) {
		if ((line = fetch(pl)) != NULL) {
			ledger_note(pl, NULL, 1);
			goto done;
		}
		/* The double fetch: other bytes than the approved ones are
		 * never run on. */
		if (memcmp(pl->h->sha256, sha, 32) != 0) {
			json_object_set_new(pl->rec, "sha256", hex_json(pl->h->sha256));
			ws_drop(e->ws, pl->h);
			pl->h = NULL;
			line = refuse(pl, E_STALE, "the content changed since the "
			    "approval");
			ledger_note(pl, NULL, 1);	/* "it changed": one symbol */
			goto done;
		}
	} else if (!ws_alive(e->ws, pl->h, t0)) {
		ws_drop(e->ws, pl->h);
		pl->h = NULL;
		line = refuse(pl, E_HANDLE_EXPIRED, "expired during the approval");
		goto done;
	}
	json_object_set_new(pl->rec, "size", json_integer((json_int_t)pl->h->size));
	json_object_set_new(pl->rec, "sha256", hex_json(pl->h->sha256));
	if ((line = object_check(pl)) != NULL ||
	    (line = run(pl, &answers)) != NULL) {
		if (!pl->req->has_handle)
			ws_drop(e->ws, pl->h);
		pl->h = NULL;
		goto done;
	}
	ledger_note(pl, pl->h->sha256, (unsigned)pl->nop);
	line = answer_line(pl, pl->planid, answers);
	json_object_set_new(pl->rec, "outcome", json_string("answered"));
	if (pl->h->answers_used >= e->pol->max_plugins_per_handle)
		ws_drop(e->ws, pl->h);
done:
	e->hub->forget(e->hub_ctx, pl->planid);
	e->hub->drop(e->hub_ctx, pl->planid);
out:
	if (hold) {
		/* durable inside the quantum, as in plan_handle */
		e->audit->write(e->audit_ctx, json_incref(pl->rec));
		plan_hold_quantum(e, t0);
	}
	window(pl, "  run %s: %s", pl->planid[0] ? pl->planid : "?",
	    json_string_value(json_object_get(pl->rec, "outcome")) ?
	    json_string_value(json_object_get(pl->rec, "outcome")) : "?");
	close_plugins(pl);
	if (hold)
		json_decref(pl->rec);
	else
		audit_at_once(e, pl->rec);
	json_decref(r);
	json_decref(pl->id);
	free(pl->own_req);
	explicit_bzero(pl, sizeof(*pl));
	free(pl);
	return line;
}
