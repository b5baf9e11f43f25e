/* The console's side of hub mode (see hub.h, docs/hub.md). */
#include "config.h"
#include "console/hub.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/num.h"
#include "lib/render.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#define PLAN_REC_MAX	(1024 * 1024)
/* The post, the long-poll and its back-off are the ticket's job's
 * (hub_job.c). */
/* A pending plan's record: REC_MAGIC, the end of the plan's life (u64,
 * big-endian, unix ms), a nonce, then the record sealed under a key
 * derived from the instance key, the head and the plan id its additional
 * data (docs/security.md, "Data at rest"). */
#define REC_MAGIC	"LFHUBPL1"
#define REC_HEAD	16
#define REC_NONCE	crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define REC_ABYTES	crypto_aead_xchacha20poly1305_ietf_ABYTES
#define REC_CONTEXT	"lockfile/hub/plan-records/v1"

static long long
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
hub_key_path(const char *home, char *out, size_t len)
{
	return str_fmt(out, len, "%s/.local/share/lockfile/hub/instance.key",
	    home) == STR_OK ? 0 : -1;
}

/* ---- start-up ---- */

static int
read_ca(struct console_hub *h, const char *path, const char **why)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, OPEN_RO_SAFE);

	*why = "--hub-ca: a regular file of at most 256 KiB";
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > HUB_CA_MAX) {
		close(fd);
		return -1;
	}
	h->ca = xcalloc(1, (size_t)st.st_size);
	n = read_full(fd, h->ca, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size)
		return -1;
	h->ca_len = (size_t)n;
	return 0;
}

static unsigned
url_port(const char *url)
{
	const char *p = strstr(url, "://"), *colon, *end;
	unsigned long long v;
	char num[8];

	p = p ? p + 3 : url;
	if (*p == '[')
		p = strchr(p, ']');
	colon = p ? strchr(p, ':') : NULL;
	if (colon == NULL)
		return strncmp(url, "https", 5) == 0 ? 443 : 80;
	end = colon + 1 + strcspn(colon + 1, "/");
	if ((size_t)(end - colon - 1) >= sizeof(num))
		return 0;
	memcpy(num, colon + 1, (size_t)(end - colon - 1));
	num[end - colon - 1] = '\0';
	return parse_u64(num, 1, 65535, &v) == 0 ? (unsigned)v : 0;
}

static void sweep(struct console_hub *h);

int
console_hub_open(struct console_hub *h, const struct policy *pol,
    const char *home, const char *url, const char *ca_file,
    struct term *term, const char **why)
{
	char path[PATH_MAX + 64];
	enum hw_key_err ke;
	enum hc_err e;
	enum hub_enrol r;

	memset(h, 0, sizeof(*h));
	h->pol = pol;
	h->term = term;
	h->poll_ms = 30000;
	if (hc_url_ok(url) != 0 || str_fmt(h->url, sizeof(h->url), "%s", url) !=
	    STR_OK || (h->port = url_port(url)) == 0) {
		*why = "--hub: http(s)://HOST[:PORT] and nothing else";
		return -1;
	}
	if (ca_file != NULL && read_ca(h, ca_file, why) != 0)
		return -1;
	if (hub_key_path(home, path, sizeof(path)) != 0) {
		*why = "the home path is too long";
		return -1;
	}
	ke = hw_key_load(path, HW_ROLE_INSTANCE, &h->inst);
	if (ke != HW_KEY_OK) {
		*why = ke == HW_KEY_MISSING ? "no instance key: run `lockfile "
		    "hub-key` first (docs/hub.md)" : hw_key_err_text(ke);
		return -1;
	}
	/* The pending plans' records are sealed under a key only the
	 * instance key gives: a new instance key voids them, as it voids
	 * the open tickets (docs/hub.md, "Rotation"). */
	h->rec_key = sodium_malloc(32);
	if (h->rec_key == NULL)
		fatal("out of locked memory");
	crypto_generichash(h->rec_key, 32, (const uint8_t *)REC_CONTEXT,
	    strlen(REC_CONTEXT), h->inst.sk, 32);
	/* The commitments to agents' tokens are keyed per session: the hub
	 * sees them, never this key. */
	h->commit_key = sodium_malloc(32);
	if (h->commit_key == NULL)
		fatal("out of locked memory");
	randombytes_buf(h->commit_key, 32);
	if (str_fmt(h->dir, sizeof(h->dir), "%s/.local/state/lockfile/hub",
	    home) != STR_OK || str_fmt(h->plans, sizeof(h->plans), "%s/plans",
	    h->dir) != STR_OK || mkdir_p(h->plans, 0700) != 0) {
		*why = "the hub state directory cannot be made";
		return -1;
	}
	/* Records of plans past their lifetime, or that no longer open, go
	 * at the start, run or not (docs/hub.md). */
	sweep(h);
	if (hub_pk_counters_load(h) != 0) {
		*why = "the passkeys' counters cannot be read (passkey-counters "
		    "in the hub state directory)";
		return -1;
	}
	hub_names_snapshot(h);
	h->hc.key = &h->inst;
	h->hc.ca_pem = h->ca;
	h->hc.ca_pem_len = h->ca_len;
	h->hc.connect_timeout_ms = 5000;
	if (str_fmt(h->hc.url, sizeof(h->hc.url), "%s", h->url) != STR_OK)
		return -1;
	if (hub_confirm_approvers(h) != 0) {
		*why = "the confirmed approvers cannot be written";
		return -1;
	}
	e = hc_call(&h->hc, "GET", "/v1/health", NULL, 0, 64, 10000, NULL, NULL);
	if (e != HC_OK) {
		/* libcurl's cause, TLS named (hc_err_text) */
		(void)!str_fmt(h->why, sizeof(h->why), "%s (in hub mode the "
		    "console never runs without it)", e == HC_OK || e ==
		    HC_NO_DATA ? hc_err_text(HC_PROTOCOL) : hc_err_text(e));
		*why = h->why;
		return -1;
	}
	r = hub_enrolment(h, &e);
	if (r != HUB_ENROL_OK) {
		if (r == HUB_ENROL_NO_ANSWER && e != HC_NOT_FOUND)
			(void)!str_fmt(h->why, sizeof(h->why), "%s (the "
			    "enrolment check)", hc_err_text(e));
		else
			hub_enrol_text(h, r, h->why, sizeof(h->why));
		*why = h->why;
		return -1;
	}
	h->on = 1;
	return 0;
}

static void
wipe_ticket(struct hub_ticket_state *s)
{
	hub_job_release(s->job);	/* a running one stops on its own */
	if (s->box_sk != NULL)
		sodium_free(s->box_sk);
	if (s->vals.plain != NULL)
		hw_values_free(&s->vals);
	sodium_memzero(s, sizeof(*s));
}

int
console_hub_close(struct console_hub *h)
{
	size_t i;

	for (i = 0; i < HUB_MAX_TICKETS; i++)
		wipe_ticket(&h->t[i]);
	/* A job in a long-poll or a slow fetch still reads the hub client,
	 * the instance key and the CA: they stay (the process is ending)
	 * rather than the exit waiting for the source's or the hub's
	 * timeout. */
	if (!hub_job_wait_all(&h->live_jobs, 2000)) {
		logit("hub: %d ticket job(s) still running at the exit",
		    hub_job_live(&h->live_jobs));
		h->on = 0;
		return 0;
	}
	hw_key_free(&h->inst);
	if (h->rec_key != NULL)
		sodium_free(h->rec_key);
	h->rec_key = NULL;
	if (h->commit_key != NULL)
		sodium_free(h->commit_key);
	h->commit_key = NULL;
	free(h->ca);
	h->ca = NULL;
	free(h->names);
	h->names = NULL;
	h->nnames = 0;
	h->on = 0;
	return 1;
}

/* ---- the ticket ---- */

static struct hub_ticket_state *
find(struct console_hub *h, const char *plan)
{
	size_t i;

	for (i = 0; i < HUB_MAX_TICKETS; i++)
		if (h->t[i].used && strcmp(h->t[i].plan, plan) == 0)
			return &h->t[i];
	return NULL;
}

static struct hub_ticket_state *
slot(struct console_hub *h, const char *plan)
{
	struct hub_ticket_state *s = find(h, plan);
	long long now = now_ms();
	size_t i;

	if (s != NULL) {
		wipe_ticket(s);		/* a renewal replaces its ticket */
		return s;
	}
	for (i = 0; i < HUB_MAX_TICKETS; i++)
		if (!h->t[i].used)
			return &h->t[i];
	for (i = 0; i < HUB_MAX_TICKETS; i++)
		if (h->t[i].expires_ms <= now) {
			wipe_ticket(&h->t[i]);
			return &h->t[i];
		}
	return NULL;
}

static void reap_all(struct console_hub *h);

/* One agent's share of the table (docs/hub.md): its live tickets but
 * the plan's own (a renewal keeps its place). */
static enum plan_ask
hub_room(void *ctx, uid_t uid, const char *plan)
{
	struct console_hub *h = ctx;
	long long now = now_ms();
	unsigned n = 0;
	size_t i;

	reap_all(h);	/* what the tickets' jobs found since, told */
	if (hub_muted(h, uid))
		return PLAN_ASK_MUTED;

	for (i = 0; i < HUB_MAX_TICKETS; i++)
		if (h->t[i].used && h->t[i].uid == uid &&
		    h->t[i].expires_ms > now && strcmp(h->t[i].plan, plan) != 0)
			n++;
	return n >= h->pol->hub.max_pending_per_agent ? PLAN_ASK_SHARE :
	    PLAN_ASK_OK;
}

static int
token(uid_t uid, char *out, size_t len)
{
	return str_fmt(out, len, "uid:%u", (unsigned)uid) == STR_OK ? 0 : -1;
}

/* The device keys whose decisions this console counts (pinned and
 * confirmed) go into the ticket: the hub lists it to these only and takes
 * a decision from these only, so no other enrolled device can decide first
 * and lock the approver out (issue 26 item 1; docs/hub.md, "TICKET").
 * check() below stays the authority. */
_Static_assert(POLICY_MAX_APPROVERS <= HW_MAX_APPROVERS,
    "a ticket names every approver the policy may pin");

static void
name_approvers(const struct console_hub *h, struct hw_ticket *t)
{
	size_t i;

	t->napprovers = 0;
	for (i = 0; i < h->pol->hub.napprovers &&
	    t->napprovers < HW_MAX_APPROVERS; i++)
		if (h->confirmed[i])
			memcpy(t->approvers[t->napprovers++],
			    h->pol->hub.approvers[i].pk, HW_KEY_LEN);
}

/* What a ticket's job signs with: the ticket made on the serving thread
 * (all but the content's state and the plan hash) and copies of what the
 * plan hash covers. Freed with the job (its first member). */
struct job_ticket {
	struct hub_job j;
	struct hw_ticket t;
	const uint8_t *sk;			/* the instance key's, read-only */
	enum plan_content content;		/* LATER: the job's fetch says */
	struct request req;
	struct lock_entry pins[PROTO_MAX_PLUGINS];
	size_t npins;
	char profile[64 + 1], key[PROTO_MAX_KEY + 1], handle[PLAN_ID_TEXT];
	int with_card;				/* passkeys may decide it */
	struct hw_card card;			/* its lines, then signed */
};

/* On the job's thread, after its fetch: the content's state, the plan
 * hash, the signature (docs/hub.md: a fetch that failed is "could not be
 * fetched" on the masked screen, told to the agent only after an
 * approval). */
static int
job_sign(struct hub_job *j)
{
	struct job_ticket *jt = (struct job_ticket *)j;
	struct hw_screen *sc = &jt->t.screen;
	struct plan_ticket f;

	if (jt->content == PLAN_CONTENT_LATER) {
		jt->content = j->fc == FC_OK ? PLAN_CONTENT_FETCHED :
		    PLAN_CONTENT_FAILED;
		sc->content = j->fc == FC_OK ? HW_CONTENT_FETCHED :
		    HW_CONTENT_FAILED;
		memset(sc->sha256, 0, sizeof(sc->sha256));
		sc->size = 0;
		if (j->fc == FC_OK) {
			memcpy(sc->sha256, j->sha256, 32);
			sc->size = j->size;
		}
	}
	memset(&f, 0, sizeof(f));
	f.req = &jt->req;
	f.profile = jt->profile;
	f.key = jt->key;
	f.handle = jt->handle;
	f.content = jt->content;
	f.sha256 = sc->sha256;
	f.pins = jt->pins;
	f.npins = jt->npins;
	if (hub_plan_hash(&f, jt->t.plan_hash) != 0)
		return -1;
	/* The ticket's life starts when it is signed. */
	jt->t.created_ms = (uint64_t)wall_ms();
	jt->t.expires_ms = jt->t.created_ms + (uint64_t)j->ttl_ms;
	j->expires_ms = now_ms() + j->ttl_ms;
	if (hw_ticket_encode(&jt->t, jt->sk, &j->body) != HW_OK)
		return -1;
	/* The CARD names the signed ticket by its hash (docs/hub.md). */
	if (jt->with_card) {
		hw_hash(buf_data(j->body), buf_len(j->body),
		    jt->card.ticket_hash);
		if (hw_card_encode(&jt->card, jt->sk, &j->card) != HW_OK ||
		    str_fmt(j->card_path, sizeof(j->card_path),
		    "/v1/tickets/%s/card", jt->t.id) != STR_OK) {
			buf_free(j->card);
			j->card = NULL;
		}
	}
	return 0;
}

static struct job_ticket *
job_new(struct console_hub *h)
{
	struct job_ticket *jt = xcalloc(1, sizeof(*jt));

	jt->j.hc = &h->hc;
	jt->j.poll_ms = h->poll_ms;
	jt->j.ttl_ms = (long long)h->pol->hub.ticket_ttl_s * 1000;
	jt->j.cap = h->pol->max_workspace_bytes;
	jt->sk = h->inst.sk;
	return jt;
}

static enum plan_ask
hub_ask(void *ctx, const struct plan_ticket *f, char ticket[PLAN_ID_TEXT],
    char instance[33])
{
	struct console_hub *h = ctx;
	struct hub_ticket_state *s;
	struct job_ticket *jt;
	struct hw_ticket *t;
	char tok[32];
	long long ttl = (long long)h->pol->hub.ticket_ttl_s * 1000;

	enum plan_ask room = hub_room(h, f->uid, f->plan_id);
	const struct profile *pr = policy_profile(h->pol, f->profile);

	if (room != PLAN_ASK_OK)
		return room;
	s = slot(h, f->plan_id);
	if (s == NULL)
		return PLAN_ASK_REFUSED;
	memset(s, 0, sizeof(*s));
	s->box_sk = sodium_malloc(32);
	if (s->box_sk == NULL)
		fatal("out of locked memory");
	crypto_box_keypair(s->box_pk, s->box_sk);
	/* The ticket id is chosen now: the agent has it at the first
	 * quantum, whatever the fetch and the post take. */
	jt = job_new(h);
	t = &jt->t;
	random_id(PROTO_PREFIX_TICKET, t->id, sizeof(t->id));
	if (str_fmt(jt->j.path, sizeof(jt->j.path),
	    "/v1/tickets/%s/decisions/after/0", t->id) != STR_OK)
		goto refused;
	randombytes_buf(t->nonce, sizeof(t->nonce));
	if (str_fmt(t->instance, sizeof(t->instance), "%s",
	    h->pol->hub.instance) != STR_OK ||
	    str_fmt(t->renews, sizeof(t->renews), "%s", f->renews) != STR_OK ||
	    token(f->uid, tok, sizeof(tok)) != 0 || hub_ticket_screen(f, t) != 0 ||
	    str_fmt(jt->profile, sizeof(jt->profile), "%s", f->profile) !=
	    STR_OK || str_fmt(jt->key, sizeof(jt->key), "%s", f->key) != STR_OK ||
	    str_fmt(jt->handle, sizeof(jt->handle), "%s", f->handle) != STR_OK ||
	    f->npins > PROTO_MAX_PLUGINS)
		goto refused;
	jt->req = *f->req;
	memcpy(jt->pins, f->pins, f->npins * sizeof(f->pins[0]));
	jt->npins = f->npins;
	jt->content = f->content;
	if (f->content == PLAN_CONTENT_LATER) {
		jt->j.kind = f->kind;
		jt->j.src = f->src;
		jt->j.cap = f->cap;
		jt->j.scrub = f->scrub_words;
		jt->j.nscrub = f->nscrub;
		if (str_fmt(jt->j.key, sizeof(jt->j.key), "%s", f->key) != STR_OK)
			goto refused;
	}
	memcpy(t->instance_key, h->inst.pk, 32);
	memcpy(t->policy_fp, h->pol->fingerprint, 32);
	hw_agent_commit(h->commit_key, t->id, tok, strlen(tok), t->agent_commit);
	hub_agent_label(h, f->uid, t->agent_label, sizeof(t->agent_label));
	memcpy(t->box_pk, s->box_pk, 32);
	name_approvers(h, t);
	/* Passkeys decide only where the profile lets them and the plan
	 * has no placeholder: the page never takes a value (docs/hub.md,
	 * "Passkeys"). */
	s->passkeys_ok = pr != NULL && pr->passkeys && t->nph == 0 &&
	    h->pol->hub.npasskeys > 0;
	if (s->passkeys_ok) {
		hub_name_passkeys(h, t);
		jt->with_card = f->card != NULL && hub_card_lines(h, f->card,
		    &jt->card) == 0 && str_fmt(jt->card.instance,
		    sizeof(jt->card.instance), "%s", t->instance) == STR_OK &&
		    str_fmt(jt->card.ticket, sizeof(jt->card.ticket), "%s",
		    t->id) == STR_OK;
		if (!jt->with_card)
			logit("hub: no card for ticket %s: passkeys cannot "
			    "decide it (lox can)", t->id);
	}
	jt->j.sign = job_sign;
	s->used = 1;
	s->quorum = pr != NULL ? pr->approvals : 1;
	memcpy(s->plan, f->plan_id, strlen(f->plan_id) + 1);
	memcpy(s->ticket, t->id, sizeof(t->id));
	s->uid = f->uid;
	memcpy(s->nonce, t->nonce, sizeof(s->nonce));
	memcpy(s->commit, t->agent_commit, 32);
	memcpy(s->policy_fp, t->policy_fp, 32);
	s->expires_ms = now_ms() + ttl;	/* again when it is signed */
	s->content = f->content;
	if (f->content != PLAN_CONTENT_LATER && f->content !=
	    PLAN_CONTENT_FAILED) {
		memcpy(s->sha256, f->sha256, 32);
		s->size = f->size;
	}
	memcpy(ticket, t->id, sizeof(t->id));
	memcpy(instance, t->instance, sizeof(t->instance));
	if (hub_job_start(&jt->j, &h->live_jobs) != 0) {
		logit("hub: cannot start a ticket's job");
		s->used = 0;
		goto refused;
	}
	s->job = &jt->j;
	return PLAN_ASK_OK;
refused:
	sodium_memzero(jt, sizeof(*jt));
	free(jt);
	wipe_ticket(s);
	return PLAN_ASK_REFUSED;
}

/* The job's post, once: the ticket's hash and expiry, the hub's answer
 * (a refusal may be a revoked key: hub_enrol_refused tells it), and the
 * audit record of the plan-time fetch. 1 when the job is past its post. */
static int
reap_post(struct console_hub *h, struct hub_ticket_state *s)
{
	struct job_ticket *jt = (struct job_ticket *)s->job;
	json_t *rec;

	if (s->prepared)
		return 1;
	if (jt == NULL || hub_job_phase(&jt->j) == HJ_PREPARING)
		return 0;
	s->prepared = 1;
	rec = json_object();
	json_object_set_new(rec, "method", json_string("hub.ticket"));
	json_object_set_new(rec, "plan", json_string(s->plan));
	json_object_set_new(rec, "ticket", json_string(s->ticket));
	if (jt->j.kind != NULL || s->content == PLAN_CONTENT_LATER) {
		json_object_set_new(rec, "fetch_cause",
		    json_string(fetch_cause_name(jt->j.fc)));
		if (jt->j.detail[0] != '\0')
			json_object_set_new(rec, "fetch_detail",
			    json_string(jt->j.detail));
		if (jt->j.fc == FC_OK) {
			char hex[65];
			hex_encode(jt->j.sha256, 32, hex);
			json_object_set_new(rec, "size",
			    json_integer((json_int_t)jt->j.size));
			json_object_set_new(rec, "sha256", json_string(hex));
		}
	}
	if (jt->j.post != HC_OK) {
		logit("hub: the ticket was not taken: %s",
		    hc_err_text(jt->j.post));
		if (jt->j.post == HC_REFUSED)
			hub_enrol_refused(h);
		s->post_failed = 1;
		json_object_set_new(rec, "outcome", json_string("not taken"));
	} else {
		hub_enrol_taken(h);
		hw_hash(buf_data(jt->j.body), buf_len(jt->j.body), s->ticket_hash);
		if (jt->with_card)
			json_object_set_new(rec, "card", json_string(
			    jt->j.card != NULL && jt->j.card_post == HC_OK ?
			    "posted" : "not taken"));
		s->expires_ms = jt->j.expires_ms;
		json_object_set_new(rec, "outcome", json_string("posted"));
	}
	if (s->content == PLAN_CONTENT_LATER) {
		s->content = jt->content;
		memcpy(s->sha256, jt->j.sha256, 32);
		s->size = jt->j.size;
	}
	h->audit->note(h->audit_ctx, rec);
	return 1;
}

static void
reap_all(struct console_hub *h)
{
	size_t i;

	for (i = 0; i < HUB_MAX_TICKETS; i++)
		if (h->t[i].used && h->t[i].job != NULL)
			(void)reap_post(h, &h->t[i]);
}

static enum plan_prep
hub_prepared(void *ctx, const char *plan, enum plan_content *content,
    uint8_t sha256[32], unsigned long long *size, long long until)
{
	struct console_hub *h = ctx;
	struct hub_ticket_state *s = find(h, plan);

	if (s == NULL)
		return PLAN_PREP_GONE;
	if (!s->prepared && s->job != NULL)
		(void)hub_job_wait(s->job, HJ_POLLING, until);
	if (!reap_post(h, s))
		return PLAN_PREP_BUSY;
	if (s->post_failed)
		return PLAN_PREP_REFUSED;
	*content = s->content;
	memcpy(sha256, s->sha256, 32);
	*size = s->size;
	return PLAN_PREP_DONE;
}

/* ---- the decision: the check chain of docs/hub.md, in its order ---- */

static int
approver_of(const struct console_hub *h, const uint8_t pk[32])
{
	size_t i;

	for (i = 0; i < h->pol->hub.napprovers; i++)
		if (sodium_memcmp(h->pol->hub.approvers[i].pk, pk, 32) == 0)
			return (int)i;
	return -1;
}

/* The ticket is used up: its one-use key goes, so no decision (nor any
 * copy) counts any more. */
static void
consume(struct hub_ticket_state *s)
{
	if (s->box_sk != NULL)
		sodium_free(s->box_sk);
	s->box_sk = NULL;
	memset(s->ticket_hash, 0, sizeof(s->ticket_hash));
}

/* An approval's box: it opens with the one-use key (kept until the
 * quorum), and with a quorum over one its values are the first counted
 * box's exactly (docs/hub.md: every approver consents to the values that
 * run). A passkey's approval has no box (its plan has no placeholder:
 * nothing was typed). 0, or -1 with *cause. */
static int
open_box(struct hub_ticket_state *s, const uint8_t *box, size_t box_len,
    const char **cause)
{
	struct hw_values vs;
	uint8_t hash[HW_HASH_LEN];

	if (s->box_sk == NULL) {
		*cause = "the values box does not open";
		return -1;
	}
	if (box == NULL)
		return 0;
	if (hw_values_open(box, box_len, s->box_pk, s->box_sk, &vs) !=
	    HW_OK) {
		*cause = "the values box does not open";
		return -1;
	}
	hw_hash(vs.plain, vs.plain_len, hash);
	if (s->vals_opened) {
		int same = sodium_memcmp(hash, s->vals_hash, HW_HASH_LEN) == 0;
		hw_values_free(&vs);
		if (!same) {
			*cause = "its values are not the first approval's";
			return -1;
		}
		return 0;
	}
	memcpy(s->vals_hash, hash, HW_HASH_LEN);
	s->vals = vs;
	s->vals_opened = 1;
	return 0;
}

/* A device's decision (DECISION), steps 1 to 4: PLAN_APPROVED when they
 * hold, with its approver's index, verdict and box; else refused. */
static enum plan_verdict
check_device(struct console_hub *h, struct hub_ticket_state *s,
    const uint8_t *b, size_t blen, struct hw_envelope *e, int *who,
    uint8_t *verdict)
{
	struct hw_dev d;
	struct hw_hub x;
	uint8_t hash[HW_HASH_LEN];
	int a;

	/* 1. strict parse */
	if (hw_decision_parse(b, blen, e) != HW_OK ||
	    hw_hub_parse(e->hub, e->hub_len, &x) != HW_OK ||
	    hw_dev_parse(e->dev, e->dev_len, &d) != HW_OK) {
		hub_refused(h, s, "does not parse");
		return PLAN_NO_DECISION;
	}
	/* 2. the hub's signature, under a pinned hub key */
	if (!hw_hub_countersigns(e->hub, &x,
	    (const uint8_t (*)[HW_KEY_LEN])h->pol->hub.keys, h->pol->hub.nkeys,
	    e->dev, e->dev_len, s->ticket)) {
		hub_refused(h, s, "not countersigned by a pinned hub key");
		return PLAN_NO_DECISION;
	}
	/* 3. the device's signature, under a pinned and confirmed key, whose
	 * name is the approver the hub names; the box it hashed */
	a = approver_of(h, d.device_key);
	if (a < 0 || !h->confirmed[a] ||
	    hw_verify(e->dev, d.signed_len, d.sig,
	    h->pol->hub.approvers[a].pk) != HW_OK ||
	    strcmp(x.approver, h->pol->hub.approvers[a].name) != 0) {
		hub_refused(h, s, "not signed by a pinned, confirmed approver");
		return PLAN_NO_DECISION;
	}
	hw_hash(e->box, e->box_len, hash);
	if (sodium_memcmp(hash, d.box_hash, HW_HASH_LEN) != 0) {
		hub_refused(h, s, "the values box is not the one signed");
		return PLAN_NO_DECISION;
	}
	/* 4. the pending ticket: its hash, this instance, its nonce */
	if (sodium_memcmp(d.ticket_hash, s->ticket_hash, HW_HASH_LEN) != 0 ||
	    sodium_memcmp(d.instance_key, h->inst.pk, 32) != 0 ||
	    sodium_memcmp(d.nonce, s->nonce, HW_NONCE_LEN) != 0 ||
	    strcmp(d.ticket, s->ticket) != 0) {
		hub_refused(h, s, "for another ticket, instance or nonce");
		return PLAN_NO_DECISION;
	}
	*who = a;
	*verdict = d.verdict;
	return PLAN_APPROVED;
}

/* One decision through the chain, in its order. PLAN_UNDECIDED: an
 * approval counted toward the quorum, not reached yet; PLAN_NO_DECISION
 * with the ticket still pending: refused (audit), it does not count;
 * anything else ends the ticket. A passkey's decision (DECISION-P, told
 * apart by its magic) has its own first steps (hub_passkey.c), then the
 * same chain from 5 on, with no box. */
static enum plan_verdict
check_one(struct console_hub *h, struct hub_ticket_state *s,
    const uint8_t *b, size_t blen, uid_t uid)
{
	struct hw_envelope e;
	uint8_t hash[HW_HASH_LEN], verdict = 0;
	uint32_t mute = 0;
	const uint8_t *box = NULL;
	size_t box_len = 0;
	const char *cause;
	char tok[32];
	int a = -1, *counted;
	enum plan_verdict v;

	if (blen >= HW_MAGIC_LEN && memcmp(b, HW_MAGIC_DECP,
	    HW_MAGIC_LEN) == 0) {
		v = hub_check_passkey(h, s, b, blen, &a, &verdict, &mute);
		counted = s->pk_counted;
	} else {
		v = check_device(h, s, b, blen, &e, &a, &verdict);
		box = e.box;
		box_len = e.box_len;
		counted = s->counted;
	}
	if (v != PLAN_APPROVED)
		return v;
	/* 5. one approver counts once, however often the hub serves it */
	if (counted[a]) {
		hub_refused(h, s, "this approver's decision counted already");
		return PLAN_NO_DECISION;
	}
	/* 6. the console's clock */
	if (now_ms() > s->expires_ms) {
		struct hub_ticket_state held = *s;
		consume(s);
		hub_refused(h, &held, "past its expiry");
		return PLAN_EXPIRED;
	}
	/* 7. the policy unchanged; 8. for the requesting agent: either ends
	 * the ticket, as no decision could hold for it now */
	if (token(uid, tok, sizeof(tok)) != 0)
		fatal("token");
	hw_agent_commit(h->commit_key, s->ticket, tok, strlen(tok), hash);
	cause = sodium_memcmp(s->policy_fp, h->pol->fingerprint, 32) != 0 ?
	    "the policy changed" : sodium_memcmp(hash, s->commit,
	    HW_HASH_LEN) != 0 ? "for another agent" : NULL;
	if (cause != NULL) {
		struct hub_ticket_state held = *s;
		consume(s);
		hub_refused(h, &held, cause);
		return PLAN_NO_DECISION;
	}
	/* 9. the verdict: a deny from any counted approver ends it (verdict
	 * HW_DENY_MUTE, a passkey's, also mutes the agent) */
	if (verdict != HW_APPROVE) {
		consume(s);
		if (verdict == HW_DENY_MUTE)
			hub_mute(h, s->uid, mute);
		return PLAN_DENIED;
	}
	/* 10. the box opens (and matches the first approval's values) */
	if (open_box(s, box, box_len, &cause) != 0) {
		hub_refused(h, s, cause);
		return PLAN_NO_DECISION;
	}
	counted[a] = 1;
	if (++s->ncounted < s->quorum)
		return PLAN_UNDECIDED;
	/* the quorum: the ticket is consumed, the plan runs once */
	consume(s);
	s->approved = 1;
	return PLAN_APPROVED;
}

/* The decisions the hub gave (a DECISIONLIST: those after the s->seen
 * already read), each through check_one(). The first that ends the ticket
 * decides; else still pending (PLAN_UNDECIDED) when one counted or none
 * was refused, PLAN_NO_DECISION (E_APPROVAL_TIMEOUT at once, as a refused
 * decision is told) when only refusals came. */
static enum plan_verdict
check(struct console_hub *h, struct hub_ticket_state *s, const struct buf *b,
    uid_t uid)
{
	static __thread struct hw_declist l;
	enum plan_verdict v;
	size_t i;
	int refusals = 0, counted = 0;

	if (hw_declist_parse(buf_data(b), buf_len(b), &l) != HW_OK ||
	    l.n == 0) {
		hub_refused(h, s, "does not parse");
		return PLAN_NO_DECISION;
	}
	s->seen += l.n;
	for (i = 0; i < l.n; i++) {
		v = check_one(h, s, l.item[i], l.item_len[i], uid);
		if (v == PLAN_UNDECIDED)
			counted = 1;
		else if (v == PLAN_NO_DECISION && s->box_sk != NULL)
			refusals = 1;
		else
			return v;
	}
	return refusals && !counted ? PLAN_NO_DECISION : PLAN_UNDECIDED;
}

/* A new job that only long-polls the posted ticket's decision. */
static int
poll_again(struct console_hub *h, struct hub_ticket_state *s)
{
	struct job_ticket *jt = job_new(h);

	jt->j.expires_ms = s->expires_ms;
	if (str_fmt(jt->j.path, sizeof(jt->j.path),
	    "/v1/tickets/%s/decisions/after/%zu", s->ticket, s->seen) != STR_OK ||
	    hub_job_start(&jt->j, &h->live_jobs) != 0) {
		free(jt);
		return -1;
	}
	s->job = &jt->j;
	return 0;
}

/* Never waits: the decision the ticket's job found, checked, or
 * PLAN_UNDECIDED (docs/hub.md, "The console's side"). */
static enum plan_verdict
hub_await(void *ctx, const char *plan, uid_t uid, long long until)
{
	struct console_hub *h = ctx;
	struct hub_ticket_state *s = find(h, plan);
	struct hub_job *j;
	struct buf *b;
	enum hc_err e;
	enum plan_verdict v;

	reap_all(h);
	/* No ticket state (the console restarted) or a used key: only a new
	 * ticket can be decided on. */
	if (s == NULL)
		return PLAN_EXPIRED;
	if (s->approved)
		return PLAN_APPROVED;
	if (s->box_sk == NULL || now_ms() >= s->expires_ms)
		return PLAN_EXPIRED;
	if (s->job != NULL && !s->prepared)
		(void)hub_job_wait(s->job, HJ_POLLING, until);
	if (s->job != NULL && !reap_post(h, s))
		return PLAN_UNDECIDED;
	if (s->post_failed)
		return PLAN_NO_DECISION;
	/* A refused decision or a hub error ended the last poll: poll again,
	 * behind this answer. */
	if (s->job == NULL && poll_again(h, s) != 0)
		return PLAN_NO_DECISION;
	j = s->job;
	if (hub_job_phase(j) != HJ_DONE) {
		/* at most until this answer's own quantum */
		hub_job_nudge(j);
		if (hub_job_wait(j, HJ_DONE, until) != HJ_DONE)
			return PLAN_UNDECIDED;
	}
	e = j->poll;
	b = j->decision;
	j->decision = NULL;
	hub_job_release(j);
	s->job = NULL;
	if (e == HC_OK || e == HC_NO_DATA)
		hub_enrol_taken(h);
	if (e == HC_NO_DATA) {
		buf_free(b);
		return now_ms() >= s->expires_ms ? PLAN_EXPIRED : PLAN_UNDECIDED;
	}
	if (e != HC_OK) {
		/* A hub that is down or refuses: told at once, on the closed
		 * list; the ticket stays pending. A refusal may be a revoked
		 * key: the window and the audit say so. */
		buf_free(b);
		if (e == HC_REFUSED)
			hub_enrol_refused(h);
		return PLAN_NO_DECISION;
	}
	v = check(h, s, b, uid);
	buf_free(b);
	return v;
}

static long
hub_value(void *ctx, const char *plan, const char *ph, uint8_t *buf, size_t cap)
{
	struct console_hub *h = ctx;
	struct hub_ticket_state *s = find(h, plan);
	size_t i;

	if (s == NULL || !s->approved)
		return -1;
	for (i = 0; i < s->vals.n; i++)
		if (strcmp(s->vals.v[i].name, ph) == 0) {
			if (s->vals.v[i].len > cap)
				return -1;
			memcpy(buf, s->vals.v[i].bytes, s->vals.v[i].len);
			return (long)s->vals.v[i].len;
		}
	return -1;
}

static void
hub_forget(void *ctx, const char *plan)
{
	struct hub_ticket_state *s = find(ctx, plan);

	if (s != NULL)
		wipe_ticket(s);
}

/* ---- the pending plans, one sealed file each ----
 *
 * What a renewal needs (the key, the typed key, the content's sha256 and
 * size...) is file metadata: sealed, it is not at rest in the clear
 * (docs/security.md, "Data at rest"). The head in the clear holds only
 * the end of the plan's life, so records nobody runs go without being
 * opened. */

static int
plan_path(const struct console_hub *h, const char *plan, char *out, size_t len)
{
	if (!id_is_valid(plan, PROTO_PREFIX_PLAN))
		return -1;
	return str_fmt(out, len, "%s/%s.rec", h->plans, plan) == STR_OK ? 0 : -1;
}

static void
rec_head(uint8_t head[REC_HEAD], unsigned long long until)
{
	int i;

	memcpy(head, REC_MAGIC, 8);
	for (i = 0; i < 8; i++)
		head[8 + i] = (uint8_t)(until >> (56 - 8 * i));
}

/* The end of a record's plan from its head: 0, or -1 when the head is
 * not ours or the plan's life is over (or, by a clock set back, longer
 * than the policy gives). */
static int
rec_live(const struct console_hub *h, const uint8_t head[REC_HEAD],
    unsigned long long *until)
{
	long long now = wall_ms();
	unsigned long long u = 0;
	int i;

	if (memcmp(head, REC_MAGIC, 8) != 0)
		return -1;
	for (i = 0; i < 8; i++)
		u = u << 8 | head[8 + i];
	if (u <= (unsigned long long)now || u > (unsigned long long)now +
	    (unsigned long long)h->pol->hub.plan_ttl_s * 1000)
		return -1;
	*until = u;
	return 0;
}

/* At most max bytes of path (the console's own 0600 file): its length,
 * or -1. */
static ssize_t
rec_read(const char *path, uint8_t *out, size_t max)
{
	ssize_t n;
	int fd = open(path, OPEN_RO_SAFE);

	if (fd < 0)
		return -1;
	if (check_fd_owner_mode(fd, geteuid(), 1) != 0) {
		close(fd);
		return -1;
	}
	n = read_full(fd, out, max);
	close(fd);
	return n;
}

/* Every file of the directory but the records of live plans goes: those
 * past their lifetime (their ticket state too), leftovers, and records
 * of the clear format before this one. */
static void
sweep(struct console_hub *h)
{
	DIR *d = opendir(h->plans);
	struct dirent *de;
	uint8_t head[REC_HEAD];
	unsigned long long until;
	char plan[PLAN_ID_TEXT], path[PATH_MAX + 64];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		int keep = 0;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		plan[0] = '\0';
		if (n > 4 && n - 4 < sizeof(plan) &&
		    strcmp(de->d_name + n - 4, ".rec") == 0) {
			memcpy(plan, de->d_name, n - 4);
			plan[n - 4] = '\0';
		}
		if (plan[0] != '\0' && plan_path(h, plan, path, sizeof(path)) == 0)
			keep = rec_read(path, head, REC_HEAD) == REC_HEAD &&
			    rec_live(h, head, &until) == 0;
		if (keep)
			continue;
		(void)unlinkat(dirfd(d), de->d_name, 0);
		if (plan[0] != '\0' && id_is_valid(plan, PROTO_PREFIX_PLAN))
			hub_forget(h, plan);
	}
	closedir(d);
}

/* Sealed whole to a temporary name, then renamed over the record
 * (renameat: the console's filter allows it, Landlock within this
 * directory only): a crash leaves the old record or the new one. A
 * renewal keeps the plan's end. */
static int
hub_save(void *ctx, const char *plan, json_t *rec)
{
	struct console_hub *h = ctx;
	char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
	uint8_t head[REC_HEAD], *out;
	unsigned long long until, clen;
	size_t tlen, olen;
	char *text;
	int fd, rc;

	if (plan_path(h, plan, path, sizeof(path)) != 0 ||
	    str_fmt(tmp, sizeof(tmp), "%s.tmp", path) != STR_OK)
		return -1;
	if (rec_read(path, head, REC_HEAD) != REC_HEAD ||
	    rec_live(h, head, &until) != 0)
		until = (unsigned long long)wall_ms() +
		    (unsigned long long)h->pol->hub.plan_ttl_s * 1000;
	sweep(h);
	text = jsonx_dump_line(rec);
	if (text == NULL)
		return -1;
	tlen = strlen(text);
	olen = REC_HEAD + REC_NONCE + tlen + REC_ABYTES;
	out = xcalloc(1, olen);
	rec_head(head, until);
	memcpy(out, head, REC_HEAD);
	randombytes_buf(out + REC_HEAD, REC_NONCE);
	{
		uint8_t ad[REC_HEAD + PLAN_ID_TEXT];
		memcpy(ad, head, REC_HEAD);
		memcpy(ad + REC_HEAD, plan, strlen(plan));
		crypto_aead_xchacha20poly1305_ietf_encrypt(out + REC_HEAD +
		    REC_NONCE, &clen, (const uint8_t *)text, tlen, ad,
		    REC_HEAD + strlen(plan), NULL, out + REC_HEAD, h->rec_key);
	}
	sodium_memzero(text, tlen);
	free(text);
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = fd < 0 || write_full(fd, out, olen) != 0 || fsync(fd) != 0;
	if (fd >= 0 && close(fd) != 0)
		rc = 1;
	free(out);
	if (rc || renameat(AT_FDCWD, tmp, AT_FDCWD, path) != 0) {
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* The record, or NULL: none, past the plan's life (then it goes, with its
 * ticket state: a run is refused, never renewed), or it does not open. */
static json_t *
hub_load(void *ctx, const char *plan)
{
	struct console_hub *h = ctx;
	char path[PATH_MAX + 64];
	uint8_t *raw, *text, ad[REC_HEAD + PLAN_ID_TEXT];
	unsigned long long until, tlen;
	json_t *rec = NULL;
	ssize_t n;
	size_t max = REC_HEAD + REC_NONCE + PLAN_REC_MAX + REC_ABYTES;

	if (plan_path(h, plan, path, sizeof(path)) != 0)
		return NULL;
	raw = xmalloc(max + 1);
	text = xmalloc(PLAN_REC_MAX + 1);
	n = rec_read(path, raw, max + 1);
	if (n < 0) {
		free(raw);
		free(text);
		return NULL;
	}
	memcpy(ad, raw, n >= REC_HEAD ? REC_HEAD : 0);
	memcpy(ad + REC_HEAD, plan, strlen(plan));
	if (n < REC_HEAD + REC_NONCE + REC_ABYTES || (size_t)n > max ||
	    rec_live(h, raw, &until) != 0 ||
	    crypto_aead_xchacha20poly1305_ietf_decrypt(text, &tlen, NULL,
	    raw + REC_HEAD + REC_NONCE, (unsigned long long)n - REC_HEAD -
	    REC_NONCE, ad, REC_HEAD + strlen(plan), raw + REC_HEAD,
	    h->rec_key) != 0) {
		(void)unlink(path);
		hub_forget(h, plan);
	} else {
		rec = jsonx_parse((const char *)text, (size_t)tlen, PLAN_REC_MAX,
		    8);
		sodium_memzero(text, (size_t)tlen);
	}
	free(raw);
	free(text);
	return rec;
}

static void
hub_drop(void *ctx, const char *plan)
{
	char path[PATH_MAX + 64];

	if (plan_path(ctx, plan, path, sizeof(path)) == 0)
		(void)unlink(path);
}

const struct plan_hub_ops console_hub_ops = {
	.ask = hub_ask,
	.room = hub_room,
	.prepared = hub_prepared,
	.await = hub_await,
	.value = hub_value,
	.forget = hub_forget,
	.save = hub_save,
	.load = hub_load,
	.drop = hub_drop,
};
