/* The ZIP reader shared by is-encrypted and has-active-content
 * (zipread.h; APPNOTE.TXT 4.3, 4.5.3; docs/plugins.md).
 *
 * The central directory is found as Python's zipfile finds it: the last
 * end-of-central-directory signature in the file's last 64 KiB + 22 bytes,
 * the ZIP64 record right before it when its locator is there, and the
 * directory's start taken from that record's position minus the
 * directory's size (so a self-extracting stub before the archive is
 * allowed). Every central directory header is read, strictly, to the
 * directory's size. Only zlib inflates. */
#include "zipread.h"
#include "lfplugin.h"

#include <string.h>
#include <zlib.h>

#define CDH_LEN 46		/* central directory header, fixed part */
#define LFH_LEN 30		/* local file header, fixed part */
#define BLOCK (64u << 10)

/* The central directory, read forward (the SDK's lfp_fwd). */
static int
cd_fill(const void *src, void *buf, size_t len, uint64_t off)
{
	return (int)enc_read(src, buf, len, off);
}

static enum enc_answer
rd_take(struct lfp_fwd *r, uint8_t *out, size_t len)
{
	int e = lfp_fwd_take(r, out, len);

	return e == LFP_FWD_PAST ? ENC_UNJUDGED : (enum enc_answer)e;
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


/* The ZIP64 extended information extra field (APPNOTE 4.5.3): the 64-bit
 * values of those fixed fields that hold 0xFFFFFFFF, in order. */
static int
zip64_extra(const uint8_t *x, size_t xl, uint32_t usize, uint32_t csize,
    uint32_t lfh, struct zip_entry *en)
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

enum enc_answer
zip_entries(const struct pdf_src *src, zip_entry_fn fn, void *arg)
{
	static struct lfp_fwd r;
	static uint8_t extra[65535];
	static struct zip_entry en;
	uint8_t h[CDH_LEN];
	struct zdir z;
	enum enc_answer e;

	lfp_fwd_init(&r, cd_fill, src);
	if ((e = zip_end(src, &z)) != ENC_NO)
		return e;
	r.pos = z.cd_start;
	r.end = z.cd_start + z.cd_size;
	while (r.pos < r.end) {
		uint16_t nl, xl, cl;
		size_t keep;

		if ((e = rd_take(&r, h, CDH_LEN)) != ENC_NO)
			return e;
		if (memcmp(h, "PK\1\2", 4) != 0)
			return ENC_UNJUDGED;
		nl = enc_le16(h + 28);
		xl = enc_le16(h + 30);
		cl = enc_le16(h + 32);
		memset(&en, 0, sizeof(en));
		keep = nl > ZIP_NAME_KEEP ? ZIP_NAME_KEEP : nl;
		if ((e = rd_take(&r, (uint8_t *)en.name, keep)) != ENC_NO ||
		    (e = rd_take(&r, NULL, nl - keep)) != ENC_NO ||
		    (e = rd_take(&r, extra, xl)) != ENC_NO ||
		    (e = rd_take(&r, NULL, cl)) != ENC_NO)
			return e;
		en.name_len = nl;
		en.name_long = nl > ZIP_NAME_KEEP;
		en.flags = enc_le16(h + 8);
		en.method = enc_le16(h + 10);
		en.csize = enc_le32(h + 20);
		en.lfh = enc_le32(h + 42);
		if (!zip64_extra(extra, xl, enc_le32(h + 24), enc_le32(h + 20),
		    enc_le32(h + 42), &en))
			return ENC_UNJUDGED;
		if (en.lfh > UINT64_MAX - z.concat)
			return ENC_UNJUDGED;
		en.lfh += z.concat;
		if ((e = fn(arg, &en)) != ENC_NO)
			return e;
	}
	return ENC_NO;
}

enum enc_answer
zip_entry_data(const struct pdf_src *src, const struct zip_entry *m,
    uint64_t max_out, zip_data_fn fn, void *arg)
{
	static uint8_t out[BLOCK], in[BLOCK];
	static uint8_t name[ZIP_NAME_KEEP];
	uint8_t lfh[LFH_LEN];
	uint64_t pos, end, total = 0;
	enum enc_answer e;
	z_stream zs;
	int zr = Z_OK, stop = 0;

	if (m->method != 0 && m->method != 8)
		return ENC_UNJUDGED;
	if (m->name_long)
		return ENC_UNJUDGED;
	if ((e = enc_read(src, lfh, LFH_LEN, m->lfh)) != ENC_NO)
		return e;
	if (memcmp(lfh, "PK\3\4", 4) != 0 ||
	    enc_le16(lfh + 26) != m->name_len)
		return ENC_UNJUDGED;
	if ((e = enc_read(src, name, m->name_len, m->lfh + LFH_LEN)) != ENC_NO)
		return e;
	if (memcmp(name, m->name, m->name_len) != 0)
		return ENC_UNJUDGED;	/* zipfile refuses a different name */
	pos = m->lfh + LFH_LEN + m->name_len + enc_le16(lfh + 28);
	if (pos > src->size || m->csize > src->size - pos)
		return ENC_UNJUDGED;
	end = pos + m->csize;
	memset(&zs, 0, sizeof(zs));
	if (m->method == 8 && inflateInit2(&zs, -MAX_WBITS) != Z_OK)
		return ENC_UNJUDGED;
	e = ENC_NO;
	while (pos < end && !stop && zr != Z_STREAM_END) {
		size_t n = end - pos < BLOCK ? (size_t)(end - pos) : BLOCK;

		if ((e = enc_read(src, in, n, pos)) != ENC_NO)
			break;
		pos += n;
		if (m->method == 0) {
			total += n;
			if (total > max_out) {
				e = ENC_UNJUDGED;
				break;
			}
			stop = fn(arg, in, n);
			continue;
		}
		zs.next_in = in;
		zs.avail_in = (uInt)n;
		do {
			size_t got;

			zs.next_out = out;
			zs.avail_out = sizeof(out);
			zr = inflate(&zs, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END &&
			    !(zr == Z_BUF_ERROR && zs.avail_in == 0)) {
				e = ENC_UNJUDGED;
				break;
			}
			got = sizeof(out) - zs.avail_out;
			total += got;
			if (total > max_out) {
				e = ENC_UNJUDGED;
				break;
			}
			stop = fn(arg, out, got);
		} while (zs.avail_out == 0 && zr == Z_OK && !stop);
		if (e != ENC_NO)
			break;
	}
	if (m->method == 8) {
		(void)inflateEnd(&zs);
		/* A deflate stream cut short is not one to judge by. */
		if (e == ENC_NO && !stop && zr != Z_STREAM_END)
			e = ENC_UNJUDGED;
	}
	return e;
}
