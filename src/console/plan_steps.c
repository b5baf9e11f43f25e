/* The steps of a plan both entries take (docs/console.md, "A plan";
 * plan_steps.h): the plan itself, refusal, the plugins opened and pinned,
 * the refusals before the card, the bounds, the card, the values over a
 * value source, and the tail from the approval on: fetch, run, ledger,
 * answer. The entries are plan.c (file.plan's front), plan_local.c (the
 * console's terminal decides) and plan_hub.c (lockhub decides); this file
 * calls neither.
 *
 * Everything outside the pipeline comes through its environment
 * (plan.h): the human, the sandbox, the audit and the clock. */
#include "console/plan_steps.h"
#include "console/scrub.h"
#include "protocol/key.h"
#include "protocol/response.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>


long long
plan_now(const struct plan *pl)
{
	return pl->e->clock->now_ms(pl->e->clock_ctx);
}

void
plan_window(const struct plan *pl, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	str_vmsg(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pl->e->human->window(pl->e->human_ctx, buf);
}

long long
plan_quantum_end(const struct plan_env *e, long long start_ms)
{
	long long q = (long long)e->pol->answer_quantum_s * 1000;
	long long elapsed = e->clock->now_ms(e->clock_ctx) - start_ms;
	long long k = (elapsed + q - 1) / q;

	/* The first multiple of the quantum at or after the end, and never
	 * less than one: a run longer than k quanta shows only that. */
	if (k < 1)
		k = 1;
	return start_ms + k * q;
}

void
plan_hold_quantum(const struct plan_env *e, long long start_ms)
{
	e->clock->sleep_until(e->clock_ctx, plan_quantum_end(e, start_ms));
}

static json_t *
hex_json(const uint8_t *h)
{
	char hex[SHA256_HEX_LEN + 1];

	hex_encode(h, SHA256_LEN, hex);
	return json_string(hex);
}

void
plan_close_plugins(struct plan *pl)
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

struct plan *
plan_new(const struct plan_env *e, enum lf_method method,
    const struct request *req, const struct peer *peer)
{
	struct plan *pl = xcalloc(1, sizeof(*pl));
	size_t i;

	ASSERT(e->ledger != NULL && e->ledger_ops != NULL);
	for (i = 0; i < PROTO_MAX_PLUGINS; i++)
		pl->op[i].binfd = -1;
	pl->e = e;
	pl->method = method;
	pl->peer = peer;
	pl->id = request_id_json(req);
	pl->rec = json_object();
	return pl;
}

void
plan_free(struct plan *pl, int recorded)
{
	plan_close_plugins(pl);
	if (recorded)
		json_decref(pl->rec);
	else
		audit_at_once(pl->e, pl->rec);
	json_decref(pl->id);
	free(pl->own_req);
	explicit_bzero(pl, sizeof(*pl));
	free(pl);
}

/* Refuse with e; the audit names the precise cause. */
char *
plan_refuse(struct plan *pl, enum lf_err e, const char *cause)
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
	plan_window(pl, "  plan refused: %s (the cause: lockfile audit)",
	    proto_error(e)->name);
	return line;
}

const struct req_input *
plan_binding(const struct req_plugin *rp, const char *input)
{
	size_t i;

	for (i = 0; i < rp->ninputs; i++)
		if (strcmp(rp->inputs[i].name, input) == 0)
			return &rp->inputs[i];
	return NULL;
}

/* Every manifest input bound exactly once to a placeholder, nothing else. */
int
plan_bindings_match(const struct req_plugin *rp, const struct manifest *m)
{
	size_t i;

	if (rp->ninputs != m->ninputs)
		return 0;
	for (i = 0; i < m->ninputs; i++)
		if (plan_binding(rp, m->inputs[i].name) == NULL)
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
 * (store_check_plugin); plan_open_pinned() hashes in full, inside the quantum. */
enum lf_err
plan_open_plugins(struct plan *pl, const char **why)
{
	const struct request *req = pl->req;
	size_t i;

	plan_close_plugins(pl);
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
			plan_close_plugins(pl);
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
enum lf_err
plan_open_pinned(struct plan *pl, const char **why)
{
	size_t i, n = pl->nop;

	plan_close_plugins(pl);
	pl->nop = 0;
	if (store_reload(pl->e->store, why) != 0)
		return E_PLUGIN_TAMPERED;
	for (i = 0; i < n; i++) {
		enum store_status st = store_open_pinned(pl->e->store,
		    &pl->pin[i], &pl->op[i], why);
		pl->nop = i + 1;
		if (st == STORE_OK &&
		    !plan_bindings_match(&pl->req->plugins[i], &pl->op[i].m)) {
			*why = "inputs differ from the approved manifest";
			st = STORE_TAMPERED;
		}
		if (st != STORE_OK) {
			plan_close_plugins(pl);
			return st == STORE_YANKED ? E_PLUGIN_YANKED
			    : E_PLUGIN_TAMPERED;
		}
	}
	return E_NONE;
}


/* The handle's answers left (max_plugins_per_handle; by key, a new
 * handle's), then the agent's answer cap for the key through the ledger's
 * own rule (ledger_would_pass: this uid's entry only, docs/ledger.md). A
 * renewal asks these alone (it runs nothing); plan_bounds() asks them
 * first. */
enum lf_err
plan_answer_bounds(const struct plan *pl, unsigned long long nanswers)
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

/* Every check that must pass for plugins to run, in this order: the
 * answer bounds, the sandbox ready, /proc hidden (docs/isolation.md).
 * plan_precheck() asks it before the card; plan_tail() asks it again
 * after the approval, in the request that runs the plugins, before
 * anything is fetched: other plans on the same handle or key may have run
 * between, and the host may have changed while the human read the card
 * (docs/security.md, "one bounds check"). run() asks /proc again before
 * each plugin: the fetch and the earlier plugins take time. */
enum lf_err
plan_bounds(const struct plan *pl, unsigned long long nanswers,
    const char **why)
{
	const struct plan_env *e = pl->e;
	enum lf_err err;

	*why = NULL;
	if ((err = plan_answer_bounds(pl, nanswers)) != E_NONE)
		return err;
	if (!e->sandbox->ready(e->sandbox_ctx, why))
		return E_SANDBOX_UNAVAILABLE;
	if (e->sandbox->proc_hidden(e->sandbox_ctx, why) != 0)
		return E_PROC_NOT_HIDDEN;
	return E_NONE;
}

/* The handle's answers left, into pl->left_before: 0 when a handle has
 * none left (E_HANDLE_EXPIRED: it is of no further use), else 1. */
int
plan_handle_left(struct plan *pl)
{
	pl->left_before = pl->e->pol->max_plugins_per_handle -
	    (pl->h ? pl->h->answers_used : 0);
	return pl->h == NULL || pl->left_before != 0;
}

/* Step 1: everything that can be refused before the file is read. */
char *
plan_precheck(struct plan *pl)
{
	const struct plan_env *e = pl->e;
	const struct request *req = pl->req;
	const char *why = NULL;
	enum lf_err err;
	size_t i;

	if (req->error == E_LITERAL_INPUT)
		return plan_refuse(pl, E_LITERAL_INPUT, "literal input");
	if (req->has_handle) {
		ws_expire(e->ws, plan_now(pl));
		pl->h = ws_find(e->ws, req->handle, pl->peer->uid);
		if (pl->h == NULL)
			return plan_refuse(pl, E_HANDLE_EXPIRED, "unknown or expired");
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
			return plan_refuse(pl, E_UNKNOWN_PROFILE, NULL);
		json_object_set_new(pl->rec, "profile", json_string(pl->pr->name));
		ks = key_clean_in_prefix(req->key, req->key_len, pl->pr->prefix,
		    pl->key, sizeof(pl->key));
		if (ks != KEY_OK) {
			json_object_set_new(pl->rec, "typed_key",
			    json_stringn(req->key, req->key_len));
			return plan_refuse(pl, E_KEY_OUTSIDE_PREFIX, key_status_name(ks));
		}
		json_object_set_new(pl->rec, "key", json_string(pl->key));
	}
	err = plan_open_plugins(pl, &why);
	if (err != E_NONE)
		return plan_refuse(pl, err, why);
	for (i = 0; i < pl->nop; i++)
		if (!plan_bindings_match(&req->plugins[i], &pl->op[i].m))
			return plan_refuse(pl, E_BAD_REQUEST,
			    "inputs do not match the manifest");
	if (!plan_handle_left(pl))
		return plan_refuse(pl, E_HANDLE_EXPIRED, "answers used up");
	if (req->too_many_plugins)
		return plan_refuse(pl, E_TOO_MANY_PLUGINS, NULL);
	/* The handle's answers left, then the answer cap (docs/ledger.md):
	 * computed from the request and the requesting agent's own ledger
	 * entry only — never from the file, never from another agent's counts
	 * or the content totals — so this refusal, answered at once like those
	 * above, tells the agent only what it already knows: how many answers
	 * it has had. The card shows the same entry. */
	ledger_window_usage(e->ledger, pl->peer->uid, pl->pr->name, pl->key,
	    &pl->used);
	err = plan_bounds(pl, req->nplugins, &why);
	if (err != E_TOO_MANY_PLUGINS)
		json_object_set_new(pl->rec, "ledger_window_answers",
		    json_integer((json_int_t)pl->used.answers));
	if (err != E_NONE)
		return plan_refuse(pl, err, why);
	return NULL;
}

/* The card: everything the human decides on (approval.h). */
void
plan_card(struct plan *pl, struct card *card_out)
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
			const struct req_input *b = plan_binding(&req->plugins[i],
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


/* A placeholder held when the ticket was made (the pending plan's
 * record): a renewal or a run must find it held still. */
int
plan_held_then(const json_t *r, const char *ph)
{
	const json_t *held = json_object_get(r, "held"), *v;
	size_t i;

	json_array_foreach(held, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), ph) == 0)
			return 1;
	return 0;
}

/* The value of one bound input: held, or read from src (a fresh one
 * discarded again on a refusal); NULL, or the response line. */
static char *
value_of(struct plan *pl, const struct plan_value_source *src,
    const char *ph, const struct manifest_input *in)
{
	const struct plan_env *e = pl->e;
	struct held_value *hv = values_find(e->values, pl->peer->uid, ph);
	const char *cause = NULL;
	enum lf_err err = E_INPUT_INVALID;
	long n;

	if (hv == NULL && src->record != NULL && plan_held_then(src->record, ph))
		return plan_refuse(pl, E_INPUT_INVALID, "a reused value is no "
		    "longer held (the console restarted)");
	if (hv == NULL) {
		hv = values_new(e->values, pl->peer->uid, ph);
		if (hv == NULL)
			return plan_refuse(pl, E_INPUT_INVALID,
			    "too many held values");
		n = src->read(pl, ph, in, hv->bytes, &err, &cause);
		if (n < 0) {
			values_discard(e->values, hv);
			return plan_refuse(pl, err, cause);
		}
		hv->len = (size_t)n;
	}
	if (!input_value_fits(in, hv->bytes, hv->len)) {
		/* The human is told which placeholder; the value is never
		 * echoed. A fresh value is forgotten. */
		e->human->value_refused(e->human_ctx, ph, in);
		if (hv->nfiles == 0)
			values_discard(e->values, hv);
		return plan_refuse(pl, E_INPUT_INVALID, "value does not fit");
	}
	return NULL;
}

/* Every value of the plan's inputs, from src when not held, and each
 * checked against the input it is bound to. */
char *
plan_values(struct plan *pl, const struct plan_value_source *src)
{
	char *line;
	size_t i, j;

	for (i = 0; i < pl->nop; i++) {
		const struct manifest *m = &pl->op[i].m;
		for (j = 0; j < m->ninputs; j++) {
			const struct req_input *b = plan_binding(
			    &pl->req->plugins[i], m->inputs[j].name);
			if ((line = value_of(pl, src, b->placeholder,
			    &m->inputs[j])) != NULL)
				return line;
		}
	}
	return NULL;
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
	return fetch_quiet(pl) == 0 ? NULL : plan_refuse(pl, E_FETCH_FAILED, NULL);
}

/* The bytes for fd 6: per manifest input, a 4-byte big-endian length and
 * the value. Built in locked memory, wiped after the run. */
static size_t
values_blob(struct plan *pl, size_t i, uint8_t *out, size_t cap)
{
	const struct manifest *m = &pl->op[i].m;
	size_t j, n = 0;

	for (j = 0; j < m->ninputs; j++) {
		const struct req_input *b = plan_binding(&pl->req->plugins[i],
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
	err = plan_open_pinned(pl, &why);
	if (err != E_NONE)
		return plan_refuse(pl, err, why);
	/* One reference to the file for all the plan's plugins: a TTL that
	 * ends while they run does not take it from the later ones. */
	input = ws_open_input(e->ws, pl->h);
	if (input < 0) {
		line = errno == ENOENT ?
		    plan_refuse(pl, E_HANDLE_EXPIRED, "expired before the run") :
		    plan_refuse(pl, E_FETCH_FAILED, "the fetched file cannot be opened");
		goto out;
	}
	blob = sodium_malloc(LF_PLUGIN_VALUES_MAX);
	if (blob == NULL) {
		line = plan_refuse(pl, E_SANDBOX_UNAVAILABLE, "out of locked memory");
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
			line = plan_refuse(pl, E_PROC_NOT_HIDDEN, why);
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
			line = plan_refuse(pl, E_SANDBOX_UNAVAILABLE,
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
		ws_close_input(e->ws, pl->h, input);
	plan_close_plugins(pl);
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
		plan_window(pl, "  ledger: compaction failed (%s); the ledger goes on "
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
	line = plan_refuse(pl, E_ANSWER_CAP, "the file's answers are used up under "
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

/* What the fetch found, or the handle's file still alive: NULL, or the
 * response line (a fetch failure and a changed content counted in the
 * ledger as one file-dependent symbol). */
static char *
content(struct plan *pl, const struct plan_want *want, long long t0)
{
	const struct plan_env *e = pl->e;
	char *line;

	if (want != NULL && want->first_failed) {
		json_object_set_new(pl->rec, "fetch_cause",
		    json_string("first fetch failed"));
		line = plan_refuse(pl, E_FETCH_FAILED, "the first fetch failed");
		ledger_note(pl, NULL, 1);
		return line;
	}
	if (pl->h == NULL) {
		if ((line = fetch(pl)) != NULL) {
			ledger_note(pl, NULL, 1);
			return line;
		}
		/* Hub mode's double fetch: other bytes than the approved ones
		 * are never run on. */
		if (want != NULL && memcmp(pl->h->sha256, want->sha256, 32) != 0) {
			json_object_set_new(pl->rec, "sha256",
			    hex_json(pl->h->sha256));
			ws_drop(e->ws, pl->h);
			pl->h = NULL;
			line = plan_refuse(pl, E_STALE, "the content changed since "
			    "the approval");
			ledger_note(pl, NULL, 1);	/* "it changed": one symbol */
			return line;
		}
		return NULL;
	}
	/* The TTL ran out while the human read the card: the file's time is
	 * over, whatever the human decided. */
	if (!ws_alive(e->ws, pl->h, t0)) {
		ws_drop(e->ws, pl->h);
		pl->h = NULL;
		return plan_refuse(pl, E_HANDLE_EXPIRED,
		    "expired during the approval");
	}
	return NULL;
}

char *
plan_tail(struct plan *pl, const struct plan_value_source *src,
    const struct plan_want *want, const char *planid, long long t0)
{
	const struct plan_env *e = pl->e;
	int fetched = pl->h == NULL;
	json_t *answers = NULL;
	const char *why = NULL;
	enum lf_err err;
	char *line;

	if ((err = plan_bounds(pl, pl->nop, &why)) != E_NONE)
		return plan_refuse(pl, err, why ? why : "past a bound at the run");
	if (src != NULL && (line = plan_values(pl, src)) != NULL)
		return line;
	if ((line = content(pl, want, t0)) != NULL)
		return line;
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
		return line;
	}
	ledger_note(pl, pl->h->sha256, (unsigned)pl->nop);
	line = answer_line(pl, planid, answers);
	json_object_set_new(pl->rec, "outcome", json_string("answered"));
	/* A handle whose answers are used up is of no further use. */
	if (pl->h->answers_used >= e->pol->max_plugins_per_handle)
		ws_drop(e->ws, pl->h);
	return line;
}
