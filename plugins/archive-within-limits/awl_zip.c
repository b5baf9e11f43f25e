/* archive-within-limits: the ZIP structure and its bounds
 * (awl_check.h; APPNOTE.TXT 4.3, 4.4, 4.5.3; docs/plugins.md,
 * "archive-within-limits").
 *
 * One archive is checked in four passes, the cheap ones first, so that a
 * bomb is refused from what it declares before anything is inflated:
 *   1. the end records: one disk, the central directory exactly where
 *      they put it (ZIP64 read, not refused);
 *   2. every central directory header, strictly, to the directory's size:
 *      the entry count, the method (stored or deflated: the ones zlib
 *      checks), no encryption (its data could not be checked), and the
 *      declared sizes against the bounds (ratio, the total);
 *   3. in offset order, every local header against its central one (name,
 *      flags, method, CRC and sizes, the data descriptor), and the entries
 *      tiling the file from offset 0 to the central directory: an overlap
 *      (David Fifield's non-recursive bombs, quoted or not) or a gap
 *      (bytes a streaming reader would take for another entry) is 0;
 *      then no two entries with one name;
 *   4. in offset order, every entry's data, inflated by zlib through a
 *      counter that stops past its declared size, its CRC-32 compared. An
 *      entry whose data begins like an archive is one level deeper: a
 *      stored one is checked in place, a deflated one in a buffer of its
 *      declared size (AWL_NEST_ARENA for all levels together).
 * Every rule broken, every bound passed and every budget spent is 0. */
#include "awl_check.h"
#include "lfplugin.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define EOCD_LEN 22
#define LOC64_LEN 20
#define EOCD64_LEN 56
#define CDH_LEN 46
#define LFH_LEN 30
#define TAIL_MAX (65535u + EOCD_LEN)
#define BLOCK (256u << 10)
#define NAME_MAX_LEN 65535u
#define AWL_MAX_CD (16u << 20)		/* central directories, all levels:
					 * bounds the name comparisons */

/* Flags: 0 encrypted, 6 strong encryption, 13 central directory
 * encrypted; 3 sizes in a data descriptor. */
#define FLAG_CRYPT (1u | 1u << 6 | 1u << 13)
#define FLAG_DESCRIPTOR (1u << 3)

enum r {
	AR_OK = 0,
	AR_ZERO,		/* answer 0: g.why says why */
	AR_IOERR,	/* no answer */
	AR_NESTED,	/* inflate_entry: the data begins like an archive */
};

struct ent {
	uint64_t lfh, csize, usize, data, end;
	uint64_t name_off;	/* the name, in the central directory */
	uint64_t hash;
	uint32_t crc;
	uint16_t name_len, flags, method;
};

static struct {
	struct ent ent[AWL_MAX_ENTRIES];
	uint32_t idx[AWL_MAX_ENTRIES];
	uint32_t used;			/* entries, every level */
	uint64_t out_left;		/* declared uncompressed bytes */
	uint64_t in_left;		/* compressed bytes */
	uint64_t cd_left;
	size_t arena_used;
	unsigned ticks;
	struct timespec cpu0, wall0;
	const char *why;
	/* the name sort's */
	const struct ent *sort_ents;
	const struct awl_src *sort_src;
	int sort_err;
} g;

static uint8_t name_a[NAME_MAX_LEN], name_b[NAME_MAX_LEN];

static uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static enum r
zero(const char *why)
{
	if (g.why == NULL)
		g.why = why;
	return AR_ZERO;
}

/* Exactly len bytes at off. Past the source's end is the archive's fault
 * (0); a failed or short read is the source's (no answer). */
static enum r
src_read(const struct awl_src *s, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	if (off > s->size || len > s->size - off)
		return zero("a structure runs past the end of its archive");
	if (len == 0)
		return AR_OK;
	n = s->pread(s->ctx, buf, len, off);
	return n >= 0 && (size_t)n == len ? AR_OK : AR_IOERR;
}

/* The time budget (AWL_CPU_BUDGET_S, AWL_WALL_BUDGET_S), looked at every
 * few blocks: past it the answer is 0 before the sandbox's limits would
 * make it plugin_error. */
static int
over_cpu(void)
{
	struct timespec t, w;

	if (++g.ticks % 8 != 0 ||
	    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0 ||
	    clock_gettime(CLOCK_MONOTONIC, &w) != 0)
		return 0;
	return t.tv_sec - g.cpu0.tv_sec >= AWL_CPU_BUDGET_S ||
	    w.tv_sec - g.wall0.tv_sec >= AWL_WALL_BUDGET_S;
}

/* ---- sources for a nested archive ------------------------------------ */

struct win {
	const struct awl_src *parent;
	uint64_t base;
};

static ssize_t
win_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct win *w = ctx;

	return w->parent->pread(w->parent->ctx, buf, len, w->base + off);
}

static ssize_t
mem_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	memcpy(buf, (const uint8_t *)ctx + off, len);	/* src_read bounds it */
	return (ssize_t)len;
}

/* ---- 1. the end records ---------------------------------------------- */

struct zend {
	uint64_t cd_start, cd_size, cd_end, count;
};

/* What an end record (or the ZIP64 one) says, the directory ending at
 * cd_end (that record). */
static enum r
zend_set(struct zend *z, uint64_t count, uint64_t cd_size, uint64_t cd_start,
    uint64_t cd_end)
{
	z->count = count;
	z->cd_size = cd_size;
	z->cd_start = cd_start;
	z->cd_end = cd_end;
	return AR_OK;
}

/* The ZIP64 end record, named by the locator right before the end record
 * at eocd; it must end at that locator. */
static enum r
zip64_end(const struct awl_src *s, uint64_t eocd, const uint8_t *h,
    struct zend *z)
{
	uint8_t loc[LOC64_LEN], r[EOCD64_LEN];
	uint64_t rec, len;
	enum r e;

	if (eocd < LOC64_LEN + EOCD64_LEN)
		goto none;
	if ((e = src_read(s, loc, LOC64_LEN, eocd - LOC64_LEN)) != AR_OK)
		return e;
	if (memcmp(loc, "PK\6\7", 4) != 0)
		goto none;
	if (le32(loc + 4) != 0 || le32(loc + 16) > 1)
		return zero("a multi-disk archive");
	rec = le64(loc + 8);
	if (rec > eocd - LOC64_LEN - EOCD64_LEN)
		return zero("the ZIP64 end record is not before its locator");
	if ((e = src_read(s, r, EOCD64_LEN, rec)) != AR_OK)
		return e;
	len = le64(r + 4);
	if (memcmp(r, "PK\6\6", 4) != 0 || len < EOCD64_LEN - 12 ||
	    len != eocd - LOC64_LEN - rec - 12)
		return zero("the ZIP64 end record does not end at its locator");
	if (le32(r + 16) != 0 || le32(r + 20) != 0 ||
	    le64(r + 24) != le64(r + 32))
		return zero("a multi-disk archive");
	if ((le16(h + 10) != 0xffff && le16(h + 10) != le64(r + 32)) ||
	    (le32(h + 12) != 0xffffffffu && le32(h + 12) != le64(r + 40)) ||
	    (le32(h + 16) != 0xffffffffu && le32(h + 16) != le64(r + 48)))
		return zero("the end record and the ZIP64 end record disagree");
	return zend_set(z, le64(r + 32), le64(r + 40), le64(r + 48), rec);
none:
	if (le16(h + 10) == 0xffff || le32(h + 12) == 0xffffffffu ||
	    le32(h + 16) == 0xffffffffu)
		return zero("ZIP64 escapes without a ZIP64 end record");
	return zend_set(z, le16(h + 10), le32(h + 12), le32(h + 16), eocd);
}

/* The end record: the last signature in the file's last 64 KiB + 22
 * bytes whose comment ends exactly at the end of the archive. */
static enum r
find_end(const struct awl_src *s, struct zend *z)
{
	static uint8_t tail[TAIL_MAX];
	size_t len = s->size < TAIL_MAX ? (size_t)s->size : TAIL_MAX, i;
	uint64_t from = s->size - len;
	const uint8_t *h;
	enum r e;

	if (len < EOCD_LEN)
		return zero("not a ZIP: no end of central directory record");
	if ((e = src_read(s, tail, len, from)) != AR_OK)
		return e;
	for (i = len - EOCD_LEN + 1; i-- > 0;)
		if (memcmp(tail + i, "PK\5\6", 4) == 0 &&
		    le16(tail + i + 20) == len - i - EOCD_LEN)
			break;
	if (i == (size_t)-1)
		return zero("not a ZIP: no end of central directory record "
		    "ending the file");
	h = tail + i;
	if (le16(h + 4) != 0 || le16(h + 6) != 0 ||
	    le16(h + 8) != le16(h + 10))
		return zero("a multi-disk archive");
	if ((e = zip64_end(s, from + i, h, z)) != AR_OK)
		return e;
	if (z->cd_size > z->cd_end || z->cd_start != z->cd_end - z->cd_size)
		return zero("the central directory is not where the end "
		    "record puts it");
	return AR_OK;
}

/* ---- 2. the central directory ---------------------------------------- */

/* The central directory, read forward (the SDK's lfp_fwd). */
static int
cd_fill(const void *src, void *buf, size_t len, uint64_t off)
{
	return (int)src_read(src, buf, len, off);
}

static enum r
rd_take(struct lfp_fwd *r, uint8_t *out, size_t len)
{
	int e = lfp_fwd_take(r, out, len);

	if (e == LFP_FWD_PAST)
		return zero("the central directory is shorter than its "
		    "entries");
	return (enum r)e;
}

/* The first extra field with this id (APPNOTE 4.5.2; EXTRA_NONE: none
 * is sought, every one is walked): 1 with *f, its data, and *n, its
 * length; 0 when there is none; -1 when a field overruns the others. */
#define EXTRA_NONE 0x10000
static int
extra_find(const uint8_t *x, size_t xl, unsigned id, const uint8_t **f,
    size_t *n)
{
	while (xl >= 4) {
		*n = le16(x + 2);
		if (*n > xl - 4)
			return -1;
		if (le16(x) == id) {
			*f = x + 4;
			return 1;
		}
		x += 4 + *n;
		xl -= 4 + *n;
	}
	return 0;
}

/* The central header's ZIP64 extra field (APPNOTE 4.5.3): the 64-bit
 * values of the fixed fields that hold all ones, in order. 0 when one is
 * missing or an extra field overruns the others. */
static int
zip64_central(const uint8_t *x, size_t xl, struct ent *e, uint32_t *disk)
{
	int need = e->usize == 0xffffffffu || e->csize == 0xffffffffu ||
	    e->lfh == 0xffffffffu || *disk == 0xffff;
	const uint8_t *f = NULL;
	size_t n = 0, at = 0;
	int r = extra_find(x, xl, need ? 1 : EXTRA_NONE, &f, &n);

	if (r <= 0)
		return r == 0 && !need;
	if (e->usize == 0xffffffffu) {
		if (at + 8 > n)
			return 0;
		e->usize = le64(f + at);
		at += 8;
	}
	if (e->csize == 0xffffffffu) {
		if (at + 8 > n)
			return 0;
		e->csize = le64(f + at);
		at += 8;
	}
	if (e->lfh == 0xffffffffu) {
		if (at + 8 > n)
			return 0;
		e->lfh = le64(f + at);
		at += 8;
	}
	if (*disk == 0xffff) {
		if (at + 4 > n)
			return 0;
		*disk = le32(f + at);
	}
	return 1;
}

/* What an entry declares, against the rules and the bounds. */
static enum r
declared(const struct ent *e, const struct zend *z)
{
	if (e->flags & FLAG_CRYPT)
		return zero("an encrypted entry (its data cannot be checked)");
	if (e->method != 0 && e->method != 8)
		return zero("a method other than stored or deflated");
	if (e->method == 0 && e->csize != e->usize)
		return zero("a stored entry whose two sizes differ");
	if (e->usize > AWL_RATIO_FLOOR &&
	    e->csize <= UINT64_MAX / AWL_MAX_RATIO &&
	    e->usize > e->csize * AWL_MAX_RATIO)
		return zero("an entry inflating more than 100:1");
	if (e->usize > g.out_left)
		return zero("more than 512 MiB uncompressed in all");
	g.out_left -= e->usize;
	if (e->csize > g.in_left)
		return zero("more than 1 GiB of compressed data in all");
	g.in_left -= e->csize;
	if (e->lfh >= z->cd_start)
		return zero("a local header not before the central directory");
	return AR_OK;
}

static uint64_t
fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n-- > 0)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static enum r
walk_central(const struct awl_src *s, const struct zend *z, struct ent *ents)
{
	static struct lfp_fwd r;
	static uint8_t extra[65535];
	uint8_t h[CDH_LEN];
	uint64_t n;
	enum r e;

	lfp_fwd_init(&r, cd_fill, s);
	r.pos = z->cd_start;
	r.end = z->cd_end;
	for (n = 0; n < z->count; n++) {
		struct ent *en = &ents[n];
		uint16_t nl, xl;
		uint32_t disk;

		if ((e = rd_take(&r, h, CDH_LEN)) != AR_OK)
			return e;
		if (memcmp(h, "PK\1\2", 4) != 0)
			return zero("a central directory header's signature "
			    "is wrong");
		memset(en, 0, sizeof(*en));
		en->flags = le16(h + 8);
		en->method = le16(h + 10);
		en->crc = le32(h + 16);
		en->csize = le32(h + 20);
		en->usize = le32(h + 24);
		nl = le16(h + 28);
		xl = le16(h + 30);
		disk = le16(h + 34);
		en->lfh = le32(h + 42);
		en->name_len = nl;
		en->name_off = r.pos;
		if ((e = rd_take(&r, name_a, nl)) != AR_OK ||
		    (e = rd_take(&r, extra, xl)) != AR_OK ||
		    (e = rd_take(&r, NULL, le16(h + 32))) != AR_OK)
			return e;
		en->hash = fnv1a(name_a, nl);
		if (!zip64_central(extra, xl, en, &disk))
			return zero("a ZIP64 extra field missing or cut");
		if (disk != 0)
			return zero("a multi-disk archive");
		if ((e = declared(en, z)) != AR_OK)
			return e;
	}
	if (r.pos != r.end)
		return zero("the central directory holds more than its "
		    "entries");
	return AR_OK;
}

/* ---- 3. local headers, tiling, names ---------------------------------- */

/* The local ZIP64 field: both sizes (APPNOTE 4.5.3). *has: one is there
 * (its data descriptor then has 8-byte sizes). */
static int
zip64_local(const uint8_t *x, size_t xl, uint64_t *us, uint64_t *cs,
    int *has)
{
	int need = *us == 0xffffffffu || *cs == 0xffffffffu;
	const uint8_t *f = NULL;
	size_t n = 0;
	int r = extra_find(x, xl, 1, &f, &n);

	*has = r == 1;
	if (r <= 0)
		return r == 0 && !need;
	if (need) {
		if (n < 16)
			return 0;
		*us = le64(f);
		*cs = le64(f + 8);
	}
	return 1;
}

/* The data descriptor after a flag-3 entry's data: an optional
 * signature, the CRC and both sizes (8 bytes each with ZIP64), equal to
 * the central ones. Moves e->end past it. */
static enum r
descriptor(const struct awl_src *s, struct ent *e, uint64_t limit, int z64)
{
	uint8_t d[24];
	size_t want = z64 ? 20 : 12, sig = 0;
	uint64_t avail = limit - e->end;
	size_t n = avail < sizeof(d) ? (size_t)avail : sizeof(d);
	enum r r;

	if ((r = src_read(s, d, n, e->end)) != AR_OK)
		return r;
	if (n >= 4 && memcmp(d, "PK\7\10", 4) == 0)
		sig = 4;
	if (sig + want > n)
		return zero("a data descriptor runs into the next entry");
	if (le32(d + sig) != e->crc ||
	    (z64 ? le64(d + sig + 4) : le32(d + sig + 4)) != e->csize ||
	    (z64 ? le64(d + sig + 12) : le32(d + sig + 8)) != e->usize)
		return zero("a data descriptor disagrees with the central "
		    "directory");
	e->end += sig + want;
	return AR_OK;
}

/* One local header against its central header; sets e->data, e->end. */
static enum r
local_header(const struct awl_src *s, struct ent *e, uint64_t limit)
{
	static uint8_t x[65535];
	uint8_t h[LFH_LEN];
	uint64_t us, cs;
	uint32_t crc;
	uint16_t nl, xl;
	int z64, dd = (e->flags & FLAG_DESCRIPTOR) != 0;
	enum r r;

	if (e->lfh > limit || limit - e->lfh < LFH_LEN)
		return zero("a local header runs into the central directory");
	if ((r = src_read(s, h, LFH_LEN, e->lfh)) != AR_OK)
		return r;
	if (memcmp(h, "PK\3\4", 4) != 0)
		return zero("a central header names no local header");
	nl = le16(h + 26);
	xl = le16(h + 28);
	if (le16(h + 6) != e->flags || le16(h + 8) != e->method ||
	    nl != e->name_len)
		return zero("a local header's flags, method or name differ "
		    "from the central directory's");
	if ((r = src_read(s, name_a, nl, e->lfh + LFH_LEN)) != AR_OK ||
	    (r = src_read(s, name_b, nl, e->name_off)) != AR_OK ||
	    (r = src_read(s, x, xl, e->lfh + LFH_LEN + nl)) != AR_OK)
		return r;
	if (memcmp(name_a, name_b, nl) != 0)
		return zero("a local header's name differs from the central "
		    "directory's");
	crc = le32(h + 14);
	cs = le32(h + 18);
	us = le32(h + 22);
	if (!zip64_local(x, xl, &us, &cs, &z64))
		return zero("a local ZIP64 extra field missing or cut");
	if ((crc != e->crc && !(dd && crc == 0)) ||
	    (cs != e->csize && !(dd && cs == 0)) ||
	    (us != e->usize && !(dd && us == 0)))
		return zero("a local header's CRC or sizes differ from the "
		    "central directory's");
	e->data = e->lfh + LFH_LEN + nl + xl;
	if (e->data > limit || e->csize > limit - e->data)
		return zero("an entry's data runs into the central directory");
	e->end = e->data + e->csize;
	return dd ? descriptor(s, e, limit, z64 || e->csize >= 0xffffffffu ||
	    e->usize >= 0xffffffffu) : AR_OK;
}

static int
cmp_offset(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->lfh < y->lfh ? -1 : x->lfh > y->lfh;
}

/* Sorted by offset, the entries must tile [0, cd_start) exactly. */
static enum r
tile(const struct awl_src *s, const struct zend *z, struct ent *ents,
    uint32_t n)
{
	uint64_t at = 0;
	uint32_t i;
	enum r r;

	qsort(ents, n, sizeof(*ents), cmp_offset);
	for (i = 0; i < n; i++) {
		if (ents[i].lfh < at)
			return zero("entries overlap (an overlapping-file "
			    "bomb?)");
		if (ents[i].lfh > at)
			return zero(at == 0 ? "bytes before the first entry" :
			    "bytes between entries that no entry owns");
		if ((r = local_header(s, &ents[i], z->cd_start)) != AR_OK)
			return r;
		at = ents[i].end;
	}
	if (at != z->cd_start)
		return zero("bytes between the last entry and the central "
		    "directory");
	return AR_OK;
}

/* Names ordered by hash, length, then bytes (read again from the
 * central directory, so the order is exact whatever the hash). */
static int
cmp_name(const void *pa, const void *pb)
{
	const struct ent *a = &g.sort_ents[*(const uint32_t *)pa];
	const struct ent *b = &g.sort_ents[*(const uint32_t *)pb];
	const struct awl_src *s = g.sort_src;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	if (a == b || g.sort_err)
		return 0;
	if (s->pread(s->ctx, name_a, a->name_len, a->name_off) !=
	    (ssize_t)a->name_len ||
	    s->pread(s->ctx, name_b, b->name_len, b->name_off) !=
	    (ssize_t)b->name_len) {
		g.sort_err = 1;
		return 0;
	}
	return memcmp(name_a, name_b, a->name_len);
}

static enum r
unique_names(const struct awl_src *s, const struct ent *ents, uint32_t *idx,
    uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		idx[i] = i;
	g.sort_ents = ents;
	g.sort_src = s;
	g.sort_err = 0;
	qsort(idx, n, sizeof(*idx), cmp_name);
	for (i = 1; i < n && !g.sort_err; i++)
		if (cmp_name(&idx[i - 1], &idx[i]) == 0)
			return zero("two entries with one name");
	return g.sort_err ? AR_IOERR : AR_OK;
}

/* ---- 4. the data -------------------------------------------------------- */

static int
is_archive(const uint8_t *head, size_t have, uint64_t size)
{
	return have >= 4 && size >= EOCD_LEN &&
	    (memcmp(head, "PK\3\4", 4) == 0 || memcmp(head, "PK\5\6", 4) == 0);
}

/* The end of a deflated entry: all its bytes taken, its size and CRC. */
static enum r
inflated_end(const struct ent *e, const z_stream *zs, uint64_t pos,
    uint64_t total, uint32_t crc)
{
	if (zs->avail_in != 0 || pos != e->data + e->csize)
		return zero("bytes after an entry's deflate stream");
	if (total != e->usize)
		return zero("an entry inflates to less than its size");
	if (crc != e->crc)
		return zero("an entry's CRC-32 does not match");
	return AR_OK;
}

/* Inflate e's data, counting: past its declared size it stops. Into dst
 * (e->usize bytes) when given; with sniff, AR_NESTED as soon as the first
 * bytes say an archive. */
static enum r
inflate_entry(const struct awl_src *s, const struct ent *e, uint8_t *dst,
    int sniff)
{
	static uint8_t in[BLOCK], out[BLOCK];
	uint64_t pos = e->data, end = e->data + e->csize, total = 0;
	uint32_t crc = (uint32_t)crc32(0, NULL, 0);
	uint8_t head[4];
	z_stream zs;
	int zr = Z_OK;
	enum r r = AR_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
		return AR_IOERR;
	while (zr != Z_STREAM_END) {
		uint8_t *o = out;
		size_t room = BLOCK, got, k;

		if (zs.avail_in == 0) {
			size_t n = end - pos < BLOCK ? (size_t)(end - pos) :
			    BLOCK;
			if (n == 0) {
				r = zero("an entry's deflate stream is cut "
				    "short");
				break;
			}
			if ((r = src_read(s, in, n, pos)) != AR_OK)
				break;
			pos += n;
			zs.next_in = in;
			zs.avail_in = (uInt)n;
		}
		if (dst != NULL && total < e->usize) {
			o = dst + total;
			if (e->usize - total < room)
				room = (size_t)(e->usize - total);
		}
		zs.next_out = o;
		zs.avail_out = (uInt)room;
		zr = inflate(&zs, Z_NO_FLUSH);
		if ((zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) ||
		    (zr == Z_BUF_ERROR && zs.avail_in != 0)) {
			r = zero("an entry's deflate data is corrupt");
			break;
		}
		got = room - zs.avail_out;
		if (got > e->usize - total) {
			r = zero("an entry inflates to more than its size");
			break;
		}
		crc = (uint32_t)crc32_z(crc, o, got);
		for (k = (size_t)total; k < 4 && k < total + got; k++)
			head[k] = o[k - total];
		total += got;
		if (sniff && total >= 4 && is_archive(head, 4, e->usize)) {
			r = AR_NESTED;
			break;
		}
		if (over_cpu()) {
			r = zero("its time budget ran out");
			break;
		}
	}
	(void)inflateEnd(&zs);
	return r != AR_OK ? r : inflated_end(e, &zs, pos, total, crc);
}

/* A stored entry: its CRC-32, and its first bytes in head. */
static enum r
stored_entry(const struct awl_src *s, const struct ent *e, uint8_t *head)
{
	static uint8_t in[BLOCK];
	uint64_t pos = e->data, end = e->data + e->csize;
	uint32_t crc = (uint32_t)crc32(0, NULL, 0);
	enum r r;

	while (pos < end) {
		size_t n = end - pos < BLOCK ? (size_t)(end - pos) : BLOCK;

		if ((r = src_read(s, in, n, pos)) != AR_OK)
			return r;
		if (pos == e->data)
			memcpy(head, in, n < 4 ? n : 4);
		crc = (uint32_t)crc32_z(crc, in, n);
		pos += n;
		if (over_cpu())
			return zero("its time budget ran out");
	}
	return crc == e->crc ? AR_OK :
	    zero("an entry's CRC-32 does not match");
}

static enum r check_archive(const struct awl_src *s, int depth);

static enum r
nested_deflated(const struct awl_src *s, const struct ent *e, int depth)
{
	struct awl_src child;
	uint8_t *buf;
	enum r r;

	if (depth >= AWL_MAX_DEPTH)
		return zero("archives nested more than 4 deep");
	if (e->usize > AWL_NEST_ARENA - g.arena_used)
		return zero("deflated nested archives over 32 MiB");
	if ((buf = malloc((size_t)e->usize)) == NULL)
		return AR_IOERR;
	g.arena_used += (size_t)e->usize;
	r = inflate_entry(s, e, buf, 0);
	if (r == AR_OK) {
		child.pread = mem_pread;
		child.ctx = buf;
		child.size = e->usize;
		r = check_archive(&child, depth + 1);
	}
	g.arena_used -= (size_t)e->usize;
	free(buf);
	return r;
}

static enum r
check_entry(const struct awl_src *s, const struct ent *e, int depth)
{
	struct awl_src child;
	struct win w;
	uint8_t head[4] = { 0 };
	enum r r;

	if (e->method == 8) {
		r = inflate_entry(s, e, NULL, 1);
		return r == AR_NESTED ? nested_deflated(s, e, depth) : r;
	}
	if (e->usize >= 4) {
		if ((r = src_read(s, head, 4, e->data)) != AR_OK)
			return r;
		if (is_archive(head, 4, e->usize) && depth >= AWL_MAX_DEPTH)
			return zero("archives nested more than 4 deep");
	}
	if ((r = stored_entry(s, e, head)) != AR_OK)
		return r;
	if (!is_archive(head, e->usize >= 4 ? 4 : 0, e->usize))
		return AR_OK;
	w.parent = s;
	w.base = e->data;
	child.pread = win_pread;
	child.ctx = &w;
	child.size = e->usize;
	return check_archive(&child, depth + 1);
}

static enum r
check_archive(const struct awl_src *s, int depth)
{
	struct zend z;
	struct ent *ents;
	uint32_t *idx, n, i;
	enum r r;

	if ((r = find_end(s, &z)) != AR_OK)
		return r;
	if (z.count > AWL_MAX_ENTRIES - g.used)
		return zero("more than 10000 entries");
	if (z.cd_size > g.cd_left)
		return zero("central directories over 16 MiB in all");
	if (z.count > z.cd_size / CDH_LEN)
		return zero("the central directory is shorter than its "
		    "entries");
	g.cd_left -= z.cd_size;
	n = (uint32_t)z.count;
	ents = g.ent + g.used;
	idx = g.idx + g.used;
	g.used += n;
	if ((r = walk_central(s, &z, ents)) != AR_OK ||
	    (r = tile(s, &z, ents, n)) != AR_OK ||
	    (r = unique_names(s, ents, idx, n)) != AR_OK)
		return r;
	for (i = 0; i < n; i++)
		if ((r = check_entry(s, &ents[i], depth)) != AR_OK)
			return r;
	return AR_OK;
}

enum awl_answer
awl_check(const struct awl_src *src, const char **why)
{
	enum r r;

	g.used = 0;
	g.out_left = AWL_MAX_TOTAL;
	g.in_left = AWL_MAX_INPUT;
	g.cd_left = AWL_MAX_CD;
	g.arena_used = 0;
	g.ticks = 0;
	g.why = NULL;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &g.cpu0) != 0)
		memset(&g.cpu0, 0, sizeof(g.cpu0));
	if (clock_gettime(CLOCK_MONOTONIC, &g.wall0) != 0)
		memset(&g.wall0, 0, sizeof(g.wall0));
	r = check_archive(src, 0);
	if (why != NULL)
		*why = r == AR_ZERO ? g.why : NULL;
	return r == AR_OK ? AWL_YES : r == AR_ZERO ? AWL_NO : AWL_IOERR;
}
