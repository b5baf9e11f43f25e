/* The answer ledger in memory (see ledger.h; docs/ledger.md): the keyed
 * digests and the entries' tables, the groups and the window, recording a
 * plan, and the views the audit reads. The line format is
 * ledger_format.c, the files ledger_io.c. */
#include "console/ledger_int.h"
#include "lib/buf.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/paths.h"
#include "lib/str.h"
#include "lib/xmalloc.h"
#include "protocol/shape.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

/* ---- small helpers ---- */

void
lg_problem(struct ledger_problem *p, enum ledger_err e, const char *fmt, ...)
{
	va_list ap;

	if (p == NULL)
		return;
	p->err = e;
	va_start(ap, fmt);
	str_vmsg(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
}

void *
lg_grow(void *ptr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return ptr;
	while (n < need)
		n *= 2;
	ptr = xreallocarray(ptr, n, elem);
	*cap = n;
	return ptr;
}

long long
lg_now(const struct ledger *l)
{
	long long t = l->clk.now_s(l->clk.ctx);

	/* within what the reader accepts: a record is never unreadable */
	return t < 0 ? 0 : t > LEDGER_MAX_TIME ? LEDGER_MAX_TIME : t;
}

long long
ledger_clock_real(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		fatal_errno("clock_gettime");
	return (long long)ts.tv_sec;
}

const char *
ledger_err_name(enum ledger_err e)
{
	switch (e) {
	case LEDGER_OK: return "ok";
	case LEDGER_E_IO: return "io";
	case LEDGER_E_UNSAFE: return "unsafe";
	case LEDGER_E_BUSY: return "busy";
	case LEDGER_E_TORN: return "torn";
	case LEDGER_E_DAMAGED: return "damaged";
	case LEDGER_E_VERSION: return "version";
	case LEDGER_E_FULL: return "full";
	case LEDGER_E_BROKEN: return "broken";
	case LEDGER_E_KEY: return "key";
	}
	return "unknown";
}

/* ---- digests and the entries' hash tables ---- */

static void
put_uid(crypto_generichash_state *st, uid_t uid)
{
	uint8_t u[4] = { (uint8_t)uid, (uint8_t)(uid >> 8), (uint8_t)(uid >> 16),
	    (uint8_t)(uid >> 24) };

	crypto_generichash_update(st, u, sizeof(u));
}

/* An entry's digest: BLAKE2b under the ledger's secret, of a domain
 * (a key or an object), the uid, the profile and the text. */
void
lg_entry_id(const struct ledger *l, const char *domain, uid_t uid,
    const char *profile, const char *text, uint8_t out[LEDGER_ID_LEN])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, l->secret, sizeof(l->secret),
	    LEDGER_ID_LEN);
	crypto_generichash_update(&st, (const uint8_t *)domain,
	    strlen(domain) + 1);
	put_uid(&st, uid);
	crypto_generichash_update(&st, (const uint8_t *)profile,
	    strlen(profile) + 1);
	crypto_generichash_update(&st, (const uint8_t *)text, strlen(text));
	crypto_generichash_final(&st, out, LEDGER_ID_LEN);
}

static enum ledger_fold
fold_of(const struct ledger *l, const char *profile)
{
	size_t i;

	for (i = 0; i < l->nfolds; i++)
		if (strcmp(l->folds[i].profile, profile) == 0)
			return l->folds[i].f;
	return LEDGER_FOLD_NONE;
}

/* A key's digest, on its folded form (a key that does not fold, which
 * ledger_fold_key refuses only past its buffer, counts as typed). */
void
lg_key_id(const struct ledger *l, uid_t uid, const char *profile,
    const char *key, uint8_t out[LEDGER_ID_LEN])
{
	char folded[4 * LEDGER_MAX_KEY_BYTES + 1];
	enum ledger_fold f = fold_of(l, profile);

	if (f == LEDGER_FOLD_NONE || ledger_fold_key(f, key, folded,
	    sizeof(folded)) != 0)
		lg_entry_id(l, "key", uid, profile, key, out);
	else
		lg_entry_id(l, "key", uid, profile, folded, out);
}

void
lg_content_id(const struct ledger *l, uid_t uid, const uint8_t *sha,
    uint8_t out[LEDGER_ID_LEN])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, l->secret, sizeof(l->secret),
	    LEDGER_ID_LEN);
	crypto_generichash_update(&st, (const uint8_t *)"content", 8);
	put_uid(&st, uid);
	crypto_generichash_update(&st, sha, SHA256_LEN);
	crypto_generichash_final(&st, out, LEDGER_ID_LEN);
}

/* The digests are keyed already: their first bytes index the tables
 * (keys come from agents; the secret keeps them from aiming at one
 * bucket). */
static uint64_t
id_hash(const uint8_t *id)
{
	uint64_t v;

	memcpy(&v, id, sizeof(v));
	return v;
}

static void
ktab_insert(struct ledger *l, size_t idx)
{
	const struct lkey *k = l->keys[idx];
	size_t i = id_hash(k->id) & (l->ktabcap - 1);

	while (l->ktab[i] != 0)
		i = (i + 1) & (l->ktabcap - 1);
	l->ktab[i] = (uint32_t)(idx + 1);
}

static void
ctab_insert(struct ledger *l, size_t idx)
{
	const struct lcontent *c = &l->contents[idx];
	size_t i = id_hash(c->id) & (l->ctabcap - 1);

	while (l->ctab[i] != 0)
		i = (i + 1) & (l->ctabcap - 1);
	l->ctab[i] = (uint32_t)(idx + 1);
}

/* Keep the tables at most half full: 1 when the table was rebuilt (with
 * every entry, the newest included). */
static int
rehash(struct ledger *l, int keys)
{
	size_t n = keys ? l->nkeys : l->ncontents;
	size_t *cap = keys ? &l->ktabcap : &l->ctabcap;
	uint32_t **tab = keys ? &l->ktab : &l->ctab;
	size_t i, newcap = *cap ? *cap : 64;

	if (n * 2 <= *cap)
		return 0;
	while (n * 2 > newcap)
		newcap *= 2;
	free(*tab);
	*tab = xcalloc(newcap, sizeof(**tab));
	*cap = newcap;
	for (i = 0; i < n; i++) {
		if (keys)
			ktab_insert(l, i);
		else
			ctab_insert(l, i);
	}
	return 1;
}

struct lkey *
lg_find_id(const struct ledger *l, uid_t uid, const uint8_t *id)
{
	size_t i;

	if (l->ktabcap == 0)
		return NULL;
	i = id_hash(id) & (l->ktabcap - 1);
	for (; l->ktab[i] != 0; i = (i + 1) & (l->ktabcap - 1)) {
		struct lkey *k = l->keys[l->ktab[i] - 1];
		if (k->uid == uid && memcmp(k->id, id, LEDGER_ID_LEN) == 0)
			return k;
	}
	return NULL;
}

static struct lkey *
find_key(const struct ledger *l, uid_t uid, const char *profile,
    const char *key)
{
	uint8_t id[LEDGER_ID_LEN];

	lg_key_id(l, uid, profile, key, id);
	return lg_find_id(l, uid, id);
}

struct lcontent *
lg_find_content(const struct ledger *l, uid_t uid, const uint8_t *cid)
{
	size_t i;

	if (l->ctabcap == 0)
		return NULL;
	i = id_hash(cid) & (l->ctabcap - 1);
	for (; l->ctab[i] != 0; i = (i + 1) & (l->ctabcap - 1)) {
		struct lcontent *c = &l->contents[l->ctab[i] - 1];
		if (c->uid == uid && memcmp(c->id, cid, LEDGER_ID_LEN) == 0)
			return c;
	}
	return NULL;
}

/* name: the key's text when known (never written), or NULL. */
struct lkey *
lg_add_key(struct ledger *l, uid_t uid, const char *profile, const uint8_t *id,
    const char *name)
{
	struct lkey *k;

	if (l->nkeys >= LEDGER_MAX_KEYS)
		return NULL;
	k = xcalloc(1, sizeof(*k));
	if (name != NULL)
		k->name = xstrdup(name);
	k->uid = uid;
	memcpy(k->profile, profile, strlen(profile) + 1);
	memcpy(k->id, id, LEDGER_ID_LEN);
	l->keys = lg_grow(l->keys, &l->capkeys, l->nkeys + 1, sizeof(*l->keys));
	k->idx = l->nkeys;
	l->keys[l->nkeys++] = k;
	if (!rehash(l, 1))
		ktab_insert(l, l->nkeys - 1);
	return k;
}

/* sha: the sha256 when known (a format-1 file, a plan now), or NULL. */
struct lcontent *
lg_add_content(struct ledger *l, uid_t uid, const uint8_t *cid,
    const uint8_t *sha)
{
	struct lcontent *c;

	if (l->ncontents >= LEDGER_MAX_CONTENTS)
		return NULL;
	l->contents = lg_grow(l->contents, &l->capcontents, l->ncontents + 1,
	    sizeof(*l->contents));
	c = &l->contents[l->ncontents++];
	memset(c, 0, sizeof(*c));
	c->uid = uid;
	memcpy(c->id, cid, LEDGER_ID_LEN);
	if (sha != NULL) {
		memcpy(c->sha, sha, SHA256_LEN);
		c->sha_known = 1;
	}
	if (!rehash(l, 0))
		ctab_insert(l, l->ncontents - 1);
	return c;
}

/* ---- groups and the window ---- */

void
lg_group_merge(struct group *into, const struct group *g)
{
	if (into->plans == 0) {
		*into = *g;
		return;
	}
	if (g->first < into->first)
		into->first = g->first;
	if (g->last > into->last)
		into->last = g->last;
	into->answers += g->answers;
	into->plans += g->plans;
}

/* The oldest instant still inside the window. A group counts while its
 * latest plan is after it: whole, so a group that began before the
 * window still counts (conservative; docs/ledger.md, "The window"). */
static long long
cutoff(const struct ledger *l, long long t)
{
	return t - (long long)l->window_s;
}

/* Groups wholly out of the window become one (the first); what stays
 * in it keeps its order. Past LEDGER_MAX_GROUPS (a clock set back and
 * forth), the two oldest in the window are merged: again only more is
 * counted, never less. */
void
lg_fold_groups(struct ledger *l, struct lkey *k, long long t)
{
	long long cut = cutoff(l, t);
	struct group old;
	size_t i, n = 0;

	memset(&old, 0, sizeof(old));
	for (i = 0; i < k->ng; i++)
		if (k->g[i].last <= cut)
			lg_group_merge(&old, &k->g[i]);
	for (i = 0; i < k->ng; i++)	/* n <= i: nothing unread is written */
		if (k->g[i].last > cut)
			k->g[n++] = k->g[i];
	if (old.plans > 0) {
		/* at least one group went into it: there is room for it */
		memmove(&k->g[1], &k->g[0], n * sizeof(*k->g));
		k->g[0] = old;
		n++;
	}
	k->ng = n;
	while (k->ng > LEDGER_MAX_GROUPS) {
		size_t a = old.plans > 0 ? 1 : 0;
		lg_group_merge(&k->g[a + 1], &k->g[a]);
		memmove(&k->g[a], &k->g[a + 1], (k->ng - a - 1) * sizeof(*k->g));
		k->ng--;
	}
}

void
lg_key_add_group(struct ledger *l, struct lkey *k, const struct group *g)
{
	k->g = lg_grow(k->g, &k->capg, k->ng + 1, sizeof(*k->g));
	k->g[k->ng++] = *g;
	lg_fold_groups(l, k, lg_now(l));
}

/* One plan at time t: with the old when it is out of the window already,
 * into the latest group when that began at most a span before (or the
 * clock went back), else a group of its own. */
void
lg_key_add_plan(struct ledger *l, struct lkey *k, long long t, unsigned answers)
{
	struct group g = { t, t, answers, 1 };

	if (k->ng > 0 && t > cutoff(l, lg_now(l))) {
		struct group *last = &k->g[k->ng - 1];
		if (last->last > cutoff(l, lg_now(l)) &&
		    (t <= last->last || t - last->first <= l->span)) {
			lg_group_merge(last, &g);
			lg_fold_groups(l, k, lg_now(l));
			return;
		}
	}
	lg_key_add_group(l, k, &g);
}

void
lg_key_add_cid(struct lkey *k, const uint8_t *cid)
{
	size_t i;

	for (i = 0; i < k->ncids; i++)
		if (memcmp(k->cids[i], cid, LEDGER_ID_LEN) == 0)
			break;
	if (i == k->ncids && k->ncids == LEDGER_KEY_SHAS)
		i = 0;		/* the oldest goes */
	if (i < k->ncids) {
		memmove(k->cids[i], k->cids[i + 1], (k->ncids - i - 1) *
		    LEDGER_ID_LEN);
		k->ncids--;
	}
	memcpy(k->cids[k->ncids++], cid, LEDGER_ID_LEN);
}

static void
usage_of(const struct ledger *l, const struct lkey *k, int window,
    struct ledger_usage *u)
{
	long long cut = cutoff(l, lg_now(l));
	size_t i;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < k->ng; i++) {
		const struct group *g = &k->g[i];
		if (window && g->last <= cut)
			continue;
		if (u->plans == 0 || g->first < u->first)
			u->first = g->first;
		if (u->plans == 0 || g->last > u->last)
			u->last = g->last;
		u->answers += g->answers;
		u->plans += g->plans;
	}
}

void
ledger_window_usage(const struct ledger *l, uid_t uid, const char *profile,
    const char *key, struct ledger_usage *u)
{
	const struct lkey *k = find_key(l, uid, profile, key);

	memset(u, 0, sizeof(*u));
	if (k != NULL)
		usage_of(l, k, 1, u);
}

int
ledger_would_pass(const struct ledger *l, uid_t uid, const char *profile,
    const char *key, unsigned answers, unsigned long long cap)
{
	struct ledger_usage u;

	ledger_window_usage(l, uid, profile, key, &u);
	return u.answers > cap || answers > cap - u.answers;
}

void
ledger_object_usage(const struct ledger *l, uid_t uid, const char *profile,
    const char *object, struct ledger_usage *u)
{
	uint8_t id[LEDGER_ID_LEN];
	const struct lkey *k;

	memset(u, 0, sizeof(*u));
	lg_entry_id(l, "object", uid, profile, object, id);
	k = lg_find_id(l, uid, id);
	if (k != NULL)
		usage_of(l, k, 1, u);
}

int
ledger_object_would_pass(const struct ledger *l, uid_t uid,
    const char *profile, const char *object, unsigned answers,
    unsigned long long cap)
{
	struct ledger_usage u;

	ledger_object_usage(l, uid, profile, object, &u);
	return u.answers > cap || answers > cap - u.answers;
}

int
ledger_set_fold(struct ledger *l, const char *profile, enum ledger_fold f)
{
	size_t i;

	if (strlen(profile) > LEDGER_MAX_PROFILE)
		return -1;
	for (i = 0; i < l->nfolds; i++)
		if (strcmp(l->folds[i].profile, profile) == 0)
			break;
	if (i == l->nfolds) {
		if (l->nfolds == MAX_FOLDS)
			return -1;
		l->nfolds++;
	}
	memcpy(l->folds[i].profile, profile, strlen(profile) + 1);
	l->folds[i].f = f;
	return 0;
}

void
ledger_content_id(const struct ledger *l, uid_t uid, const uint8_t *sha256,
    uint8_t out[LEDGER_ID_LEN])
{
	lg_content_id(l, uid, sha256, out);
}

long
ledger_key_index(const struct ledger *l, uid_t uid, const char *profile,
    const char *key)
{
	const struct lkey *k = find_key(l, uid, profile, key);

	return k == NULL ? -1 : (long)k->idx;
}

long
ledger_content_index(const struct ledger *l, uid_t uid,
    const uint8_t *sha256)
{
	uint8_t cid[LEDGER_ID_LEN];
	const struct lcontent *c;

	lg_content_id(l, uid, sha256, cid);
	c = lg_find_content(l, uid, cid);
	return c == NULL ? -1 : (long)(c - l->contents);
}

int
ledger_key_is(const struct ledger *l, const struct ledger_key_view *v,
    const char *key)
{
	uint8_t id[LEDGER_ID_LEN];

	lg_key_id(l, v->uid, v->profile, key, id);
	return memcmp(id, v->id, LEDGER_ID_LEN) == 0;
}

/* ---- the ledger made and freed ---- */

struct ledger *
lg_new(const struct ledger_clock *clk, unsigned long long window_s)
{
	struct ledger *l = xcalloc(1, sizeof(*l));

	if (sodium_init() < 0)
		fatal("libsodium cannot be initialised");
	l->dirfd = l->fd = -1;
	l->clk = *clk;
	l->window_s = window_s;
	l->span = (long long)(window_s / LEDGER_GROUPS_PER_WINDOW);
	if (l->span < 1)
		l->span = 1;
	/* the secret stays zero for ledger_parse (the fuzzer): ledger_open
	 * and ledger_read read or make the real one */
	l->version = LEDGER_VERSION;
	return l;
}

void
ledger_close(struct ledger *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nkeys; i++) {
		free(l->keys[i]->name);
		free(l->keys[i]->g);
		free(l->keys[i]);
	}
	free(l->keys);
	free(l->contents);
	free(l->ktab);
	free(l->ctab);
	free(l->byid);
	if (l->fd >= 0)
		close(l->fd);
	if (l->dirfd >= 0)
		close(l->dirfd);	/* releases the flock */
	sodium_memzero(l->secret, sizeof(l->secret));
	free(l);
}

/* k gets the next id of this file once its K line is written */
void
lg_adopt_fileid(struct ledger *l, struct lkey *k)
{
	if (k->fileid != 0)
		return;
	l->byid = lg_grow(l->byid, &l->capbyid, l->nbyid + 1, sizeof(*l->byid));
	l->byid[l->nbyid++] = k;
	k->fileid = (uint32_t)l->nbyid;
}

/* The newest made entries dropped again (their write failed). */
void
lg_drop_new_keys(struct ledger *l, size_t made)
{
	size_t i;

	while (made-- > 0) {
		struct lkey *k = l->keys[--l->nkeys];
		free(k->name);
		free(k->g);
		free(k);
	}
	memset(l->ktab, 0, l->ktabcap * sizeof(*l->ktab));
	for (i = 0; i < l->nkeys; i++)
		ktab_insert(l, i);
}

void
ledger_get_stats(const struct ledger *l, struct ledger_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->records = l->records;
	st->bytes = l->bytes;
	st->appended = l->appended;
	st->seq = l->seq;
	st->created = l->created;
	st->keys = l->nkeys;
	st->contents = l->ncontents;
}

size_t
ledger_nkeys(const struct ledger *l)
{
	return l->nkeys;
}

void
ledger_key_at(const struct ledger *l, size_t i, struct ledger_key_view *v)
{
	const struct lkey *k = l->keys[i];

	memset(v, 0, sizeof(*v));
	v->uid = k->uid;
	v->profile = k->profile;
	v->key = k->name;
	v->id = k->id;
	usage_of(l, k, 0, &v->total);
	usage_of(l, k, 1, &v->window);
	v->ncids = k->ncids;
	v->cids = (const uint8_t (*)[LEDGER_ID_LEN])k->cids;
}

size_t
ledger_ncontents(const struct ledger *l)
{
	return l->ncontents;
}

void
ledger_content_at(const struct ledger *l, size_t i,
    struct ledger_content_view *v)
{
	const struct lcontent *c = &l->contents[i];

	memset(v, 0, sizeof(*v));
	v->uid = c->uid;
	v->id = c->id;
	v->sha256 = c->sha_known ? c->sha : NULL;
	v->total.answers = c->t.answers;
	v->total.plans = c->t.plans;
	v->total.first = c->t.first;
	v->total.last = c->t.last;
}

static void
duration(unsigned long long s, char *out, size_t outlen)
{
	if (s % 86400 == 0)
		str_msg(out, outlen, "%llu d", s / 86400);
	else if (s % 3600 == 0)
		str_msg(out, outlen, "%llu h", s / 3600);
	else if (s % 60 == 0)
		str_msg(out, outlen, "%llu min", s / 60);
	else
		str_msg(out, outlen, "%llu s", s);
}

size_t
ledger_screen(const struct ledger_usage *u, uid_t uid, unsigned long long cap,
    unsigned long long window_s, struct ledger_screen_line *out, size_t max)
{
	unsigned long long v[LEDGER_SCREEN_LINES] = { u->answers, u->plans, cap,
	    window_s };
	char win[32];
	size_t i, n = max < LEDGER_SCREEN_LINES ? max : LEDGER_SCREEN_LINES;

	duration(window_s, win, sizeof(win));
	for (i = 0; i < n; i++) {
		char *lb = out[i].label;
		size_t ll = sizeof(out[i].label);
		switch (i) {
		case 0:
			str_msg(lb, ll, "answers to uid %u on this key in the window",
			    (unsigned)uid);
			break;
		case 1:
			str_msg(lb, ll, "plans of uid %u on this key in the window",
			    (unsigned)uid);
			break;
		case 2:
			str_msg(lb, ll, "answer cap of uid %u on this key",
			    (unsigned)uid);
			break;
		default:
			str_msg(lb, ll, "window in seconds (%s)", win);
			break;
		}
		out[i].count = v[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)v[i];
	}
	return n;
}

void
ledger_usage_line(const struct ledger_usage *u, uid_t uid,
    unsigned long long cap, unsigned long long window_s, char *out,
    size_t outlen)
{
	char win[32], since[32] = "";
	time_t t = (time_t)u->first;
	struct tm tm;

	duration(window_s, win, sizeof(win));
	if (u->plans == 0) {
		str_msg(out, outlen, "this key: no answers to uid %u in the last "
		    "%s, cap %llu", (unsigned)uid, win, cap);
		return;
	}
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(since, sizeof(since), "%Y-%m-%d %H:%M UTC", &tm) == 0)
		str_msg(since, sizeof(since), "?");
	str_msg(out, outlen, "this key: %llu answer%s to uid %u in %llu plan%s "
	    "since %s, cap %llu per %s", u->answers, u->answers == 1 ? "" : "s",
	    (unsigned)uid, u->plans, u->plans == 1 ? "" : "s", since, cap, win);
}
