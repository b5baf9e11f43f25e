/* The answer ledger's line format (ledger_int.h; docs/ledger.md, "The
 * file"): writing a line, and reading a whole file into memory, which is
 * the whole surface of its fuzzer (tests/fuzz/fuzz_ledger.c).
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
#include "lib/str.h"
#include "protocol/shape.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

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
		lg_content_id(l, uid, sha, cid);
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
		lg_key_id(l, uid, f[4], key, id);
	} else if (hl != 2 * LEDGER_ID_LEN || hex_decode(f[5], id,
	    LEDGER_ID_LEN) != 0) {
		return LEDGER_E_DAMAGED;
	}
	k = lg_find_id(l, uid, id);
	if (k != NULL && k->fileid != 0) {
		*why = "a key is named twice";
		return LEDGER_E_DAMAGED;
	}
	if (k == NULL && (k = lg_add_key(l, uid, f[4], id, l->version == 1 ?
	    key : NULL)) == NULL) {
		*why = "more keys than the ledger holds";
		return LEDGER_E_FULL;
	}
	lg_adopt_fileid(l, k);	/* its fileid is 0: checked above */
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
		lg_key_add_group(l, k, &g);
		return LEDGER_OK;
	case 'S':
		if (ps->nf != 4 || l->seen_plan || (k = by_id(l, f[2])) == NULL ||
		    content_field(l, f[3], k->uid, cid, sha, &known) != 0)
			return LEDGER_E_DAMAGED;
		lg_key_add_cid(k, cid);
		return LEDGER_OK;
	case 'C': {
		struct lcontent *c;
		if (ps->nf != 8 || l->seen_plan || uid_field(f[2], &uid) != 0 ||
		    content_field(l, f[3], uid, cid, sha, &known) != 0 ||
		    group_fields(f + 4, &g) != 0)
			return LEDGER_E_DAMAGED;
		if (lg_find_content(l, uid, cid) != NULL) {
			*why = "a content is named twice";
			return LEDGER_E_DAMAGED;
		}
		if ((c = lg_add_content(l, uid, cid, known ? sha : NULL)) == NULL) {
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
			struct lcontent *c = lg_find_content(l, k->uid, cid);
			struct group one = { t, t, v, 1 };
			if (c == NULL && (c = lg_add_content(l, k->uid, cid,
			    known ? sha : NULL)) == NULL) {
				*why = "more contents than the ledger holds";
				return LEDGER_E_FULL;
			}
			lg_group_merge(&c->t, &one);
			lg_key_add_cid(k, cid);
		}
		lg_key_add_plan(l, k, t, (unsigned)v);
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
