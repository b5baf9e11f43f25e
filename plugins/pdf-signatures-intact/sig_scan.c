/* pdf-signatures-intact: finding the signature dictionaries and checking
 * their shape (docs/plugins.md, "pdf-signatures-intact").
 *
 * Every byte of the file is tokenised by ISO 32000-1 7.2 and 7.3, as
 * has-active-content does: comments, literal and hex strings are skipped,
 * names are decoded (#xx: /Byte#52ange is /ByteRange), and a stream's data
 * is skipped by its direct /Length or up to "endstream". Dictionaries are
 * tracked by nesting: one that names /ByteRange, or whose /Type is /Sig or
 * /DocTimeStamp, is a signature dictionary, in any revision (a signature
 * an update made unreachable is still in the bytes the last one signs).
 * A dictionary inside an object stream is not seen: its /Contents could
 * not be a gap in the file's bytes, and the last signature, which must be
 * seen, covers it.
 *
 * The shape of each (the Ruhr-Uni Bochum checks): /ByteRange is four
 * non-negative integers [0 a b c]; the gap [a, b) is exactly the hex
 * string that is this dictionary's own /Contents ('<', hex digits only,
 * '>', an even count); b + c is within the file. */
#include "sig_check.h"
#include "pdf_lex.h"

#include <string.h>

#define NAME_MAX_KEEP 32

struct scan {
	const struct pdf_src *src;
	struct cur c;
	struct cur d;			/* re-reads a dictionary */
	uint64_t open[PDF_NEST_MAX];	/* each open dictionary's "<<" */
	uint8_t flag[PDF_NEST_MAX];	/* it is a signature dictionary */
	int depth;
	uint64_t top;			/* the last top-level dictionary */
	int have_top, after_type;
	struct sig *sigs;
	size_t n;
};

/* A name after its '/': decoded, NUL-terminated; longer ones are "". */
static void
read_name(struct cur *c, char out[NAME_MAX_KEEP + 1])
{
	size_t n = 0;
	int b, long_ = 0;

	while (pdf_is_regular(b = cur_peek(c))) {
		c->pos++;
		if (b == '#' && pdf_hexval(cur_peek(c)) >= 0) {
			int h = pdf_hexval(cur_get(c)), l = pdf_hexval(cur_peek(c));

			if (l >= 0) {
				c->pos++;
				b = h << 4 | l;
			}
		}
		if (n < NAME_MAX_KEEP)
			out[n++] = (char)b;
		else
			long_ = 1;
	}
	out[long_ ? 0 : n] = '\0';
}

static void
skip_literal(struct cur *c)
{
	unsigned nest = 1;
	int b;

	while (nest > 0 && (b = cur_get(c)) >= 0) {
		if (b == '\\')
			(void)cur_get(c);
		else if (b == '(')
			nest++;
		else if (b == ')')
			nest--;
	}
}

static int
length_key(void *arg, const struct val *key, const struct val *v)
{
	uint64_t *len = arg;

	if (!key->name_long && strcmp(key->name, "Length") == 0 &&
	    v->kind == V_INT && !v->neg && !v->big)
		*len = v->num;
	return 0;
}

/* At a stream's data: skip it by the direct /Length of the dictionary
 * before "stream" when "endstream" follows, else up to "endstream". */
static void
skip_stream(struct scan *s)
{
	struct cur *c = &s->c;
	uint64_t at = c->pos, len = UINT64_MAX;
	size_t k = 0;
	int b;

	if (s->have_top) {
		cur_seek(&s->d, s->top);
		if (parse_dict(&s->d, length_key, &len) != 0)
			len = UINT64_MAX;
	}
	if (len != UINT64_MAX && len <= s->src->size - at) {
		cur_seek(c, at + len);
		skip_ws(c);
		if (cur_lit(c, "endstream")) {
			c->pos -= 9;
			return;
		}
	}
	cur_seek(c, at);
	while ((b = cur_get(c)) >= 0) {
		k = b == "endstream"[k] ? k + 1 : (b == 'e' ? 1 : 0);
		if (k == 9) {
			c->pos -= 9;
			return;
		}
	}
}

static void
flag_open(struct scan *s)
{
	if (s->depth > 0 && s->depth <= PDF_NEST_MAX)
		s->flag[s->depth - 1] = 1;
}

static enum enc_answer
dict_close(struct scan *s)
{
	int i = s->depth - 1;

	if (s->depth == 0)
		return ENC_NO;		/* unbalanced: ignored */
	s->depth--;
	if (i >= PDF_NEST_MAX)
		return ENC_NO;
	if (i == 0) {
		s->top = s->open[0];
		s->have_top = 1;
	}
	if (!s->flag[i])
		return ENC_NO;
	if (s->n == SIG_MAX)
		return ENC_UNJUDGED;
	memset(&s->sigs[s->n], 0, sizeof(s->sigs[s->n]));
	s->sigs[s->n++].at = s->open[i];
	return ENC_NO;
}

static void
word(struct scan *s, int first)
{
	char w[16];
	size_t n = 0;
	int b = first;

	for (;;) {
		if (n < sizeof(w) - 1)
			w[n++] = (char)b;
		if (!pdf_is_regular(cur_peek(&s->c)))
			break;
		b = cur_get(&s->c);
	}
	w[n] = '\0';
	if (strcmp(w, "obj") == 0 || strcmp(w, "endobj") == 0) {
		s->depth = 0;		/* resynchronise after a broken object */
	} else if (strcmp(w, "stream") == 0 && s->depth == 0) {
		if (cur_peek(&s->c) == '\r')
			s->c.pos++;
		if (cur_peek(&s->c) == '\n')
			s->c.pos++;
		skip_stream(s);
	}
}

static enum enc_answer
token(struct scan *s, int b)
{
	struct cur *c = &s->c;
	char name[NAME_MAX_KEEP + 1];
	int after_type = s->after_type;

	s->after_type = 0;
	switch (b) {
	case '%':
		while ((b = cur_get(c)) >= 0 && b != '\r' && b != '\n')
			;
		s->after_type = after_type;	/* a comment is whitespace */
		return ENC_NO;
	case '(':
		skip_literal(c);
		return ENC_NO;
	case '<':
		if (cur_peek(c) == '<') {
			c->pos++;
			if (s->depth < PDF_NEST_MAX) {
				s->open[s->depth] = c->pos - 2;
				s->flag[s->depth] = 0;
			}
			s->depth++;
			return ENC_NO;
		}
		while ((b = cur_get(c)) >= 0 && b != '>')
			;
		return ENC_NO;
	case '>':
		if (cur_peek(c) != '>')
			return ENC_NO;
		c->pos++;
		return dict_close(s);
	case '/':
		read_name(c, name);
		if (strcmp(name, "ByteRange") == 0 || (after_type &&
		    (strcmp(name, "Sig") == 0 ||
		     strcmp(name, "DocTimeStamp") == 0)))
			flag_open(s);
		s->after_type = strcmp(name, "Type") == 0;
		return ENC_NO;
	default:
		if (pdf_is_regular(b))
			word(s, b);
		else if (pdf_is_ws(b))
			s->after_type = after_type;
		return ENC_NO;
	}
}

enum enc_answer
sig_scan(const struct pdf_src *src, struct sig *sigs, size_t *n)
{
	static struct scan s;
	enum enc_answer e;
	int b;

	memset(&s, 0, sizeof(s));
	s.src = src;
	s.sigs = sigs;
	cur_init(&s.c, src);
	cur_init(&s.d, src);
	while ((b = cur_get(&s.c)) >= 0)
		if ((e = token(&s, b)) != ENC_NO)
			return e;
	if (s.c.ioerr || s.d.ioerr)
		return ENC_IOERR;
	*n = s.n;
	return ENC_NO;
}

/* ---- the shape of one signature dictionary ---------------------------- */

enum {
	K_TYPE = 1 << 0, K_SUBFILTER = 1 << 1, K_BYTERANGE = 1 << 2,
	K_CONTENTS = 1 << 3,
};

struct sigdict {
	struct cur *c;
	unsigned seen;
	int bad;
	char subfilter[NAME_KEEP + 1];
	struct val range;
	uint64_t contents_end;		/* just past its '>' */
};

static int
sig_key(void *arg, const struct val *key, const struct val *v)
{
	struct sigdict *d = arg;
	unsigned bit = 0;

	if (key->name_long)
		return 0;
	if (strcmp(key->name, "Type") == 0)
		bit = K_TYPE;
	else if (strcmp(key->name, "SubFilter") == 0)
		bit = K_SUBFILTER;
	else if (strcmp(key->name, "ByteRange") == 0)
		bit = K_BYTERANGE;
	else if (strcmp(key->name, "Contents") == 0)
		bit = K_CONTENTS;
	if (bit == 0)
		return 0;
	if (d->seen & bit)
		return -1;	/* which one would a reader use? */
	d->seen |= bit;
	switch (bit) {
	case K_TYPE:
		if (v->kind != V_NAME || v->name_long ||
		    (strcmp(v->name, "Sig") != 0 &&
		     strcmp(v->name, "DocTimeStamp") != 0))
			d->bad = 1;
		return 0;
	case K_SUBFILTER:
		if (v->kind == V_NAME && !v->name_long)
			memcpy(d->subfilter, v->name, sizeof(d->subfilter));
		return 0;
	case K_BYTERANGE:
		d->range = *v;
		return 0;
	default:
		/* parse_value leaves the cursor just past the string */
		d->contents_end = v->kind == V_STRING ? d->c->pos : 0;
		return 0;
	}
}

/* [a, b) is '<', hex digits only (an even count), '>'. */
static enum enc_answer
gap_is_hex(const struct pdf_src *src, uint64_t a, uint64_t b)
{
	static uint8_t buf[64 << 10];
	uint64_t at = a;
	enum enc_answer e;

	if (b - a < 2 || (b - a) % 2 != 0 || b - a - 2 > SIG_CONTENTS_MAX)
		return ENC_UNJUDGED;
	while (at < b) {
		size_t n = b - at < sizeof(buf) ? (size_t)(b - at) :
		    sizeof(buf), i;

		if ((e = enc_read(src, buf, n, at)) != ENC_NO)
			return e;
		for (i = 0; i < n; i++) {
			uint64_t off = at + i;
			int want = off == a ? '<' : off == b - 1 ? '>' : 0;

			if (want ? buf[i] != want : pdf_hexval(buf[i]) < 0)
				return ENC_UNJUDGED;
		}
		at += n;
	}
	return ENC_NO;
}

/* ENC_NO: parsed (s->shape_ok says whether the shape holds); ENC_IOERR. */
enum enc_answer
sig_shape(const struct pdf_src *src, struct sig *s)
{
	static struct cur c;
	struct sigdict d;
	const struct val *r = &d.range;
	uint64_t a, b, len;
	enum enc_answer e;

	memset(&d, 0, sizeof(d));
	d.c = &c;
	s->shape_ok = 0;
	cur_init(&c, src);
	cur_seek(&c, s->at);
	if (parse_dict_max(&c, sig_key, &d, SIG_DICT_MAX) != 0)
		return c.ioerr ? ENC_IOERR : ENC_NO;
	if (d.bad || !(d.seen & K_BYTERANGE) || d.contents_end == 0 ||
	    r->kind != V_ARRAY || r->n != 4 || !r->all_uint ||
	    r->first[0] != 0 || r->pair_total == UINT64_MAX)
		return ENC_NO;
	a = r->first[1];
	b = r->first[2];
	len = r->pair_total - a;
	/* the gap is this dictionary's /Contents, and nothing else */
	if (b != d.contents_end || a >= b || a <= s->at ||
	    len > src->size || b > src->size - len)
		return ENC_NO;
	e = gap_is_hex(src, a, b);
	if (e == ENC_IOERR)
		return e;
	if (e != ENC_NO)
		return ENC_NO;
	s->range[0] = 0;
	s->range[1] = a;
	s->range[2] = b;
	s->range[3] = len;
	if (strcmp(d.subfilter, "adbe.pkcs7.detached") == 0 ||
	    strcmp(d.subfilter, "ETSI.CAdES.detached") == 0)
		s->kind = SIG_DETACHED;
	else if (strcmp(d.subfilter, "ETSI.RFC3161") == 0)
		s->kind = SIG_TIMESTAMP;
	else
		s->kind = SIG_UNKNOWN;
	s->shape_ok = 1;
	return ENC_NO;
}

/* The whole answer: a file without a PDF header is not a signed PDF;
 * one with it must pass is-pdf's structural check; then every signature's
 * shape, the last one's reach to the end of the file, then the
 * cryptography (the costly part last). */
enum enc_answer
sig_check(const struct pdf_src *src)
{
	static struct sig sigs[SIG_MAX];
	uint8_t head[PDF_HEADER_WINDOW];
	size_t hl = src->size < sizeof(head) ? (size_t)src->size : sizeof(head);
	size_t n = 0, i;
	int whole = 0;
	enum enc_answer e;

	/* Not a PDF at all (no header where is-pdf looks): not a signed PDF */
	if ((e = enc_read(src, head, hl, 0)) != ENC_NO)
		return e;
	if (memmem(head, hl, "%PDF-", 5) == NULL)
		return ENC_NO;
	if ((e = enc_pdf_check(src)) != ENC_NO)
		return e;
	if ((e = sig_scan(src, sigs, &n)) != ENC_NO)
		return e;
	if (n == 0)
		return ENC_NO;		/* unsigned */
	for (i = 0; i < n; i++) {
		if ((e = sig_shape(src, &sigs[i])) != ENC_NO)
			return e;
		if (!sigs[i].shape_ok || sigs[i].kind == SIG_UNKNOWN)
			return ENC_NO;
		if (sigs[i].range[2] + sigs[i].range[3] == src->size)
			whole = 1;
	}
	if (!whole)
		return ENC_NO;		/* something was appended after it */
	for (i = 0; i < n; i++)
		if ((e = sig_verify(src, &sigs[i])) != ENC_YES)
			return e;
	return ENC_YES;
}
