/* is-encrypted, ZIP part (APPNOTE.TXT 6.3.10; docs/plugins.md).
 *
 * The central directory is found as Python's zipfile finds it: the last
 * end-of-central-directory signature in the file's last 64 KiB + 22 bytes,
 * the ZIP64 record right before it when its locator is there, and the
 * directory's start taken from that record's position minus the
 * directory's size (so a self-extracting stub before the archive is
 * allowed). Every central directory header is read, strictly, to the
 * directory's size. Encrypted when:
 *   - an entry has general purpose flag bit 0 (ZipCrypto, and WinZip AES,
 *     which sets it with method 99), or
 *   - the entry META-INF/manifest.xml (ODF 1.2 section 3.8: an encrypted
 *     ODF document marks nothing in the ZIP itself) has an element whose
 *     local name is encryption-data. Only that entry is ever inflated,
 *     through zlib, at most ENC_MANIFEST_MAX bytes of it. */
#include "enc_check.h"

#include <string.h>
#include <zlib.h>

#define CDH_LEN 46		/* central directory header, fixed part */
#define LFH_LEN 30		/* local file header, fixed part */
#define MANIFEST "META-INF/manifest.xml"
#define BLOCK (64u << 10)

/* A forward reader over [pos, end) with one buffer. */
struct rd {
	const struct pdf_src *src;
	uint64_t pos, end;
	uint64_t bstart;
	size_t blen;
	uint8_t buf[BLOCK];
};

static enum enc_answer
rd_take(struct rd *r, uint8_t *out, size_t len)
{
	while (len > 0) {
		size_t have, n;
		enum enc_answer e;

		if (r->pos >= r->end || len > r->end - r->pos)
			return ENC_UNJUDGED;
		if (r->pos < r->bstart || r->pos - r->bstart >= r->blen) {
			size_t want = r->end - r->pos < BLOCK ?
			    (size_t)(r->end - r->pos) : BLOCK;
			if ((e = enc_read(r->src, r->buf, want, r->pos)) !=
			    ENC_NO)
				return e;
			r->bstart = r->pos;
			r->blen = want;
		}
		have = r->blen - (size_t)(r->pos - r->bstart);
		n = have < len ? have : len;
		if (out != NULL) {
			memcpy(out, r->buf + (r->pos - r->bstart), n);
			out += n;
		}
		r->pos += n;
		len -= n;
	}
	return ENC_NO;
}

struct zdir {
	uint64_t cd_start, cd_size, concat;
};

/* The end records: the last EOCD signature in the tail window, and the
 * ZIP64 end record before its locator. */
static enum enc_answer
zip_end(const struct pdf_src *src, struct zdir *z)
{
	static uint8_t tail[65535 + 22];
	size_t len = src->size < sizeof(tail) ? (size_t)src->size : sizeof(tail);
	uint64_t from = src->size - len, eocd, rec;
	uint8_t z64[56], loc[20];
	enum enc_answer e;
	size_t i;

	if ((e = enc_read(src, tail, len, from)) != ENC_NO)
		return e;
	for (i = len < 22 ? 0 : len - 22 + 1; i-- > 0;)
		if (memcmp(tail + i, "PK\5\6", 4) == 0)
			break;
	if (i == (size_t)-1)
		return ENC_UNJUDGED;
	eocd = from + i;
	z->cd_size = enc_le32(tail + i + 12);
	rec = eocd;
	/* APPNOTE 4.3.15: the ZIP64 locator sits right before the EOCD. */
	if (eocd >= 20 + 56 && enc_read(src, loc, 20, eocd - 20) == ENC_NO &&
	    memcmp(loc, "PK\6\7", 4) == 0) {
		rec = eocd - 20 - 56;
		if ((e = enc_read(src, z64, 56, rec)) != ENC_NO)
			return e;
		if (memcmp(z64, "PK\6\6", 4) != 0)
			return ENC_UNJUDGED;
		z->cd_size = enc_le64(z64 + 40);
		z->cd_start = enc_le64(z64 + 48);
	} else {
		z->cd_start = enc_le32(tail + i + 16);
	}
	if (z->cd_size > rec || z->cd_start > rec - z->cd_size)
		return ENC_UNJUDGED;
	z->concat = rec - z->cd_size - z->cd_start;
	z->cd_start += z->concat;
	return ENC_NO;
}

struct entry {
	int found;
	uint16_t flags, method;
	uint64_t csize, lfh;
};

/* The ZIP64 extended information extra field (APPNOTE 4.5.3): the 64-bit
 * values of those fixed fields that hold 0xFFFFFFFF, in order. */
static int
zip64_extra(const uint8_t *x, size_t xl, uint32_t usize, uint32_t csize,
    uint32_t lfh, struct entry *en)
{
	while (xl >= 4) {
		uint16_t id = enc_le16(x), n = enc_le16(x + 2);
		size_t at = 4;

		if ((size_t)n > xl - 4)
			return 0;
		if (id == 1) {
			if (usize == 0xffffffffu)
				at += 8;
			if (csize == 0xffffffffu) {
				if (at + 8 > 4u + n)
					return 0;
				en->csize = enc_le64(x + at);
				at += 8;
			}
			if (lfh == 0xffffffffu) {
				if (at + 8 > 4u + n)
					return 0;
				en->lfh = enc_le64(x + at);
			}
			return 1;
		}
		x += 4 + n;
		xl -= 4 + (size_t)n;
	}
	return csize != 0xffffffffu && lfh != 0xffffffffu;
}

/* Every central directory header: 1 when one is encrypted, 0 none, the
 * manifest's entry (the last of that name, as zipfile keeps) in *man. */
static enum enc_answer
zip_walk(struct rd *r, const struct zdir *z, int *any, struct entry *man)
{
	static uint8_t extra[65535];
	uint8_t h[CDH_LEN], name[sizeof(MANIFEST) - 1];
	enum enc_answer e;

	r->pos = z->cd_start;
	r->end = z->cd_start + z->cd_size;
	while (r->pos < r->end) {
		uint16_t nl, xl, cl;

		if ((e = rd_take(r, h, CDH_LEN)) != ENC_NO)
			return e;
		if (memcmp(h, "PK\1\2", 4) != 0)
			return ENC_UNJUDGED;
		nl = enc_le16(h + 28);
		xl = enc_le16(h + 30);
		cl = enc_le16(h + 32);
		if (enc_le16(h + 8) & 1)
			*any = 1;
		if (nl == sizeof(name)) {
			if ((e = rd_take(r, name, nl)) != ENC_NO)
				return e;
		} else if ((e = rd_take(r, NULL, nl)) != ENC_NO) {
			return e;
		}
		if ((e = rd_take(r, extra, xl)) != ENC_NO ||
		    (e = rd_take(r, NULL, cl)) != ENC_NO)
			return e;
		if (nl != sizeof(name) || memcmp(name, MANIFEST, nl) != 0)
			continue;
		memset(man, 0, sizeof(*man));
		man->found = 1;
		man->flags = enc_le16(h + 8);
		man->method = enc_le16(h + 10);
		man->csize = enc_le32(h + 20);
		man->lfh = enc_le32(h + 42);
		if (!zip64_extra(extra, xl, enc_le32(h + 24), enc_le32(h + 20),
		    enc_le32(h + 42), man))
			return ENC_UNJUDGED;
	}
	return ENC_NO;
}

/* Tag names in the manifest's bytes: after '<', a name up to whitespace,
 * '/' or '>'; its local part (after the last ':') is compared. A name
 * longer than the buffer is not the one sought. */
struct tagscan {
	int in;			/* inside a tag's name */
	size_t n;
	char name[64];
	int found;
};

static void
tag_feed(struct tagscan *t, const uint8_t *p, size_t len)
{
	static const char want[] = "encryption-data";
	size_t i;

	for (i = 0; i < len && !t->found; i++) {
		uint8_t b = p[i];
		int endc = b == ' ' || b == '\t' || b == '\r' || b == '\n' ||
		    b == '/' || b == '>';

		if (b == '<') {
			t->in = 1;
			t->n = 0;
			continue;
		}
		if (!t->in)
			continue;
		if (endc) {
			size_t k = t->n, from = 0;

			t->in = 0;
			if (k > sizeof(t->name))
				continue;
			while (k-- > 0)
				if (t->name[k] == ':') {
					from = k + 1;
					break;
				}
			if (t->n - from == sizeof(want) - 1 &&
			    memcmp(t->name + from, want, sizeof(want) - 1) == 0)
				t->found = 1;
			continue;
		}
		if (t->n < sizeof(t->name))
			t->name[t->n] = (char)b;
		t->n++;
	}
}

/* The manifest's bytes, stored or deflated, through tag_feed. */
static enum enc_answer
manifest_scan(struct rd *r, const struct zdir *z, const struct entry *m,
    int *found)
{
	static uint8_t out[BLOCK];
	uint8_t lfh[LFH_LEN], name[sizeof(MANIFEST) - 1];
	struct tagscan t;
	uint64_t at, total = 0;
	enum enc_answer e;
	z_stream zs;
	int zr = Z_OK;

	if (m->method != 0 && m->method != 8)
		return ENC_UNJUDGED;	/* no reader of ODF writes another */
	if (m->lfh > UINT64_MAX - z->concat)
		return ENC_UNJUDGED;
	at = m->lfh + z->concat;
	if ((e = enc_read(r->src, lfh, LFH_LEN, at)) != ENC_NO)
		return e;
	if (memcmp(lfh, "PK\3\4", 4) != 0 ||
	    enc_le16(lfh + 26) != sizeof(name))
		return ENC_UNJUDGED;
	if ((e = enc_read(r->src, name, sizeof(name), at + LFH_LEN)) != ENC_NO)
		return e;
	if (memcmp(name, MANIFEST, sizeof(name)) != 0)
		return ENC_UNJUDGED;	/* zipfile refuses a different name */
	r->pos = at + LFH_LEN + sizeof(name) + enc_le16(lfh + 28);
	if (r->pos > r->src->size || m->csize > r->src->size - r->pos)
		return ENC_UNJUDGED;
	r->end = r->pos + m->csize;
	r->blen = 0;
	memset(&t, 0, sizeof(t));
	memset(&zs, 0, sizeof(zs));
	if (m->method == 8 && inflateInit2(&zs, -MAX_WBITS) != Z_OK)
		return ENC_UNJUDGED;
	e = ENC_NO;
	while (r->pos < r->end && !t.found && zr != Z_STREAM_END) {
		size_t n = r->end - r->pos < BLOCK ? (size_t)(r->end - r->pos) :
		    BLOCK;
		uint8_t *in = r->buf;

		if ((e = enc_read(r->src, in, n, r->pos)) != ENC_NO)
			break;
		r->pos += n;
		r->blen = 0;
		if (m->method == 0) {
			tag_feed(&t, in, n);
			continue;
		}
		zs.next_in = in;
		zs.avail_in = (uInt)n;
		do {
			zs.next_out = out;
			zs.avail_out = sizeof(out);
			zr = inflate(&zs, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END &&
			    !(zr == Z_BUF_ERROR && zs.avail_in == 0)) {
				e = ENC_UNJUDGED;
				break;
			}
			total += sizeof(out) - zs.avail_out;
			if (total > ENC_MANIFEST_MAX) {
				e = ENC_UNJUDGED;
				break;
			}
			tag_feed(&t, out, sizeof(out) - zs.avail_out);
		} while (zs.avail_out == 0 && zr == Z_OK && !t.found);
		if (e != ENC_NO)
			break;
	}
	if (m->method == 8) {
		(void)inflateEnd(&zs);
		/* A deflate stream cut short is not a manifest one can read. */
		if (e == ENC_NO && !t.found && zr != Z_STREAM_END)
			e = ENC_UNJUDGED;
	}
	*found = t.found;
	return e;
}

enum enc_answer
enc_zip(const struct pdf_src *src)
{
	static struct rd r;
	struct entry man;
	struct zdir z;
	enum enc_answer e;
	int any = 0, found = 0;

	memset(&man, 0, sizeof(man));
	r.src = src;
	r.blen = 0;
	if ((e = zip_end(src, &z)) != ENC_NO ||
	    (e = zip_walk(&r, &z, &any, &man)) != ENC_NO)
		return e;
	if (any || (man.found && (man.flags & 1)))
		return ENC_YES;
	if (!man.found)
		return ENC_NO;
	if ((e = manifest_scan(&r, &z, &man, &found)) != ENC_NO)
		return e;
	return found ? ENC_YES : ENC_NO;
}
