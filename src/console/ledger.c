/* The answer ledger (see ledger.h; the format is docs/ledger.md).
 *
 * Every line is "FIELDS CHAIN\n": CHAIN is the lowercase hex SHA-256 of
 * the previous line's chain (32 zero bytes before the first line) and
 * FIELDS. A line is applied to memory only once it is whole, its chain
 * matches and every field is in range, so what memory holds after a
 * refusal is exactly the records before the bad one. */
#include "console/ledger_int.h"
#include "lib/buf.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/paths.h"
#include "lib/str.h"
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
	void *q;

	if (need <= *cap)
		return ptr;
	while (n < need)
		n *= 2;
	q = reallocarray(ptr, n, elem);
	if (q == NULL)
		fatal("out of memory");
	*cap = n;
	return q;
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
static void
entry_id(const struct ledger *l, const char *domain, uid_t uid,
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
static void
key_id(const struct ledger *l, uid_t uid, const char *profile,
    const char *key, uint8_t out[LEDGER_ID_LEN])
{
	char folded[4 * LEDGER_MAX_KEY_BYTES + 1];
	enum ledger_fold f = fold_of(l, profile);

	if (f == LEDGER_FOLD_NONE || ledger_fold_key(f, key, folded,
	    sizeof(folded)) != 0)
		entry_id(l, "key", uid, profile, key, out);
	else
		entry_id(l, "key", uid, profile, folded, out);
}

static void
content_id(const struct ledger *l, uid_t uid, const uint8_t *sha,
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
	*tab = calloc(newcap, sizeof(**tab));
	if (*tab == NULL)
		fatal("out of memory");
	*cap = newcap;
	for (i = 0; i < n; i++) {
		if (keys)
			ktab_insert(l, i);
		else
			ctab_insert(l, i);
	}
	return 1;
}

static struct lkey *
find_id(const struct ledger *l, uid_t uid, const uint8_t *id)
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

	key_id(l, uid, profile, key, id);
	return find_id(l, uid, id);
}

static struct lcontent *
find_content(const struct ledger *l, uid_t uid, const uint8_t *cid)
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
static struct lkey *
add_key(struct ledger *l, uid_t uid, const char *profile, const uint8_t *id,
    const char *name)
{
	struct lkey *k;

	if (l->nkeys >= LEDGER_MAX_KEYS)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (k == NULL || (name != NULL && (k->name = strdup(name)) == NULL))
		fatal("out of memory");
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
static struct lcontent *
add_content(struct ledger *l, uid_t uid, const uint8_t *cid,
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

static void
group_merge(struct group *into, const struct group *g)
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
			group_merge(&old, &k->g[i]);
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
		group_merge(&k->g[a + 1], &k->g[a]);
		memmove(&k->g[a], &k->g[a + 1], (k->ng - a - 1) * sizeof(*k->g));
		k->ng--;
	}
}

static void
key_add_group(struct ledger *l, struct lkey *k, const struct group *g)
{
	k->g = lg_grow(k->g, &k->capg, k->ng + 1, sizeof(*k->g));
	k->g[k->ng++] = *g;
	lg_fold_groups(l, k, lg_now(l));
}

/* One plan at time t: with the old when it is out of the window already,
 * into the latest group when that began at most a span before (or the
 * clock went back), else a group of its own. */
static void
key_add_plan(struct ledger *l, struct lkey *k, long long t, unsigned answers)
{
	struct group g = { t, t, answers, 1 };

	if (k->ng > 0 && t > cutoff(l, lg_now(l))) {
		struct group *last = &k->g[k->ng - 1];
		if (last->last > cutoff(l, lg_now(l)) &&
		    (t <= last->last || t - last->first <= l->span)) {
			group_merge(last, &g);
			lg_fold_groups(l, k, lg_now(l));
			return;
		}
	}
	key_add_group(l, k, &g);
}

static void
key_add_cid(struct lkey *k, const uint8_t *cid)
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
	entry_id(l, "object", uid, profile, object, id);
	k = find_id(l, uid, id);
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
	content_id(l, uid, sha256, out);
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

	content_id(l, uid, sha256, cid);
	c = find_content(l, uid, cid);
	return c == NULL ? -1 : (long)(c - l->contents);
}

int
ledger_key_is(const struct ledger *l, const struct ledger_key_view *v,
    const char *key)
{
	uint8_t id[LEDGER_ID_LEN];

	key_id(l, v->uid, v->profile, key, id);
	return memcmp(id, v->id, LEDGER_ID_LEN) == 0;
}

/* ---- the format ---- */


static void
chain_next(const uint8_t prev[SHA256_LEN], const char *fields, size_t n,
    uint8_t out[SHA256_LEN])
{
	crypto_hash_sha256_state st;

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, prev, SHA256_LEN);
	crypto_hash_sha256_update(&st, (const uint8_t *)fields, n);
	crypto_hash_sha256_final(&st, out);
}

int
lg_emit(struct writer *w, const char *fmt, ...)
{
	char line[LEDGER_MAX_LINE + 1], tail[CHAIN_HEX + 3];
	char kind[2] = { fmt[0], '\0' };
	char head[32];
	enum str_err se;
	va_list ap;
	size_t n;

	/* "K 17 ..." : the kind, the sequence number, then the rest */
	if (str_fmt(head, sizeof(head), "%s %llu", kind, w->seq + 1) != STR_OK)
		return -1;
	va_start(ap, fmt);
	memcpy(line, head, strlen(head) + 1);
	se = str_vfmt(line + strlen(head), sizeof(line) - strlen(head) -
	    CHAIN_HEX - 2, fmt + 1, ap);
	va_end(ap);
	if (se != STR_OK)
		return -1;
	n = strlen(line);
	chain_next(w->chain, line, n, w->chain);
	tail[0] = ' ';
	hex_encode(w->chain, SHA256_LEN, tail + 1);
	tail[CHAIN_HEX + 1] = '\n';
	tail[CHAIN_HEX + 2] = '\0';
	if (buf_append(w->out, line, n) != 0 ||
	    buf_append(w->out, tail, CHAIN_HEX + 2) != 0)
		return -1;
	w->seq++;
	w->lines++;
	return 0;
}

/* Only the digest is written: the file holds no key (docs/ledger.md). */
int
lg_emit_key(struct writer *w, const struct lkey *k, uint32_t id)
{
	char hex[2 * LEDGER_ID_LEN + 1];

	hex_encode(k->id, LEDGER_ID_LEN, hex);
	return lg_emit(w, "K %u %u %s %s", id, (unsigned)k->uid, k->profile, hex);
}

/* ---- parsing ---- */

struct parse {
	struct ledger *l;
	const char *f[MAX_FIELDS];
	size_t nf;
	unsigned long long record;	/* 1-based */
};

static int
num(const char *s, unsigned long long max, unsigned long long *out)
{
	return parse_u64(s, 0, max, out);
}

static int
time_field(const char *s, long long *out)
{
	unsigned long long v;

	if (num(s, (unsigned long long)LEDGER_MAX_TIME, &v) != 0)
		return -1;
	*out = (long long)v;
	return 0;
}

static int
uid_field(const char *s, uid_t *out)
{
	unsigned long long v;

	if (num(s, 0xfffffffeULL, &v) != 0)
		return -1;
	*out = (uid_t)v;
	return 0;
}

static int
sha_field(const char *s, uint8_t out[SHA256_LEN])
{
	return strlen(s) == CHAIN_HEX && is_lower_hex(s, CHAIN_HEX) &&
	    hex_decode(s, out, SHA256_LEN) == 0 ? 0 : -1;
}

/* answers, plans, first, last of a G or C record: one plan at least,
 * each plan one to LEDGER_MAX_ANSWERS answers, first <= last. */
static int
group_fields(const char *const *f, struct group *g)
{
	if (num(f[0], LEDGER_MAX_COUNT, &g->answers) != 0 ||
	    num(f[1], LEDGER_MAX_COUNT, &g->plans) != 0 ||
	    time_field(f[2], &g->first) != 0 || time_field(f[3], &g->last) != 0)
		return -1;
	if (g->plans == 0 || g->answers < g->plans ||
	    g->answers > g->plans * LEDGER_MAX_ANSWERS || g->first > g->last)
		return -1;
	return 0;
}

/* A content field: format 1 has the sha256 (its digest is taken here and
 * the sha256 kept in memory only), format 2 the digest. */
static int
content_field(const struct ledger *l, const char *s, uid_t uid,
    uint8_t cid[LEDGER_ID_LEN], uint8_t sha[SHA256_LEN], int *known)
{
	if (sha_field(s, sha) != 0)
		return -1;
	*known = l->version == 1;
	if (*known)
		content_id(l, uid, sha, cid);
	else
		memcpy(cid, sha, LEDGER_ID_LEN);
	return 0;
}

/* A K record's entry: format 1 names the key (hex), format 2 its digest. */
static enum ledger_err
apply_key(struct parse *ps, const char **why)
{
	struct ledger *l = ps->l;
	const char *const *f = ps->f;
	char key[LEDGER_MAX_KEY_BYTES + 1];
	uint8_t id[LEDGER_ID_LEN];
	size_t hl = ps->nf == 6 ? strlen(f[5]) : 0;
	unsigned long long n;
	struct lkey *k;
	uid_t uid;

	if (ps->nf != 6 || parse_u64(f[2], 1, LEDGER_MAX_KEYS, &n) != 0 ||
	    n != l->nbyid + 1 || uid_field(f[3], &uid) != 0 ||
	    !name_is_profile(f[4]) || hl == 0 || hl % 2 != 0 ||
	    hl > 2 * LEDGER_MAX_KEY_BYTES || !is_lower_hex(f[5], hl))
		return LEDGER_E_DAMAGED;
	if (l->version == 1) {
		if (hex_decode(f[5], (uint8_t *)key, hl / 2) != 0)
			return LEDGER_E_DAMAGED;
		key[hl / 2] = '\0';
		if (strlen(key) != hl / 2) {
			*why = "a key holds a NUL byte";
			return LEDGER_E_DAMAGED;
		}
		key_id(l, uid, f[4], key, id);
	} else if (hl != 2 * LEDGER_ID_LEN || hex_decode(f[5], id,
	    LEDGER_ID_LEN) != 0) {
		return LEDGER_E_DAMAGED;
	}
	k = find_id(l, uid, id);
	if (k != NULL && k->fileid != 0) {
		*why = "a key is named twice";
		return LEDGER_E_DAMAGED;
	}
	if (k == NULL && (k = add_key(l, uid, f[4], id, l->version == 1 ?
	    key : NULL)) == NULL) {
		*why = "more keys than the ledger holds";
		return LEDGER_E_FULL;
	}
	l->byid = lg_grow(l->byid, &l->capbyid, l->nbyid + 1, sizeof(*l->byid));
	l->byid[l->nbyid++] = k;
	k->fileid = (uint32_t)l->nbyid;
	return LEDGER_OK;
}

static struct lkey *
by_id(const struct ledger *l, const char *s)
{
	unsigned long long id;

	if (parse_u64(s, 1, l->nbyid, &id) != 0)
		return NULL;
	return l->byid[id - 1];
}

/* The meaning of one whole, chained line's fields; -1 refuses it. */
static enum ledger_err
apply(struct parse *ps, const char **why)
{
	struct ledger *l = ps->l;
	const char *const *f = ps->f;
	char kind = f[0][0];
	struct group g;
	struct lkey *k;
	uint8_t sha[SHA256_LEN], cid[LEDGER_ID_LEN];
	unsigned long long v;
	uid_t uid;
	int known;

	*why = "a field is out of its form or range";
	if (kind == 'L') {
		if (ps->record != 1 || ps->nf < 4 || strcmp(f[2], MAGIC) != 0) {
			*why = "the first record is not a ledger header";
			return LEDGER_E_DAMAGED;
		}
		if (num(f[3], 1000000, &v) != 0 || v < 1 || v > LEDGER_VERSION) {
			*why = "another format version";
			return LEDGER_E_VERSION;
		}
		l->version = (unsigned)v;
		return ps->nf == 5 && time_field(f[4], &l->created) == 0 ?
		    LEDGER_OK : LEDGER_E_DAMAGED;
	}
	if (ps->record == 1) {
		*why = "the first record is not a ledger header";
		return LEDGER_E_DAMAGED;
	}
	switch (kind) {
	case 'K':
		return apply_key(ps, why);
	case 'G':
		if (ps->nf != 7 || l->seen_plan || (k = by_id(l, f[2])) == NULL ||
		    group_fields(f + 3, &g) != 0)
			return LEDGER_E_DAMAGED;
		key_add_group(l, k, &g);
		return LEDGER_OK;
	case 'S':
		if (ps->nf != 4 || l->seen_plan || (k = by_id(l, f[2])) == NULL ||
		    content_field(l, f[3], k->uid, cid, sha, &known) != 0)
			return LEDGER_E_DAMAGED;
		key_add_cid(k, cid);
		return LEDGER_OK;
	case 'C': {
		struct lcontent *c;
		if (ps->nf != 8 || l->seen_plan || uid_field(f[2], &uid) != 0 ||
		    content_field(l, f[3], uid, cid, sha, &known) != 0 ||
		    group_fields(f + 4, &g) != 0)
			return LEDGER_E_DAMAGED;
		if (find_content(l, uid, cid) != NULL) {
			*why = "a content is named twice";
			return LEDGER_E_DAMAGED;
		}
		if ((c = add_content(l, uid, cid, known ? sha : NULL)) == NULL) {
			*why = "more contents than the ledger holds";
			return LEDGER_E_FULL;
		}
		c->t = g;
		return LEDGER_OK;
	}
	case 'P': {
		long long t;
		int has_sha = ps->nf == 6 && strcmp(f[4], "-") != 0;
		if (ps->nf != 6 || time_field(f[2], &t) != 0 ||
		    (k = by_id(l, f[3])) == NULL ||
		    (has_sha && content_field(l, f[4], k->uid, cid, sha,
		    &known) != 0) ||
		    parse_u64(f[5], 1, LEDGER_MAX_ANSWERS, &v) != 0)
			return LEDGER_E_DAMAGED;
		if (has_sha) {
			struct lcontent *c = find_content(l, k->uid, cid);
			struct group one = { t, t, v, 1 };
			if (c == NULL && (c = add_content(l, k->uid, cid,
			    known ? sha : NULL)) == NULL) {
				*why = "more contents than the ledger holds";
				return LEDGER_E_FULL;
			}
			group_merge(&c->t, &one);
			key_add_cid(k, cid);
		}
		key_add_plan(l, k, t, (unsigned)v);
		l->seen_plan = 1;
		return LEDGER_OK;
	}
	default:
		*why = "a record of an unknown kind";
		return LEDGER_E_DAMAGED;
	}
}

/* Split FIELDS at single spaces: no empty field, printable ASCII only. */
static int
split(struct parse *ps, char *s)
{
	char *p = s;

	ps->nf = 0;
	for (;;) {
		char *start = p;
		while (*p > ' ' && *p < 0x7f)
			p++;
		if (p == start || ps->nf == MAX_FIELDS)
			return -1;
		ps->f[ps->nf++] = start;
		if (*p == '\0')
			break;
		if (*p != ' ')
			return -1;
		*p++ = '\0';
	}
	/* a kind is one letter; the sequence number comes second */
	return ps->nf >= 2 && strlen(ps->f[0]) == 1 ? 0 : -1;
}

enum ledger_err
lg_parse_all(struct ledger *l, const uint8_t *data, size_t len,
    struct ledger_problem *p)
{
	struct parse ps;
	size_t off = 0;
	char line[LEDGER_MAX_LINE + 1];

	memset(&ps, 0, sizeof(ps));
	ps.l = l;
	memset(l->chain, 0, sizeof(l->chain));
	while (off < len) {
		const uint8_t *nl = memchr(data + off, '\n',
		    len - off < LEDGER_MAX_LINE ? len - off : LEDGER_MAX_LINE);
		size_t n, body;
		uint8_t want[SHA256_LEN], got[SHA256_LEN];
		unsigned long long seq;
		enum ledger_err e;
		const char *why = NULL;

		ps.record++;
		if (p != NULL) {
			p->record = ps.record;
			p->offset = off;
			p->good_bytes = off;
			p->good_records = ps.record - 1;
		}
		if (nl == NULL) {
			if (len - off < LEDGER_MAX_LINE) {
				lg_problem(p, LEDGER_E_TORN, "record %llu (at byte %zu), "
				    "the last, is incomplete: %zu bytes without an end "
				    "of line", ps.record, off, len - off);
				return LEDGER_E_TORN;
			}
			lg_problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
			    "is longer than any record", ps.record, off);
			return LEDGER_E_DAMAGED;
		}
		n = (size_t)(nl - (data + off));
		if (n < CHAIN_HEX + 2 || data[off + n - CHAIN_HEX - 1] != ' ') {
			lg_problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
			    "has no checksum", ps.record, off);
			return LEDGER_E_DAMAGED;
		}
		body = n - CHAIN_HEX - 1;
		memcpy(line, data + off, n);
		line[n] = '\0';
		chain_next(l->chain, line, body, want);
		if (!is_lower_hex(line + body + 1, CHAIN_HEX) ||
		    hex_decode(line + body + 1, got, SHA256_LEN) != 0 ||
		    !ct_equal(want, got, SHA256_LEN)) {
			lg_problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
			    "fails its checksum", ps.record, off);
			return LEDGER_E_DAMAGED;
		}
		line[body] = '\0';
		if (memchr(line, '\0', body) != NULL || split(&ps, line) != 0 ||
		    parse_u64(ps.f[1], 1, LEDGER_MAX_COUNT, &seq) != 0 ||
		    (ps.record > 1 && seq != l->seq + 1)) {
			lg_problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
			    "is not in the ledger's form", ps.record, off);
			return LEDGER_E_DAMAGED;
		}
		e = apply(&ps, &why);
		if (e != LEDGER_OK) {
			lg_problem(p, e, "record %llu (at byte %zu): %s", ps.record,
			    off, why);
			return e;
		}
		memcpy(l->chain, want, SHA256_LEN);
		l->seq = seq;
		l->records++;
		/* from the first plan on, what was appended since the
		 * generation was written */
		if (l->seen_plan)
			l->appended++;
		else
			l->compacted++;
		off += n + 1;
		l->bytes = off;
	}
	if (l->records == 0) {
		lg_problem(p, LEDGER_E_DAMAGED, "the ledger is empty (no header)");
		return LEDGER_E_DAMAGED;
	}
	return LEDGER_OK;
}

struct ledger *
lg_new(const struct ledger_clock *clk, unsigned long long window_s)
{
	struct ledger *l = calloc(1, sizeof(*l));

	if (l == NULL || sodium_init() < 0)
		fatal("out of memory");
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

enum ledger_err
ledger_parse(struct ledger **out, const uint8_t *data, size_t len,
    const struct ledger_clock *clk, unsigned long long window_s,
    struct ledger_problem *p)
{
	struct ledger *l = lg_new(clk, window_s);

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	*out = l;
	if (len > LEDGER_MAX_BYTES) {
		lg_problem(p, LEDGER_E_FULL, "the ledger is larger than %llu bytes",
		    LEDGER_MAX_BYTES);
		return LEDGER_E_FULL;
	}
	return lg_parse_all(l, data, len, p);
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

/* The entry for id: found, or made (*made counts the new ones, dropped
 * again if the write fails). */
static struct lkey *
entry_for(struct ledger *l, uid_t uid, const char *profile,
    const uint8_t *id, const char *name, size_t *made)
{
	struct lkey *k = find_id(l, uid, id);

	if (k == NULL && (k = add_key(l, uid, profile, id, name)) != NULL)
		(*made)++;
	return k;
}

/* The P line of one entry, its K line first when it is new to the file
 * (ids are given in order: next is the next free one). */
static int
emit_plan(struct writer *w, const struct lkey *k, uint32_t *next,
    long long t, const char *cid, unsigned answers)
{
	uint32_t id = k->fileid;

	if (id == 0) {
		id = ++*next;
		if (lg_emit_key(w, k, id) != 0)
			return -1;
	}
	return lg_emit(w, "P %lld %u %s %u", t, id, cid, answers);
}

static void
adopt_fileid(struct ledger *l, struct lkey *k)
{
	if (k->fileid != 0)
		return;
	l->byid = lg_grow(l->byid, &l->capbyid, l->nbyid + 1, sizeof(*l->byid));
	l->byid[l->nbyid++] = k;
	k->fileid = (uint32_t)l->nbyid;
}

static void
drop_new_entries(struct ledger *l, size_t made)
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

enum ledger_err
ledger_record(struct ledger *l, uid_t uid, const char *profile,
    const char *key, const char *object, const uint8_t *sha256,
    unsigned answers, struct ledger_problem *p)
{
	struct lkey *k, *o = NULL;
	struct writer w;
	long long t = lg_now(l);
	enum ledger_err e = LEDGER_OK;
	uint8_t kid[LEDGER_ID_LEN], oid[LEDGER_ID_LEN], cid[LEDGER_ID_LEN];
	char hex[2 * LEDGER_ID_LEN + 1] = "-";	/* no content read */
	uint32_t next = (uint32_t)l->nbyid;
	size_t made = 0;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	if (l->broken || l->fd < 0) {
		lg_problem(p, LEDGER_E_BROKEN, "an earlier ledger write failed");
		return LEDGER_E_BROKEN;
	}
	if (answers < 1 || answers > LEDGER_MAX_ANSWERS ||
	    !name_is_profile(profile) || strlen(key) == 0 ||
	    strlen(key) > LEDGER_MAX_KEY_BYTES ||
	    (object != NULL && strlen(object) > LEDGER_MAX_KEY_BYTES)) {
		lg_problem(p, LEDGER_E_FULL, "a plan outside the ledger's limits");
		return LEDGER_E_FULL;
	}
	if (sha256 != NULL)
		content_id(l, uid, sha256, cid);
	if (sha256 != NULL && find_content(l, uid, cid) == NULL &&
	    l->ncontents >= LEDGER_MAX_CONTENTS) {
		lg_problem(p, LEDGER_E_FULL, "more contents than the ledger holds");
		return LEDGER_E_FULL;
	}
	key_id(l, uid, profile, key, kid);
	k = entry_for(l, uid, profile, kid, key, &made);
	if (k != NULL && object != NULL && object[0] != '\0') {
		entry_id(l, "object", uid, profile, object, oid);
		if ((o = entry_for(l, uid, profile, oid, NULL, &made)) == NULL)
			k = NULL;
	}
	if (k == NULL) {
		drop_new_entries(l, made);
		lg_problem(p, LEDGER_E_FULL, "more keys than the ledger holds");
		return LEDGER_E_FULL;
	}
	memset(&w, 0, sizeof(w));
	memcpy(w.chain, l->chain, SHA256_LEN);
	w.seq = l->seq;
	w.out = buf_new(4 * LEDGER_MAX_LINE + 16);
	if (w.out == NULL)
		fatal("out of memory");
	if (sha256 != NULL)
		hex_encode(cid, LEDGER_ID_LEN, hex);
	/* The object's line carries no content: the content totals count a
	 * plan once. */
	if (emit_plan(&w, k, &next, t, hex, answers) != 0 ||
	    (o != NULL && emit_plan(&w, o, &next, t, "-", answers) != 0)) {
		lg_problem(p, LEDGER_E_FULL, "a record does not fit");
		e = LEDGER_E_FULL;
		goto out;
	}
	if ((e = lg_append(l, w.out, p)) != LEDGER_OK)
		goto out;
	/* Written: memory follows. */
	adopt_fileid(l, k);
	if (o != NULL)
		adopt_fileid(l, o);
	if (sha256 != NULL) {
		struct lcontent *c = find_content(l, uid, cid);
		struct group one = { t, t, answers, 1 };
		if (c == NULL)
			c = add_content(l, uid, cid, sha256);
		group_merge(&c->t, &one);
		key_add_cid(k, cid);
	}
	key_add_plan(l, k, t, answers);
	if (o != NULL)
		key_add_plan(l, o, t, answers);
	memcpy(l->chain, w.chain, SHA256_LEN);
	l->seq = w.seq;
	l->records += w.lines;
	l->appended += w.lines;
	l->bytes += buf_len(w.out);
	made = 0;
out:
	if (made > 0)
		drop_new_entries(l, made);
	buf_free(w.out);
	return e;
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
