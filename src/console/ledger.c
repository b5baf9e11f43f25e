/* The answer ledger (see ledger.h; the format is docs/ledger.md).
 *
 * Every line is "FIELDS CHAIN\n": CHAIN is the lowercase hex SHA-256 of
 * the previous line's chain (32 zero bytes before the first line) and
 * FIELDS. A line is applied to memory only once it is whole, its chain
 * matches and every field is in range, so what memory holds after a
 * refusal is exactly the records before the bad one. */
#include "console/ledger.h"
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

#define MAGIC		"lockfile-ledger"
#define CHAIN_HEX	(2 * SHA256_LEN)
#define MAX_FIELDS	8
#define WRITE_CHUNK	(1u << 20)

struct group {
	long long first, last;
	unsigned long long answers, plans;
};

struct lkey {
	uid_t uid;
	char profile[LEDGER_MAX_PROFILE + 1];
	char *key;
	struct group *g;		/* time order; g[0] may hold the old */
	size_t ng, capg;
	uint8_t shas[LEDGER_KEY_SHAS][SHA256_LEN];	/* oldest first */
	size_t nshas;
	uint32_t fileid;		/* its K record's id in this file; 0 none */
};

struct lcontent {
	uid_t uid;
	uint8_t sha[SHA256_LEN];
	struct group t;
};

struct ledger {
	int dirfd, fd;			/* -1 when only read */
	int broken;
	struct ledger_clock clk;
	unsigned long long window_s;
	long long span;			/* a group's longest span */
	uint8_t chain[SHA256_LEN];	/* the last line's */
	unsigned long long seq;		/* the last line's */
	unsigned long long records, bytes, appended, compacted;
	long long created;
	int seen_plan;			/* parsing: a P record was read */
	struct lkey **keys;
	size_t nkeys, capkeys;
	struct lcontent *contents;
	size_t ncontents, capcontents;
	uint32_t *ktab, *ctab;		/* index + 1; 0 is empty */
	size_t ktabcap, ctabcap;
	struct lkey **byid;		/* file id - 1 -> key, this generation */
	size_t nbyid, capbyid;
	uint8_t hkey[crypto_shorthash_KEYBYTES];
};

/* ---- small helpers ---- */

static void
problem(struct ledger_problem *p, enum ledger_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
problem(struct ledger_problem *p, enum ledger_err e, const char *fmt, ...)
{
	va_list ap;

	if (p == NULL)
		return;
	p->err = e;
	va_start(ap, fmt);
	str_vmsg(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
}

static void *
grow(void *ptr, size_t *cap, size_t need, size_t elem)
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

static long long
now(const struct ledger *l)
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
	}
	return "unknown";
}

/* ---- memory: entries and their hash tables ---- */

static uint64_t
hash_key(const struct ledger *l, uid_t uid, const char *profile,
    const char *key)
{
	crypto_generichash_state st;
	uint8_t h[crypto_generichash_BYTES_MIN], u[4] = { (uint8_t)uid, (uint8_t)(uid >> 8),
	    (uint8_t)(uid >> 16), (uint8_t)(uid >> 24) };
	uint64_t v;

	/* keyed (a random key per process): the keys come from agents */
	crypto_generichash_init(&st, l->hkey, sizeof(l->hkey), sizeof(h));
	crypto_generichash_update(&st, u, sizeof(u));
	crypto_generichash_update(&st, (const uint8_t *)profile,
	    strlen(profile) + 1);
	crypto_generichash_update(&st, (const uint8_t *)key, strlen(key));
	crypto_generichash_final(&st, h, sizeof(h));
	memcpy(&v, h, sizeof(v));
	return v;
}

static uint64_t
hash_content(const struct ledger *l, uid_t uid, const uint8_t *sha)
{
	uint8_t in[4 + SHA256_LEN], h[8];
	uint64_t v;

	in[0] = (uint8_t)uid;
	in[1] = (uint8_t)(uid >> 8);
	in[2] = (uint8_t)(uid >> 16);
	in[3] = (uint8_t)(uid >> 24);
	memcpy(in + 4, sha, SHA256_LEN);
	crypto_shorthash(h, in, sizeof(in), l->hkey);
	memcpy(&v, h, sizeof(v));
	return v;
}

static int
key_is(const struct lkey *k, uid_t uid, const char *profile, const char *key)
{
	return k->uid == uid && strcmp(k->profile, profile) == 0 &&
	    strcmp(k->key, key) == 0;
}

static void
ktab_insert(struct ledger *l, size_t idx)
{
	const struct lkey *k = l->keys[idx];
	size_t i = hash_key(l, k->uid, k->profile, k->key) & (l->ktabcap - 1);

	while (l->ktab[i] != 0)
		i = (i + 1) & (l->ktabcap - 1);
	l->ktab[i] = (uint32_t)(idx + 1);
}

static void
ctab_insert(struct ledger *l, size_t idx)
{
	const struct lcontent *c = &l->contents[idx];
	size_t i = hash_content(l, c->uid, c->sha) & (l->ctabcap - 1);

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
find_key(const struct ledger *l, uid_t uid, const char *profile,
    const char *key)
{
	size_t i;

	if (l->ktabcap == 0)
		return NULL;
	i = hash_key(l, uid, profile, key) & (l->ktabcap - 1);
	for (; l->ktab[i] != 0; i = (i + 1) & (l->ktabcap - 1)) {
		struct lkey *k = l->keys[l->ktab[i] - 1];
		if (key_is(k, uid, profile, key))
			return k;
	}
	return NULL;
}

static struct lcontent *
find_content(const struct ledger *l, uid_t uid, const uint8_t *sha)
{
	size_t i;

	if (l->ctabcap == 0)
		return NULL;
	i = hash_content(l, uid, sha) & (l->ctabcap - 1);
	for (; l->ctab[i] != 0; i = (i + 1) & (l->ctabcap - 1)) {
		struct lcontent *c = &l->contents[l->ctab[i] - 1];
		if (c->uid == uid && memcmp(c->sha, sha, SHA256_LEN) == 0)
			return c;
	}
	return NULL;
}

static struct lkey *
add_key(struct ledger *l, uid_t uid, const char *profile, const char *key)
{
	struct lkey *k;

	if (l->nkeys >= LEDGER_MAX_KEYS)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (k == NULL || (k->key = strdup(key)) == NULL)
		fatal("out of memory");
	k->uid = uid;
	memcpy(k->profile, profile, strlen(profile) + 1);
	l->keys = grow(l->keys, &l->capkeys, l->nkeys + 1, sizeof(*l->keys));
	l->keys[l->nkeys++] = k;
	if (!rehash(l, 1))
		ktab_insert(l, l->nkeys - 1);
	return k;
}

static struct lcontent *
add_content(struct ledger *l, uid_t uid, const uint8_t *sha)
{
	struct lcontent *c;

	if (l->ncontents >= LEDGER_MAX_CONTENTS)
		return NULL;
	l->contents = grow(l->contents, &l->capcontents, l->ncontents + 1,
	    sizeof(*l->contents));
	c = &l->contents[l->ncontents++];
	memset(c, 0, sizeof(*c));
	c->uid = uid;
	memcpy(c->sha, sha, SHA256_LEN);
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
static void
fold(struct ledger *l, struct lkey *k, long long t)
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
	k->g = grow(k->g, &k->capg, k->ng + 1, sizeof(*k->g));
	k->g[k->ng++] = *g;
	fold(l, k, now(l));
}

/* One plan at time t: with the old when it is out of the window already,
 * into the latest group when that began at most a span before (or the
 * clock went back), else a group of its own. */
static void
key_add_plan(struct ledger *l, struct lkey *k, long long t, unsigned answers)
{
	struct group g = { t, t, answers, 1 };

	if (k->ng > 0 && t > cutoff(l, now(l))) {
		struct group *last = &k->g[k->ng - 1];
		if (last->last > cutoff(l, now(l)) &&
		    (t <= last->last || t - last->first <= l->span)) {
			group_merge(last, &g);
			fold(l, k, now(l));
			return;
		}
	}
	key_add_group(l, k, &g);
}

static void
key_add_sha(struct lkey *k, const uint8_t *sha)
{
	size_t i;

	for (i = 0; i < k->nshas; i++)
		if (memcmp(k->shas[i], sha, SHA256_LEN) == 0)
			break;
	if (i == k->nshas && k->nshas == LEDGER_KEY_SHAS)
		i = 0;		/* the oldest goes */
	if (i < k->nshas) {
		memmove(k->shas[i], k->shas[i + 1], (k->nshas - i - 1) *
		    SHA256_LEN);
		k->nshas--;
	}
	memcpy(k->shas[k->nshas++], sha, SHA256_LEN);
}

static void
usage_of(const struct ledger *l, const struct lkey *k, int window,
    struct ledger_usage *u)
{
	long long cut = cutoff(l, now(l));
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

/* ---- the format ---- */

/* A line being built: FIELDS, then " CHAIN\n" from the chain before. */
struct writer {
	uint8_t chain[SHA256_LEN];
	unsigned long long seq;
	unsigned long long lines;
	struct buf *out;
};

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

static int
emit(struct writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
emit(struct writer *w, const char *fmt, ...)
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

static int
emit_key(struct writer *w, const struct lkey *k, uint32_t id)
{
	char hex[2 * LEDGER_MAX_KEY_BYTES + 1];
	size_t n = strlen(k->key);

	if (n > LEDGER_MAX_KEY_BYTES)
		return -1;
	hex_encode((const uint8_t *)k->key, n, hex);
	return emit(w, "K %u %u %s %s", id, (unsigned)k->uid, k->profile, hex);
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
	uint8_t sha[SHA256_LEN];
	unsigned long long v;
	uid_t uid;

	*why = "a field is out of its form or range";
	if (kind == 'L') {
		if (ps->record != 1 || ps->nf < 4 || strcmp(f[2], MAGIC) != 0) {
			*why = "the first record is not a ledger header";
			return LEDGER_E_DAMAGED;
		}
		if (num(f[3], 1000000, &v) != 0 || v != LEDGER_VERSION) {
			*why = "another format version";
			return LEDGER_E_VERSION;
		}
		return ps->nf == 5 && time_field(f[4], &l->created) == 0 ?
		    LEDGER_OK : LEDGER_E_DAMAGED;
	}
	if (ps->record == 1) {
		*why = "the first record is not a ledger header";
		return LEDGER_E_DAMAGED;
	}
	switch (kind) {
	case 'K': {
		char key[LEDGER_MAX_KEY_BYTES + 1];
		size_t hl = ps->nf == 6 ? strlen(f[5]) : 0;
		unsigned long long id;
		if (ps->nf != 6 || parse_u64(f[2], 1, LEDGER_MAX_KEYS, &id) != 0 ||
		    id != l->nbyid + 1 || uid_field(f[3], &uid) != 0 ||
		    !name_is_profile(f[4]) || hl == 0 || hl % 2 != 0 ||
		    hl > 2 * LEDGER_MAX_KEY_BYTES || !is_lower_hex(f[5], hl) ||
		    hex_decode(f[5], (uint8_t *)key, hl / 2) != 0)
			return LEDGER_E_DAMAGED;
		key[hl / 2] = '\0';
		if (strlen(key) != hl / 2) {
			*why = "a key holds a NUL byte";
			return LEDGER_E_DAMAGED;
		}
		k = find_key(l, uid, f[4], key);
		if (k != NULL && k->fileid != 0) {
			*why = "a key is named twice";
			return LEDGER_E_DAMAGED;
		}
		if (k == NULL && (k = add_key(l, uid, f[4], key)) == NULL) {
			*why = "more keys than the ledger holds";
			return LEDGER_E_FULL;
		}
		l->byid = grow(l->byid, &l->capbyid, l->nbyid + 1,
		    sizeof(*l->byid));
		l->byid[l->nbyid++] = k;
		k->fileid = (uint32_t)l->nbyid;
		return LEDGER_OK;
	}
	case 'G':
		if (ps->nf != 7 || l->seen_plan || (k = by_id(l, f[2])) == NULL ||
		    group_fields(f + 3, &g) != 0)
			return LEDGER_E_DAMAGED;
		key_add_group(l, k, &g);
		return LEDGER_OK;
	case 'S':
		if (ps->nf != 4 || l->seen_plan || (k = by_id(l, f[2])) == NULL ||
		    sha_field(f[3], sha) != 0)
			return LEDGER_E_DAMAGED;
		key_add_sha(k, sha);
		return LEDGER_OK;
	case 'C': {
		struct lcontent *c;
		if (ps->nf != 8 || l->seen_plan || uid_field(f[2], &uid) != 0 ||
		    sha_field(f[3], sha) != 0 || group_fields(f + 4, &g) != 0)
			return LEDGER_E_DAMAGED;
		if (find_content(l, uid, sha) != NULL) {
			*why = "a content is named twice";
			return LEDGER_E_DAMAGED;
		}
		if ((c = add_content(l, uid, sha)) == NULL) {
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
		    (has_sha && sha_field(f[4], sha) != 0) ||
		    parse_u64(f[5], 1, LEDGER_MAX_ANSWERS, &v) != 0)
			return LEDGER_E_DAMAGED;
		if (has_sha) {
			struct lcontent *c = find_content(l, k->uid, sha);
			struct group one = { t, t, v, 1 };
			if (c == NULL && (c = add_content(l, k->uid, sha)) == NULL) {
				*why = "more contents than the ledger holds";
				return LEDGER_E_FULL;
			}
			group_merge(&c->t, &one);
			key_add_sha(k, sha);
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

static enum ledger_err
parse_all(struct ledger *l, const uint8_t *data, size_t len,
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
				problem(p, LEDGER_E_TORN, "record %llu (at byte %zu), "
				    "the last, is incomplete: %zu bytes without an end "
				    "of line", ps.record, off, len - off);
				return LEDGER_E_TORN;
			}
			problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
			    "is longer than any record", ps.record, off);
			return LEDGER_E_DAMAGED;
		}
		n = (size_t)(nl - (data + off));
		if (n < CHAIN_HEX + 2 || data[off + n - CHAIN_HEX - 1] != ' ') {
			problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
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
			problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
			    "fails its checksum", ps.record, off);
			return LEDGER_E_DAMAGED;
		}
		line[body] = '\0';
		if (memchr(line, '\0', body) != NULL || split(&ps, line) != 0 ||
		    parse_u64(ps.f[1], 1, LEDGER_MAX_COUNT, &seq) != 0 ||
		    (ps.record > 1 && seq != l->seq + 1)) {
			problem(p, LEDGER_E_DAMAGED, "record %llu (at byte %zu) "
			    "is not in the ledger's form", ps.record, off);
			return LEDGER_E_DAMAGED;
		}
		e = apply(&ps, &why);
		if (e != LEDGER_OK) {
			problem(p, e, "record %llu (at byte %zu): %s", ps.record,
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
		problem(p, LEDGER_E_DAMAGED, "the ledger is empty (no header)");
		return LEDGER_E_DAMAGED;
	}
	return LEDGER_OK;
}

static struct ledger *
ledger_new(const struct ledger_clock *clk, unsigned long long window_s)
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
	crypto_shorthash_keygen(l->hkey);
	return l;
}

enum ledger_err
ledger_parse(struct ledger **out, const uint8_t *data, size_t len,
    const struct ledger_clock *clk, unsigned long long window_s,
    struct ledger_problem *p)
{
	struct ledger *l = ledger_new(clk, window_s);

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	*out = l;
	if (len > LEDGER_MAX_BYTES) {
		problem(p, LEDGER_E_FULL, "the ledger is larger than %llu bytes",
		    LEDGER_MAX_BYTES);
		return LEDGER_E_FULL;
	}
	return parse_all(l, data, len, p);
}

void
ledger_close(struct ledger *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nkeys; i++) {
		free(l->keys[i]->key);
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
	sodium_memzero(l->hkey, sizeof(l->hkey));
	free(l);
}

/* ---- files ---- */

static enum ledger_err
io_problem(struct ledger_problem *p, const char *what)
{
	if (p != NULL)
		p->sys_errno = errno;
	problem(p, LEDGER_E_IO, "%s: %s", what, strerror(errno));
	return LEDGER_E_IO;
}

/* A regular file of this account with one name; 0600 made so. */
static enum ledger_err
check_file(int fd, int fix, struct ledger_problem *p)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return io_problem(p, "the ledger cannot be examined");
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		problem(p, LEDGER_E_UNSAFE, "the ledger is not a regular file of "
		    "this account with one name");
		return LEDGER_E_UNSAFE;
	}
	if (fix && (st.st_mode & 0777) != 0600 && fchmod(fd, 0600) != 0)
		return io_problem(p, "the ledger cannot be made 0600");
	if ((unsigned long long)st.st_size > LEDGER_MAX_BYTES) {
		problem(p, LEDGER_E_FULL, "the ledger is larger than %llu bytes",
		    LEDGER_MAX_BYTES);
		return LEDGER_E_FULL;
	}
	return LEDGER_OK;
}

static enum ledger_err
read_file(int fd, uint8_t **data, size_t *len, struct ledger_problem *p)
{
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0)
		return io_problem(p, "the ledger cannot be examined");
	*len = (size_t)st.st_size;
	*data = malloc(*len + 1);
	if (*data == NULL)
		fatal("out of memory");
	n = pread(fd, *data, *len, 0);
	if (n < 0 || (size_t)n != *len) {
		free(*data);
		*data = NULL;
		if (n >= 0)
			errno = EIO;
		return io_problem(p, "the ledger cannot be read");
	}
	return LEDGER_OK;
}

static enum ledger_err
write_out(int fd, struct buf *b, struct ledger_problem *p)
{
	if (write_full(fd, buf_data(b), buf_len(b)) != 0)
		return io_problem(p, "the ledger cannot be written");
	buf_reset(b);
	return LEDGER_OK;
}

/* The whole of memory as a new generation, into fd (a fresh file). */
static enum ledger_err
write_generation(struct ledger *l, int fd, struct writer *w,
    struct ledger_problem *p)
{
	enum ledger_err e = LEDGER_OK;
	long long t = now(l);
	uint32_t id = 0;
	size_t i, j;
	char hex[CHAIN_HEX + 1];

	memset(w->chain, 0, sizeof(w->chain));
	w->lines = 0;
	w->out = buf_new(2 * WRITE_CHUNK);
	if (w->out == NULL)
		fatal("out of memory");
	if (emit(w, "L %s %d %lld", MAGIC, LEDGER_VERSION, t) != 0)
		goto toolong;
	for (i = 0; i < l->nkeys; i++) {
		struct lkey *k = l->keys[i];
		fold(l, k, t);
		if (k->ng == 0)
			continue;
		if (emit_key(w, k, ++id) != 0)
			goto toolong;
		for (j = 0; j < k->nshas; j++) {
			hex_encode(k->shas[j], SHA256_LEN, hex);
			if (emit(w, "S %u %s", id, hex) != 0)
				goto toolong;
		}
		for (j = 0; j < k->ng; j++)
			if (emit(w, "G %u %llu %llu %lld %lld", id, k->g[j].answers,
			    k->g[j].plans, k->g[j].first, k->g[j].last) != 0)
				goto toolong;
		if (buf_len(w->out) >= WRITE_CHUNK &&
		    (e = write_out(fd, w->out, p)) != LEDGER_OK)
			goto out;
	}
	for (i = 0; i < l->ncontents; i++) {
		const struct lcontent *c = &l->contents[i];
		hex_encode(c->sha, SHA256_LEN, hex);
		if (emit(w, "C %u %s %llu %llu %lld %lld", (unsigned)c->uid, hex,
		    c->t.answers, c->t.plans, c->t.first, c->t.last) != 0)
			goto toolong;
		if (buf_len(w->out) >= WRITE_CHUNK &&
		    (e = write_out(fd, w->out, p)) != LEDGER_OK)
			goto out;
	}
	e = write_out(fd, w->out, p);
	if (e == LEDGER_OK && fsync(fd) != 0)
		e = io_problem(p, "the ledger cannot be synced");
	goto out;
toolong:
	problem(p, LEDGER_E_FULL, "a record does not fit the ledger's limits");
	e = LEDGER_E_FULL;
out:
	buf_free(w->out);
	w->out = NULL;
	return e;
}

/* After a generation was written: ids are its ids, the counters its. */
static void
adopt_generation(struct ledger *l, const struct writer *w, long long t,
    unsigned long long bytes)
{
	uint32_t id = 0;
	size_t i;

	l->nbyid = 0;
	for (i = 0; i < l->nkeys; i++) {
		struct lkey *k = l->keys[i];
		k->fileid = 0;
		if (k->ng == 0)
			continue;
		k->fileid = ++id;
		l->byid = grow(l->byid, &l->capbyid, l->nbyid + 1,
		    sizeof(*l->byid));
		l->byid[l->nbyid++] = k;
	}
	memcpy(l->chain, w->chain, SHA256_LEN);
	l->seq = w->seq;
	l->records = w->lines;
	l->compacted = w->lines;
	l->appended = 0;
	l->bytes = bytes;
	l->created = t;
}

/* Write memory to LEDGER_NEW_FILE in dirfd and put it in place of
 * LF_LEDGER_FILE (noreplace: only where there is none). Returns the new
 * file's descriptor (append-only) or -1. */
static int
replace_file(struct ledger *l, int dirfd, int noreplace,
    struct ledger_problem *p, enum ledger_err *e)
{
	struct writer w;
	struct stat st;
	long long t = now(l);
	int fd;

	memset(&w, 0, sizeof(w));
	w.seq = l->seq;
	(void)unlinkat(dirfd, LEDGER_NEW_FILE, 0);
	fd = openat(dirfd, LEDGER_NEW_FILE, O_WRONLY | O_APPEND | O_CREAT |
	    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		*e = io_problem(p, "a new ledger cannot be created");
		return -1;
	}
	*e = write_generation(l, fd, &w, p);
	if (*e == LEDGER_OK && fstat(fd, &st) != 0)
		*e = io_problem(p, "the new ledger cannot be examined");
	if (*e == LEDGER_OK && renameat2(dirfd, LEDGER_NEW_FILE, dirfd,
	    LF_LEDGER_FILE, noreplace ? RENAME_NOREPLACE : 0) != 0)
		*e = io_problem(p, "the new ledger cannot be put in place");
	if (*e == LEDGER_OK && fsync(dirfd) != 0)
		*e = io_problem(p, "the ledger's directory cannot be synced");
	if (*e != LEDGER_OK) {
		close(fd);
		(void)unlinkat(dirfd, LEDGER_NEW_FILE, 0);
		return -1;
	}
	adopt_generation(l, &w, t, (unsigned long long)st.st_size);
	return fd;
}

enum ledger_err
ledger_compact(struct ledger *l, struct ledger_problem *p)
{
	enum ledger_err e;
	int fd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	if (l->broken || l->fd < 0) {
		problem(p, LEDGER_E_BROKEN, "the ledger is not open for writing");
		return LEDGER_E_BROKEN;
	}
	fd = replace_file(l, l->dirfd, 0, p, &e);
	if (fd < 0)
		return e;
	close(l->fd);
	l->fd = fd;
	return LEDGER_OK;
}

int
ledger_compact_due(const struct ledger *l)
{
	return l->appended > LEDGER_COMPACT_MIN &&
	    l->appended > l->compacted;
}

static enum ledger_err
open_existing(struct ledger *l, int fd, struct ledger_problem *p)
{
	uint8_t *data = NULL;
	size_t len = 0;
	enum ledger_err e;

	if ((e = check_file(fd, l->fd >= 0, p)) != LEDGER_OK ||
	    (e = read_file(fd, &data, &len, p)) != LEDGER_OK)
		return e;
	e = parse_all(l, data, len, p);
	free(data);
	return e;
}

enum ledger_err
ledger_open(struct ledger **out, int dirfd, const struct ledger_clock *clk,
    unsigned long long window_s, int *created, struct ledger_problem *p)
{
	struct ledger *l = ledger_new(clk, window_s);
	enum ledger_err e;
	int fd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	*out = NULL;
	*created = 0;
	/* An open file description of our own: the lock is on it. */
	l->dirfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->dirfd < 0) {
		e = io_problem(p, "the ledger's directory");
		goto fail;
	}
	if (flock(l->dirfd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK) {
			problem(p, LEDGER_E_BUSY, "another console holds the ledger");
			e = LEDGER_E_BUSY;
		} else {
			e = io_problem(p, "the ledger cannot be locked");
		}
		goto fail;
	}
	/* A compaction that did not finish: the ledger it was to replace is
	 * the whole one. */
	if (unlinkat(l->dirfd, LEDGER_NEW_FILE, 0) != 0 && errno != ENOENT) {
		e = io_problem(p, "an unfinished compaction cannot be removed");
		goto fail;
	}
	fd = openat(l->dirfd, LF_LEDGER_FILE, O_RDWR | O_APPEND | O_NOFOLLOW |
	    O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* A new ledger is a whole header in place, never an empty
		 * file (noreplace: a ledger that appeared meanwhile stays). */
		l->fd = replace_file(l, l->dirfd, 1, p, &e);
		if (l->fd < 0)
			goto fail;
		*created = 1;
		*out = l;
		return LEDGER_OK;
	}
	if (fd < 0) {
		e = errno == ELOOP ? LEDGER_E_UNSAFE :
		    io_problem(p, "the ledger cannot be opened");
		if (e == LEDGER_E_UNSAFE)
			problem(p, e, "the ledger is a symbolic link");
		goto fail;
	}
	l->fd = fd;
	if ((e = open_existing(l, fd, p)) != LEDGER_OK)
		goto fail;
	if (ledger_compact_due(l) && (e = ledger_compact(l, p)) != LEDGER_OK)
		goto fail;
	*out = l;
	return LEDGER_OK;
fail:
	ledger_close(l);
	return e;
}

enum ledger_err
ledger_read(struct ledger **out, int dirfd, const struct ledger_clock *clk,
    unsigned long long window_s, struct ledger_problem *p)
{
	struct ledger *l = ledger_new(clk, window_s);
	enum ledger_err e;
	int fd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	*out = l;
	fd = openat(dirfd, LF_LEDGER_FILE, O_RDONLY | O_NOFOLLOW | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP) {
			problem(p, LEDGER_E_UNSAFE, "the ledger is a symbolic link");
			return LEDGER_E_UNSAFE;
		}
		return io_problem(p, "the ledger cannot be opened");
	}
	e = open_existing(l, fd, p);
	close(fd);
	return e;
}

enum ledger_err
ledger_rewrite(struct ledger *l, int dirfd, char *aside, size_t asidelen,
    struct ledger_problem *p)
{
	enum ledger_err e;
	int fd, lockfd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	if (str_fmt(aside, asidelen, "%s.damaged-%lld", LF_LEDGER_FILE,
	    now(l)) != STR_OK) {
		problem(p, LEDGER_E_FULL, "no room for the damaged file's name");
		return LEDGER_E_FULL;
	}
	lockfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lockfd < 0)
		return io_problem(p, "the ledger's directory");
	if (flock(lockfd, LOCK_EX | LOCK_NB) != 0) {
		close(lockfd);
		problem(p, LEDGER_E_BUSY, "a console holds the ledger: stop it "
		    "first");
		return LEDGER_E_BUSY;
	}
	if (renameat2(lockfd, LF_LEDGER_FILE, lockfd, aside, RENAME_NOREPLACE) !=
	    0 && errno != ENOENT) {
		e = io_problem(p, "the damaged ledger cannot be moved aside");
		close(lockfd);
		return e;
	}
	fd = replace_file(l, lockfd, 1, p, &e);
	close(lockfd);		/* and its lock */
	if (fd < 0)
		return e;
	close(fd);
	return LEDGER_OK;
}

enum ledger_err
ledger_record(struct ledger *l, uid_t uid, const char *profile,
    const char *key, const uint8_t *sha256, unsigned answers,
    struct ledger_problem *p)
{
	struct lkey *k;
	struct writer w;
	struct stat st;
	long long t = now(l);
	enum ledger_err e = LEDGER_OK;
	char hex[CHAIN_HEX + 1];
	int newkey = 0;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	if (l->broken || l->fd < 0) {
		problem(p, LEDGER_E_BROKEN, "an earlier ledger write failed");
		return LEDGER_E_BROKEN;
	}
	if (answers < 1 || answers > LEDGER_MAX_ANSWERS ||
	    !name_is_profile(profile) || strlen(key) == 0 ||
	    strlen(key) > LEDGER_MAX_KEY_BYTES) {
		problem(p, LEDGER_E_FULL, "a plan outside the ledger's limits");
		return LEDGER_E_FULL;
	}
	if (sha256 != NULL && find_content(l, uid, sha256) == NULL &&
	    l->ncontents >= LEDGER_MAX_CONTENTS) {
		problem(p, LEDGER_E_FULL, "more contents than the ledger holds");
		return LEDGER_E_FULL;
	}
	k = find_key(l, uid, profile, key);
	if (k == NULL) {
		if ((k = add_key(l, uid, profile, key)) == NULL) {
			problem(p, LEDGER_E_FULL, "more keys than the ledger holds");
			return LEDGER_E_FULL;
		}
		newkey = 1;
	}
	memset(&w, 0, sizeof(w));
	memcpy(w.chain, l->chain, SHA256_LEN);
	w.seq = l->seq;
	w.out = buf_new(2 * LEDGER_MAX_LINE + 16);
	if (w.out == NULL)
		fatal("out of memory");
	if (sha256 != NULL)
		hex_encode(sha256, SHA256_LEN, hex);
	/* A key new to this file is named first, in the same write. */
	if ((k->fileid == 0 && emit_key(&w, k, (uint32_t)l->nbyid + 1) != 0) ||
	    emit(&w, "P %lld %u %s %u", t, k->fileid ? k->fileid :
	    (uint32_t)l->nbyid + 1, sha256 ? hex : "-", answers) != 0) {
		problem(p, LEDGER_E_FULL, "a record does not fit");
		e = LEDGER_E_FULL;
		goto out;
	}
	if (l->bytes + buf_len(w.out) > LEDGER_MAX_BYTES) {
		problem(p, LEDGER_E_FULL, "the ledger would pass %llu bytes",
		    LEDGER_MAX_BYTES);
		e = LEDGER_E_FULL;
		goto out;
	}
	if (write_full(l->fd, buf_data(w.out), buf_len(w.out)) != 0 ||
	    fdatasync(l->fd) != 0) {
		e = io_problem(p, "the ledger cannot be written");
		/* Cut back to the last whole record; if even that fails the
		 * file's tail is torn and the next start says so. */
		if (ftruncate(l->fd, (off_t)l->bytes) != 0 ||
		    fstat(l->fd, &st) != 0 ||
		    (unsigned long long)st.st_size != l->bytes)
			logit("the ledger could not be cut back to its last "
			    "whole record");
		l->broken = 1;
		goto out;
	}
	/* Written: memory follows. */
	if (k->fileid == 0) {
		l->byid = grow(l->byid, &l->capbyid, l->nbyid + 1,
		    sizeof(*l->byid));
		l->byid[l->nbyid++] = k;
		k->fileid = (uint32_t)l->nbyid;
	}
	if (sha256 != NULL) {
		struct lcontent *c = find_content(l, uid, sha256);
		struct group one = { t, t, answers, 1 };
		if (c == NULL)
			c = add_content(l, uid, sha256);
		group_merge(&c->t, &one);
		key_add_sha(k, sha256);
	}
	key_add_plan(l, k, t, answers);
	memcpy(l->chain, w.chain, SHA256_LEN);
	l->seq = w.seq;
	l->records += w.lines;
	l->appended += w.lines;
	l->bytes += buf_len(w.out);
	newkey = 0;
out:
	if (newkey) {
		/* not written: the entry made for it goes again */
		size_t i;
		l->nkeys--;
		free(k->key);
		free(k->g);
		free(k);
		memset(l->ktab, 0, l->ktabcap * sizeof(*l->ktab));
		for (i = 0; i < l->nkeys; i++)
			ktab_insert(l, i);
	}
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
	v->key = k->key;
	usage_of(l, k, 0, &v->total);
	usage_of(l, k, 1, &v->window);
	v->nshas = k->nshas;
	v->shas = (const uint8_t (*)[SHA256_LEN])k->shas;
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
	v->sha256 = c->sha;
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
