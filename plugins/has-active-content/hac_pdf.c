/* has-active-content, PDF part (docs/plugins.md, "has-active-content").
 *
 * The file must pass is-pdf's structural check (pdf_check.c, shared).
 * Then every byte of it is tokenised by ISO 32000-1 7.2 and 7.3: comments,
 * literal and hex strings are skipped (a "/JS" inside a string is text),
 * names are decoded (#xx: /J#61vaScript is /JavaScript), and a stream's
 * data is skipped by its direct /Length or up to "endstream" -- except an
 * object stream (/Type /ObjStm, PDF 1.5), whose data is inflated (zlib, at
 * most HAC_OBJSTM_MAX bytes each) and tokenised the same way, so objects
 * hidden in it are seen. Every object of every revision is read, so an
 * action added by an incremental update is seen (and one removed by an
 * update still counts: the file carries it). Active when a name is one of
 * the action and content types in active_names[]. */
#include "hac_check.h"
#include "pdf_lex.h"

#include <string.h>
#include <zlib.h>

static const char *const active_names[] = {
	"JS", "JavaScript", "Launch", "SubmitForm", "ImportData", "GoToR",
	"GoToE", "RichMedia", "XFA", "EmbeddedFile", "EmbeddedFiles",
};

/* Filters other than Flate, and predictors: an object stream using one
 * is not read (no answer). */
static const char *const filters[] = {
	"ASCIIHexDecode", "ASCII85Decode", "LZWDecode", "RunLengthDecode",
	"CCITTFaxDecode", "JBIG2Decode", "DCTDecode", "JPXDecode", "Crypt",
	"AHx", "A85", "LZW", "RL", "DecodeParms",
};

enum { T_NORMAL, T_COMMENT, T_LIT, T_HEX, T_NAME, T_WORD };

#define TOK_KEEP 32		/* longer names or words never match */

struct tok {
	int state, depth, esc;
	char buf[TOK_KEEP + 1];
	size_t n;
	int active;
	/* the last tokens, for the stream decision (file level only) */
	int after_type, after_length, objstm, flate, other;
	uint64_t length, word_num;
	int length_known, words_since_length;
	int word_done;		/* a word ended with the last byte: buf holds it */
};

/* A name ended: decode #xx, compare, and note what the stream decision
 * needs. */
static void
name_done(struct tok *t)
{
	char d[TOK_KEEP + 1];
	size_t i, k = 0;

	if (t->n > TOK_KEEP)
		goto other;
	for (i = 0; i < t->n; i++) {
		if (t->buf[i] == '#' && i + 2 < t->n &&
		    pdf_hexval(t->buf[i + 1]) >= 0 && pdf_hexval(t->buf[i + 2]) >= 0) {
			d[k++] = (char)(pdf_hexval(t->buf[i + 1]) << 4 |
			    pdf_hexval(t->buf[i + 2]));
			i += 2;
		} else {
			d[k++] = t->buf[i];
		}
	}
	d[k] = '\0';
	for (i = 0; i < sizeof(active_names) / sizeof(active_names[0]); i++)
		if (strlen(active_names[i]) == k &&
		    memcmp(active_names[i], d, k) == 0)
			t->active = 1;
	if (t->after_type && strcmp(d, "ObjStm") == 0)
		t->objstm = 1;
	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
		if (strcmp(d, filters[i]) == 0)
			t->other = 1;	/* not for an object stream */
	if (strcmp(d, "FlateDecode") == 0 || strcmp(d, "Fl") == 0)
		t->flate = 1;
	t->after_type = strcmp(d, "Type") == 0;
	t->after_length = strcmp(d, "Length") == 0;
	return;
other:
	t->after_type = t->after_length = 0;
}

static void
word_done(struct tok *t)
{
	uint64_t v = 0;
	size_t i;
	int num = t->n > 0 && t->n <= 19;

	for (i = 0; i < t->n && num; i++) {
		if (t->buf[i] < '0' || t->buf[i] > '9')
			num = 0;
		else
			v = v * 10 + (uint64_t)(t->buf[i] - '0');
	}
	if (t->after_length) {
		t->length = v;
		t->length_known = num;
		t->words_since_length = 0;
		t->after_length = 0;
	} else if (t->words_since_length < 3) {
		/* "/Length 12 0 R": indirect, not known here */
		if (t->n == 1 && t->buf[0] == 'R')
			t->length_known = 0;
		t->words_since_length++;
	}
	t->word_num = v;
	t->word_done = 1;
}

static void
tok_byte(struct tok *t, int b)
{
	t->word_done = 0;
	switch (t->state) {
	case T_COMMENT:
		if (b == '\r' || b == '\n')
			t->state = T_NORMAL;
		return;
	case T_LIT:
		if (t->esc)
			t->esc = 0;
		else if (b == '\\')
			t->esc = 1;
		else if (b == '(')
			t->depth++;
		else if (b == ')' && --t->depth == 0)
			t->state = T_NORMAL;
		return;
	case T_HEX:
		if (b == '>' || (t->esc && b == '<'))
			t->state = T_NORMAL;	/* "<<" opens a dictionary */
		t->esc = 0;
		return;
	case T_NAME:
	case T_WORD:
		if (!pdf_is_ws(b) && !pdf_is_delim(b)) {
			if (t->n < TOK_KEEP)
				t->buf[t->n] = (char)b;
			t->n++;
			return;
		}
		if (t->state == T_NAME)
			name_done(t);
		else
			word_done(t);
		t->state = T_NORMAL;
		break;
	default:
		break;
	}
	/* T_NORMAL: this byte starts a token, or is whitespace */
	if (b == '%') {
		t->state = T_COMMENT;
	} else if (b == '(') {
		t->state = T_LIT;
		t->depth = 1;
		t->esc = 0;
	} else if (b == '<') {
		t->state = T_HEX;
		t->esc = 1;		/* just opened: a second '<' is "<<" */
	} else if (b == '/') {
		t->state = T_NAME;
		t->n = 0;
	} else if (!pdf_is_ws(b) && !pdf_is_delim(b)) {
		t->state = T_WORD;
		t->n = 0;
		t->buf[t->n++] = (char)b;
	}
}

static void
tok_feed(struct tok *t, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && !t->active; i++)
		tok_byte(t, p[i]);
}

static int
word_is(const struct tok *t, const char *w)
{
	return t->word_done && t->n == strlen(w) && memcmp(t->buf, w, t->n) == 0;
}

struct pdfscan {
	const struct pdf_src *src;
	struct cur c;
	struct tok t;
	uint64_t inflated;
};

/* An object stream's data at [at, at + len): inflated and tokenised (or,
 * without a filter, tokenised as it is). */
static enum enc_answer
objstm(struct pdfscan *s, uint64_t at, uint64_t len)
{
	static uint8_t in[64 << 10], out[64 << 10];
	static struct tok sub;
	uint64_t end = at + len, total = 0;
	enum enc_answer e = ENC_NO;
	z_stream zs;
	int zr = Z_OK;

	memset(&sub, 0, sizeof(sub));
	memset(&zs, 0, sizeof(zs));
	if (s->t.flate && inflateInit(&zs) != Z_OK)
		return ENC_UNJUDGED;
	while (at < end && zr != Z_STREAM_END && !sub.active) {
		size_t n = end - at < sizeof(in) ? (size_t)(end - at) :
		    sizeof(in);

		if ((e = enc_read(s->src, in, n, at)) != ENC_NO)
			break;
		at += n;
		if (!s->t.flate) {
			tok_feed(&sub, in, n);
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
				e = ENC_UNJUDGED;	/* corrupt, or encrypted */
				break;
			}
			got = sizeof(out) - zs.avail_out;
			total += got;
			s->inflated += got;
			if (total > HAC_OBJSTM_MAX ||
			    s->inflated > HAC_INFLATE_MAX) {
				e = ENC_UNJUDGED;
				break;
			}
			tok_feed(&sub, out, got);
		} while (zs.avail_out == 0 && zr == Z_OK && !sub.active);
		if (e != ENC_NO)
			break;
	}
	if (s->t.flate) {
		(void)inflateEnd(&zs);
		if (e == ENC_NO && !sub.active && zr != Z_STREAM_END)
			e = ENC_UNJUDGED;
	}
	if (sub.active)
		s->t.active = 1;
	return e;
}

/* At a stream's data (the cursor just past "stream" and its end of line):
 * an object stream is read; any other is skipped by its direct /Length
 * when "endstream" follows it, else up to the next "endstream". */
static enum enc_answer
stream(struct pdfscan *s)
{
	struct cur *c = &s->c;
	uint64_t at = c->pos, len = s->t.length;
	size_t k = 0;
	int b;

	if (s->t.objstm) {
		if (!s->t.length_known || s->t.other ||
		    len > s->src->size - at)
			return ENC_UNJUDGED;
		cur_seek(c, at + len);
		return objstm(s, at, len);
	}
	if (s->t.length_known && len <= s->src->size - at) {
		cur_seek(c, at + len);
		skip_ws(c);
		if (cur_lit(c, "endstream")) {
			c->pos -= 9;	/* tokenised as a word */
			return ENC_NO;
		}
	}
	cur_seek(c, at);
	while ((b = cur_get(c)) >= 0) {
		k = b == "endstream"[k] ? k + 1 : (b == 'e' ? 1 : 0);
		if (k == 9) {
			c->pos -= 9;
			return ENC_NO;
		}
	}
	return c->ioerr ? ENC_IOERR : ENC_UNJUDGED;
}

enum enc_answer
hac_pdf(const struct pdf_src *src)
{
	static struct pdfscan s;
	enum enc_answer e;
	int b;

	if ((e = enc_pdf_check(src)) != ENC_NO)
		return e;
	memset(&s, 0, sizeof(s));
	s.src = src;
	cur_init(&s.c, src);
	while (!s.t.active && (b = cur_get(&s.c)) >= 0) {
		tok_byte(&s.t, b);
		if (word_is(&s.t, "obj")) {
			s.t.objstm = s.t.flate = s.t.other = 0;
			s.t.length_known = 0;
		} else if (word_is(&s.t, "stream")) {
			if (b == '\r' && cur_peek(&s.c) == '\n')
				s.c.pos++;
			if ((e = stream(&s)) != ENC_NO)
				return e;
		}
	}
	if (s.c.ioerr)
		return ENC_IOERR;
	return s.t.active ? ENC_YES : ENC_NO;
}
