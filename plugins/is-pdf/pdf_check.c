/* is-pdf: the structural check (see pdf_check.h; docs/plugins.md states the
 * rules for the reader who has to approve the plugin's question).
 *
 * The file is read from both ends and at the offsets it names, never whole:
 *   1. a "%PDF-1.0" .. "%PDF-1.7" or "%PDF-2.0" header, starting in the
 *      first 1024 bytes and followed by whitespace;
 *   2. the last "%%EOF" starts in the last 1024 bytes, and right before it
 *      "startxref", an offset, whitespace and nothing else;
 *   3. at that offset a cross-reference section: an "xref" table (well-formed
 *      subsection headers, 20-byte entries, in-use offsets inside the file)
 *      followed by a "trailer" dictionary, or a cross-reference stream object
 *      (/Type /XRef, /Size, /W, direct /Length, stream ... endstream endobj);
 *   4. the newest section names /Root, every section has an integer /Size
 *      (not cross-checked against the subsections: poppler's pdfunite writes
 *      one too small, which every reader tolerates); /Prev and /XRefStm
 *      sections are checked the same way, each at most once;
 *   5. when the catalog is listed in an xref table, its entry points at
 *      "N G obj <<".
 * Offsets are taken from the start of the file; when the header does not
 * start at byte 0 they may also all be taken from the header, as PDF
 * readers do for files with leading junk. Encrypted files are still
 * structurally checkable: the structure is never encrypted. */
#include "pdf_check.h"
#include "pdf_lex.h"

#include <string.h>

struct check {
	const struct pdf_src *src;
	struct cur cur;
	uint64_t base;		/* what the file's offsets count from */
	size_t nsec;
	uint64_t sec_off[PDF_MAX_SECTIONS];
	uint8_t sec_stream[PDF_MAX_SECTIONS];
	uint64_t root_num;
	unsigned root_gen;
};

/* The keys of a trailer or xref stream dictionary that the check reads. */
struct trailer {
	unsigned seen;		/* bit per key: a repeated key is refused */
	uint64_t size, prev, xrefstm, length;
	uint64_t root_num;
	unsigned root_gen;
	int type_xref, length_direct;
	struct val w, index;
};

enum {
	K_SIZE = 1 << 0, K_ROOT = 1 << 1, K_PREV = 1 << 2, K_XREFSTM = 1 << 3,
	K_TYPE = 1 << 4, K_W = 1 << 5, K_INDEX = 1 << 6, K_LENGTH = 1 << 7,
	K_FILTER = 1 << 8, K_DECODEPARMS = 1 << 9,
};

static const struct { const char *name; unsigned bit; } keys[] = {
	{ "Size", K_SIZE }, { "Root", K_ROOT }, { "Prev", K_PREV },
	{ "XRefStm", K_XREFSTM }, { "Type", K_TYPE }, { "W", K_W },
	{ "Index", K_INDEX }, { "Length", K_LENGTH }, { "Filter", K_FILTER },
	{ "DecodeParms", K_DECODEPARMS },
};

static int
is_uint(const struct val *v)
{
	return v->kind == V_INT && !v->neg && !v->big;
}

static int
trailer_key(void *arg, const struct val *key, const struct val *v)
{
	struct trailer *t = arg;
	unsigned bit = 0;
	size_t i;

	if (key->name_long)
		return 0;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key->name, keys[i].name) == 0)
			bit = keys[i].bit;
	if (bit == 0)
		return 0;		/* a key the check does not need */
	if (t->seen & bit)
		return -1;		/* ambiguous: which one would a reader use? */
	t->seen |= bit;
	switch (bit) {
	case K_SIZE:
		t->size = v->num;
		return is_uint(v) && v->num > 0 ? 0 : -1;
	case K_ROOT:
		t->root_num = v->num;
		t->root_gen = v->gen;
		return v->kind == V_REF ? 0 : -1;
	case K_PREV:
		t->prev = v->num;
		return is_uint(v) ? 0 : -1;
	case K_XREFSTM:
		t->xrefstm = v->num;
		return is_uint(v) ? 0 : -1;
	case K_TYPE:
		t->type_xref = v->kind == V_NAME && !v->name_long &&
		    strcmp(v->name, "XRef") == 0;
		return v->kind == V_NAME ? 0 : -1;
	case K_W:
		t->w = *v;
		return v->kind == V_ARRAY ? 0 : -1;
	case K_INDEX:
		t->index = *v;
		return v->kind == V_ARRAY ? 0 : -1;
	case K_LENGTH:
		t->length = v->num;
		t->length_direct = is_uint(v);
		return is_uint(v) || v->kind == V_REF ? 0 : -1;
	default:
		return 0;		/* Filter, DecodeParms: presence only */
	}
}

/* A file offset as written, made absolute; 0 when it is outside the file. */
static int
absolute(const struct check *ck, uint64_t off, uint64_t *abs)
{
	if (off >= ck->src->size || ck->base >= ck->src->size - off)
		return 0;
	*abs = ck->base + off;
	return 1;
}

/* An object starts at abs: the byte before it (if any) ends a token, so an
 * offset one byte into "12 0 obj" does not pass for "2 0 obj". */
static int
object_start(struct check *ck, uint64_t abs)
{
	uint8_t b;
	ssize_t n;

	if (abs == 0)
		return 1;
	n = ck->src->pread(ck->src->ctx, &b, 1, abs - 1);
	if (n < 0)
		ck->cur.ioerr = 1;	/* no answer rather than a wrong 0 */
	if (n != 1)
		return 0;
	return pdf_is_ws(b) || pdf_is_delim(b);
}

/* One 20-byte entry "oooooooooo ggggg n" + a two-byte end of line. */
static int
xref_entry(struct check *ck, uint64_t *off, unsigned *gen, int *type)
{
	uint8_t e[20];
	uint64_t abs;
	size_t i;

	for (i = 0; i < sizeof(e); i++) {
		int b = cur_get(&ck->cur);
		if (b < 0)
			return 0;
		e[i] = (uint8_t)b;
	}
	*off = 0;
	*gen = 0;
	for (i = 0; i < 10; i++) {
		if (e[i] < '0' || e[i] > '9')
			return 0;
		*off = *off * 10 + (uint64_t)(e[i] - '0');
	}
	for (i = 11; i < 16; i++) {
		if (e[i] < '0' || e[i] > '9')
			return 0;
		*gen = *gen * 10 + (unsigned)(e[i] - '0');
	}
	if (e[10] != ' ' || e[16] != ' ' || (e[17] != 'n' && e[17] != 'f'))
		return 0;
	if (!((e[18] == ' ' && (e[19] == '\r' || e[19] == '\n')) ||
	    (e[18] == '\r' && e[19] == '\n')))
		return 0;
	*type = e[17];
	/* Free entries are not checked further: mupdf writes generation
	 * 65536 for the head of the free list. */
	return *type == 'f' || (*gen <= 65535 && absolute(ck, *off, &abs));
}

/* Plain whitespace between subsections (no comments inside a table), at
 * most PDF_GAP_MAX bytes of it. */
static void
skip_plain_ws(struct cur *c)
{
	uint64_t end = cur_limit(c, PDF_GAP_MAX);
	int b;

	while ((b = cur_peek(c)) >= 0 && pdf_is_ws(b))
		c->pos++;
	cur_unlimit(c, end);
}

/* Whitespace and comments between two tokens, at most PDF_GAP_MAX bytes. */
static void
skip_gap(struct cur *c)
{
	uint64_t end = cur_limit(c, PDF_GAP_MAX);

	skip_ws(c);
	cur_unlimit(c, end);
}

/* A subsection header "start count" on its own line. */
static int
xref_subsection(struct cur *c, uint64_t *start, uint64_t *count)
{
	int b;

	if (!read_uint(c, start))
		return 0;
	if ((b = cur_peek(c)) != ' ' && b != '\t')
		return 0;
	skip_blanks(c);
	if (!read_uint(c, count) || !skip_eol(c))
		return 0;
	return *start <= UINT64_MAX - *count;
}

/* An xref table at the cursor (just past "xref"), then its trailer. */
static int
xref_table(struct check *ck, struct trailer *t)
{
	struct cur *c = &ck->cur;
	uint64_t start, count, i, off;
	unsigned gen, nsub = 0;
	int type;

	if (!skip_eol(c))
		return 0;
	for (;;) {
		skip_plain_ws(c);
		if (read_keyword(c, "trailer"))
			break;
		if (!xref_subsection(c, &start, &count))
			return 0;
		/* Entries must be in the file: bounds the loop by its size. */
		if (count > (ck->src->size - c->pos) / 20)
			return 0;
		for (i = 0; i < count; i++)
			if (!xref_entry(ck, &off, &gen, &type))
				return 0;
		nsub++;
	}
	if (nsub == 0 || parse_dict(c, trailer_key, t) != 0)
		return 0;
	return (t->seen & K_SIZE) != 0;
}

/* The stream part of an xref stream object: "stream" EOL, /Length bytes,
 * optional EOL, "endstream", "endobj". */
static int
stream_body(struct check *ck, const struct trailer *t)
{
	struct cur *c = &ck->cur;
	uint64_t data;
	int b;

	skip_gap(c);
	if (!cur_lit(c, "stream"))
		return 0;
	b = cur_get(c);
	if (b == '\r')
		b = cur_get(c);
	if (b != '\n')
		return 0;
	data = c->pos;
	if (t->length > ck->src->size - data)
		return 0;
	cur_seek(c, data + t->length);
	b = cur_peek(c);
	if (b == '\r' || b == '\n')
		(void)skip_eol(c);
	if (!cur_lit(c, "endstream"))
		return 0;
	skip_gap(c);
	return read_keyword(c, "endobj");
}

/* A cross-reference stream object "N G obj << ... >> stream". */
static int
xref_stream(struct check *ck, struct trailer *t)
{
	struct cur *c = &ck->cur;
	uint64_t num, gen, width = 0, entries, i;

	if (!object_start(ck, c->pos) || !read_uint(c, &num) || num == 0)
		return 0;
	skip_gap(c);
	if (!read_uint(c, &gen) || gen > 65535)
		return 0;
	skip_gap(c);
	if (!read_keyword(c, "obj") || parse_dict(c, trailer_key, t) != 0)
		return 0;
	if (!t->type_xref || !(t->seen & K_SIZE) || !(t->seen & K_W) ||
	    !(t->seen & K_LENGTH) || !t->length_direct)
		return 0;
	/* W: three field widths in bytes; a field wider than 8 bytes could
	 * not hold a 64-bit offset anyway. */
	if (t->w.n != 3 || !t->w.all_uint)
		return 0;
	for (i = 0; i < 3; i++) {
		if (t->w.first[i] > 8)
			return 0;
		width += t->w.first[i];
	}
	if (width == 0)
		return 0;
	entries = t->size;
	if (t->seen & K_INDEX) {
		if (t->index.n == 0 || t->index.n % 2 != 0 ||
		    !t->index.all_uint)
			return 0;
		entries = t->index.pair_total;
	}
	if (!stream_body(ck, t))
		return 0;
	/* Unfiltered data has exactly one row per entry. */
	if (!(t->seen & (K_FILTER | K_DECODEPARMS)) &&
	    (entries > UINT64_MAX / width || t->length != entries * width))
		return 0;
	return 1;
}

static int
section_seen(const struct check *ck, uint64_t abs)
{
	size_t i;

	for (i = 0; i < ck->nsec; i++)
		if (ck->sec_off[i] == abs)
			return 1;
	return 0;
}

/* One cross-reference section at file offset off. 1 when well-formed. */
static int
section(struct check *ck, uint64_t off, struct trailer *t, int want_stream)
{
	uint64_t abs;
	int ok, stream;

	memset(t, 0, sizeof(*t));
	if (!absolute(ck, off, &abs) || section_seen(ck, abs) ||
	    ck->nsec == PDF_MAX_SECTIONS)
		return 0;	/* outside, a loop, or an absurd chain */
	ck->sec_off[ck->nsec] = abs;
	cur_seek(&ck->cur, abs);
	stream = !cur_lit(&ck->cur, "xref");
	ck->sec_stream[ck->nsec++] = (uint8_t)stream;
	if (want_stream && !stream)
		return 0;	/* /XRefStm must name a stream */
	ok = stream ? xref_stream(ck, t) : xref_table(ck, t);
	return ok && !ck->cur.ioerr;
}

/* The chain from startxref through /Prev (and each table's /XRefStm). */
static int
chain(struct check *ck, uint64_t off)
{
	struct trailer t, ts;
	int first = 1;

	for (;;) {
		if (!section(ck, off, &t, 0))
			return 0;
		if (first) {
			if (!(t.seen & K_ROOT))
				return 0;
			ck->root_num = t.root_num;
			ck->root_gen = t.root_gen;
			first = 0;
		}
		if ((t.seen & K_XREFSTM) && !section(ck, t.xrefstm, &ts, 1))
			return 0;
		if (!(t.seen & K_PREV))
			return 1;
		off = t.prev;
	}
}

/* Find the catalog's entry in the table section at abs. 1 found (entry in
 * *off and *type), 0 not in this table, -1 malformed. */
static int
table_lookup(struct check *ck, uint64_t abs, uint64_t *off, int *type)
{
	struct cur *c = &ck->cur;
	uint64_t start, count, n = ck->root_num;
	unsigned gen;

	cur_seek(c, abs);
	if (!cur_lit(c, "xref") || !skip_eol(c))
		return -1;
	for (;;) {
		skip_plain_ws(c);
		if (read_keyword(c, "trailer"))
			return 0;
		if (!xref_subsection(c, &start, &count))
			return -1;
		if (n >= start && n - start < count) {
			cur_seek(c, c->pos + (n - start) * 20);
			return xref_entry(ck, off, &gen, type) ? 1 : -1;
		}
		cur_seek(c, c->pos + count * 20);
	}
}

/* The catalog, where an xref table lists it: "N G obj <<" at its offset.
 * A catalog only in a stream (or free in a hybrid file's table, which then
 * lists it in its stream) is compressed and cannot be checked here. */
static int
catalog(struct check *ck)
{
	struct cur *c = &ck->cur;
	uint64_t off, abs, num, gen;
	int any_stream = 0, type, r;
	size_t i;

	for (i = 0; i < ck->nsec; i++)
		any_stream |= ck->sec_stream[i];
	for (i = 0; i < ck->nsec; i++) {
		if (ck->sec_stream[i])
			continue;
		r = table_lookup(ck, ck->sec_off[i], &off, &type);
		if (r < 0)
			return 0;
		if (r == 0)
			continue;
		if (type == 'f')
			return any_stream;
		if (!absolute(ck, off, &abs))
			return 0;
		cur_seek(c, abs);
		if (!object_start(ck, abs) || !read_uint(c, &num) ||
		    num != ck->root_num)
			return 0;
		skip_gap(c);
		if (!read_uint(c, &gen) || gen != ck->root_gen)
			return 0;
		skip_gap(c);
		if (!read_keyword(c, "obj"))
			return 0;
		skip_gap(c);
		return cur_lit(c, "<<");
	}
	return any_stream;
}

/* "%PDF-1.0".."%PDF-1.7" or "%PDF-2.0", then whitespace, starting in the
 * first PDF_HEADER_WINDOW bytes. The header's offset goes to *at. */
static int
header(const struct pdf_src *src, uint64_t *at)
{
	uint8_t buf[PDF_HEADER_WINDOW + 8];
	ssize_t n;
	size_t i;

	n = src->pread(src->ctx, buf, sizeof(buf), 0);
	if (n < 0)
		return -1;
	for (i = 0; i + 9 <= (size_t)n && i < PDF_HEADER_WINDOW; i++) {
		const uint8_t *h = buf + i;
		if (memcmp(h, "%PDF-", 5) != 0)
			continue;
		if (!((h[5] == '1' && h[6] == '.' && h[7] >= '0' && h[7] <= '7') ||
		    (h[5] == '2' && h[6] == '.' && h[7] == '0')))
			return 0;
		if (h[8] != '\r' && h[8] != '\n' && h[8] != ' ' && h[8] != '\t')
			return 0;
		*at = i;
		return 1;
	}
	return 0;
}

/* The tail: the last "%%EOF" starts in the last PDF_TAIL_WINDOW bytes, and
 * before it "startxref" EOL offset EOL with only whitespace around the
 * offset. The offset goes to *xref. */
static int
tail(struct check *ck, uint64_t *xref)
{
	const struct pdf_src *src = ck->src;
	uint8_t buf[PDF_TAIL_WINDOW + 64];
	uint64_t from, eof_at, sx_at;
	struct cur *c = &ck->cur;
	size_t len, i, e;
	ssize_t n;
	int b;

	len = src->size < sizeof(buf) ? (size_t)src->size : sizeof(buf);
	from = src->size - len;
	n = src->pread(src->ctx, buf, len, from);
	if (n < 0)
		return -1;
	if ((size_t)n != len || len < 5)
		return 0;
	for (e = len - 5 + 1; e-- > 0;)
		if (memcmp(buf + e, "%%EOF", 5) == 0)
			break;
	if (e == (size_t)-1 || src->size - (from + e) > PDF_TAIL_WINDOW)
		return 0;
	eof_at = from + e;
	for (i = e; i-- > 0;)
		if (i + 9 <= e && memcmp(buf + i, "startxref", 9) == 0)
			break;
	if (i == (size_t)-1)
		return 0;
	sx_at = from + i;
	cur_seek(c, sx_at + 9);
	if (!pdf_is_ws(cur_peek(c)))
		return 0;
	while ((b = cur_peek(c)) >= 0 && pdf_is_ws(b))
		c->pos++;
	if (!read_uint(c, xref))
		return 0;
	while ((b = cur_peek(c)) >= 0 && pdf_is_ws(b))
		c->pos++;
	return c->pos == eof_at && !c->ioerr;
}

static int
check_from(struct check *ck, uint64_t base, uint64_t xref)
{
	ck->base = base;
	ck->nsec = 0;
	return chain(ck, xref) && catalog(ck) && !ck->cur.ioerr;
}

int
pdf_check(const struct pdf_src *src)
{
	struct check ck;
	uint64_t at = 0, xref = 0;
	int r;

	memset(&ck, 0, sizeof(ck));
	ck.src = src;
	cur_init(&ck.cur, src);
	if ((r = header(src, &at)) != 1)
		return r;
	if ((r = tail(&ck, &xref)) != 1)
		return ck.cur.ioerr ? -1 : r;
	r = check_from(&ck, 0, xref);
	if (r == 0 && at > 0 && !ck.cur.ioerr)
		r = check_from(&ck, at, xref);
	return ck.cur.ioerr ? -1 : r;
}
