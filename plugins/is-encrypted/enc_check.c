/* is-encrypted: recognise the container by its signature, then ask the
 * part that knows it (docs/plugins.md, "is-encrypted"), in this order:
 *   - "PK\3\4" at byte 0: a ZIP (a ZIP of stored PDFs has "%PDF-" early);
 *   - the compound file signature at byte 0: enc_cfb.c (EncryptedPackage);
 *   - "%PDF-" in the first 1024 bytes: a PDF, which must pass is-pdf's
 *     structural check (pdf_check.c, shared); encrypted when the newest
 *     cross-reference section's trailer (or xref stream dictionary) has an
 *     /Encrypt entry, as ISO 32000-1 7.6.1 puts it and qpdf --is-encrypted
 *     reads it;
 *   - a ZIP end of central directory in the last 64 KiB + 22 bytes (a
 *     self-extracting archive): enc_zip.c (entry flags, the ODF manifest).
 * Anything else is not an encrypted form: 0. */
#include "enc_check.h"
#include "pdf_lex.h"

#include <string.h>

#define ZIP_TAIL_WINDOW (65535u + 22u)	/* the EOCD and a maximal comment */

struct enc_trailer {
	int encrypt;		/* an /Encrypt entry naming a dictionary */
	int repeated;
};

static int
trailer_key(void *arg, const struct val *key, const struct val *v)
{
	struct enc_trailer *t = arg;

	/* Names arrive decoded (#xx escapes), so /Encr#79pt is /Encrypt. */
	if (key->name_long || strcmp(key->name, "Encrypt") != 0)
		return 0;
	if (t->encrypt)
		t->repeated = 1;	/* is-pdf refuses no such repeat: we do */
	/* A reference to the dictionary, or the dictionary itself; /Encrypt
	 * null is no encryption dictionary (ISO 32000-1 7.3.9). */
	t->encrypt = v->kind == V_REF || v->kind == V_DICT;
	return 0;
}

/* The startxref offset, from a file pdf_check() accepted (so its tail is
 * well-formed: the last "startxref" in the last 1024 + 64 bytes). */
static enum enc_answer
pdf_startxref(const struct pdf_src *src, struct cur *c, uint64_t *xref)
{
	uint8_t buf[PDF_TAIL_WINDOW + 64];
	size_t len = src->size < sizeof(buf) ? (size_t)src->size : sizeof(buf);
	uint64_t from = src->size - len;
	enum enc_answer r;
	size_t i;

	if ((r = enc_read(src, buf, len, from)) != ENC_NO)
		return r;
	for (i = len; i-- > 0;)
		if (i + 9 <= len && memcmp(buf + i, "startxref", 9) == 0)
			break;
	if (i == (size_t)-1)
		return ENC_UNJUDGED;
	cur_seek(c, from + i + 9);
	skip_ws(c);
	return read_uint(c, xref) ? ENC_NO : ENC_UNJUDGED;
}

/* The newest section's dictionary at abs: after an xref table's
 * subsections and "trailer", or an xref stream object's. 1 parsed, 0 not
 * a section here. */
static int
pdf_newest(struct cur *c, uint64_t abs, struct enc_trailer *t)
{
	uint64_t a, b;

	cur_seek(c, abs);
	if (cur_lit(c, "xref")) {
		if (!skip_eol(c))
			return 0;
		for (;;) {
			skip_ws(c);
			if (read_keyword(c, "trailer"))
				break;
			if (!read_uint(c, &a))
				return 0;
			skip_blanks(c);
			if (!read_uint(c, &b) || !skip_eol(c) ||
			    b > (c->end - c->pos) / 20)
				return 0;
			cur_seek(c, c->pos + b * 20);
		}
	} else {
		if (!read_uint(c, &a))
			return 0;
		skip_ws(c);
		if (!read_uint(c, &b))
			return 0;
		skip_ws(c);
		if (!read_keyword(c, "obj"))
			return 0;
	}
	return parse_dict(c, trailer_key, t) == 0;
}

enum enc_answer
enc_pdf(const struct pdf_src *src)
{
	struct enc_trailer t;
	struct cur c;
	uint64_t xref, at;
	enum enc_answer r;
	uint8_t head[PDF_HEADER_WINDOW];
	size_t hl = src->size < sizeof(head) ? (size_t)src->size : sizeof(head);
	int ok;

	if ((r = enc_pdf_check(src)) != ENC_NO)
		return r;
	cur_init(&c, src);
	if ((r = pdf_startxref(src, &c, &xref)) != ENC_NO)
		return r;
	/* pdf_check() takes offsets from byte 0, else from the header: the
	 * same two bases here, the first that leads to a section. */
	if ((r = enc_read(src, head, hl, 0)) != ENC_NO)
		return r;
	at = (uint64_t)((uint8_t *)memmem(head, hl, "%PDF-", 5) - head);
	memset(&t, 0, sizeof(t));
	ok = xref < src->size && pdf_newest(&c, xref, &t);
	if (!ok && at > 0 && xref < src->size - at) {
		memset(&t, 0, sizeof(t));
		ok = pdf_newest(&c, at + xref, &t);
	}
	if (c.ioerr)
		return ENC_IOERR;
	if (!ok || t.repeated)
		return ENC_UNJUDGED;
	return t.encrypt ? ENC_YES : ENC_NO;
}

static int
zip_eocd_present(const struct pdf_src *src, enum enc_answer *err)
{
	static const uint8_t sig[4] = { 'P', 'K', 5, 6 };
	uint8_t buf[ZIP_TAIL_WINDOW];
	size_t len = src->size < sizeof(buf) ? (size_t)src->size : sizeof(buf);

	*err = enc_read(src, buf, len, src->size - len);
	return *err == ENC_NO && memmem(buf, len, sig, 4) != NULL;
}

enum enc_answer
enc_check(const struct pdf_src *src)
{
	static const uint8_t cfb_sig[8] = {
		0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1 };
	uint8_t head[PDF_HEADER_WINDOW];
	size_t hl = src->size < sizeof(head) ? (size_t)src->size : sizeof(head);
	enum enc_answer r;

	if ((r = enc_read(src, head, hl, 0)) != ENC_NO)
		return r;
	if (hl >= 4 && memcmp(head, "PK\3\4", 4) == 0)
		return enc_zip(src);
	if (hl >= 8 && memcmp(head, cfb_sig, 8) == 0)
		return enc_cfb(src);
	if (memmem(head, hl, "%PDF-", 5) != NULL)
		return enc_pdf(src);
	if (zip_eocd_present(src, &r))
		return enc_zip(src);
	return r == ENC_NO ? ENC_NO : r;
}
