/* is-pdf: cursor and lexer (see pdf_lex.h). Token rules are ISO 32000-1
 * section 7.2 and 7.3: six whitespace bytes, ten delimiters, everything
 * else a regular character; names with #xx escapes, literal strings with
 * balanced parentheses, hex strings, numbers, arrays, dictionaries,
 * true/false/null and "N G R" references. Every loop ends at the cursor's
 * end (a dictionary's budget or the file's size); nesting is bounded by
 * PDF_NEST_MAX. */
#include "pdf_lex.h"

#include <string.h>

void
cur_init(struct cur *c, const struct pdf_src *src)
{
	c->src = src;
	c->pos = 0;
	c->end = src->size;
	c->bstart = 0;
	c->blen = 0;
	c->ioerr = 0;
}

uint64_t
cur_limit(struct cur *c, uint64_t n)
{
	uint64_t end = c->end;

	if (c->pos < end && end - c->pos > n)
		c->end = c->pos + n;
	return end;
}

void
cur_unlimit(struct cur *c, uint64_t end)
{
	c->end = end;
}

void
cur_seek(struct cur *c, uint64_t pos)
{
	c->pos = pos;
}

int
cur_peek(struct cur *c)
{
	ssize_t n;

	if (c->pos >= c->end)
		return -1;
	if (c->pos < c->bstart || c->pos - c->bstart >= c->blen) {
		size_t want = CUR_BUF;
		if (c->end - c->pos < want)
			want = (size_t)(c->end - c->pos);
		c->bstart = c->pos;
		c->blen = 0;
		n = c->src->pread(c->src->ctx, c->buf, want, c->pos);
		if (n < 0)
			c->ioerr = 1;
		if (n <= 0)
			return -1;
		c->blen = (size_t)n;
	}
	return c->buf[c->pos - c->bstart];
}

int
cur_get(struct cur *c)
{
	int b = cur_peek(c);

	if (b >= 0)
		c->pos++;
	return b;
}

int
cur_lit(struct cur *c, const char *lit)
{
	uint64_t save = c->pos;

	for (; *lit != '\0'; lit++) {
		if (cur_get(c) != (uint8_t)*lit) {
			c->pos = save;
			return 0;
		}
	}
	return 1;
}

int
pdf_is_ws(int b)
{
	return b == 0 || b == '\t' || b == '\n' || b == '\f' || b == '\r' ||
	    b == ' ';
}

int
pdf_is_delim(int b)
{
	return b == '(' || b == ')' || b == '<' || b == '>' || b == '[' ||
	    b == ']' || b == '{' || b == '}' || b == '/' || b == '%';
}

int
pdf_is_regular(int b)
{
	return b >= 0 && !pdf_is_ws(b) && !pdf_is_delim(b);
}

int
pdf_hexval(int b)
{
	if (b >= '0' && b <= '9')
		return b - '0';
	if (b >= 'a' && b <= 'f')
		return b - 'a' + 10;
	if (b >= 'A' && b <= 'F')
		return b - 'A' + 10;
	return -1;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

void
skip_ws(struct cur *c)
{
	int b;

	while ((b = cur_peek(c)) >= 0) {
		if (pdf_is_ws(b)) {
			c->pos++;
		} else if (b == '%') {
			while ((b = cur_peek(c)) >= 0 && b != '\r' && b != '\n')
				c->pos++;
		} else {
			break;
		}
	}
}

void
skip_blanks(struct cur *c)
{
	uint64_t end = cur_limit(c, PDF_GAP_MAX);
	int b;

	while ((b = cur_peek(c)) == ' ' || b == '\t')
		c->pos++;
	cur_unlimit(c, end);
}

int
skip_eol(struct cur *c)
{
	int b;

	skip_blanks(c);
	b = cur_peek(c);
	if (b == '\r') {
		c->pos++;
		if (cur_peek(c) == '\n')
			c->pos++;
		return 1;
	}
	if (b == '\n') {
		c->pos++;
		return 1;
	}
	return 0;
}

int
read_uint(struct cur *c, uint64_t *out)
{
	uint64_t v = 0, save = c->pos;
	int b, n = 0;

	while ((b = cur_peek(c)) >= '0' && b <= '9') {
		unsigned d = (unsigned)(b - '0');
		if (++n > 20 || v > (UINT64_MAX - d) / 10)
			goto fail;
		v = v * 10 + d;
		c->pos++;
	}
	if (n == 0 || pdf_is_regular(b))
		goto fail;
	*out = v;
	return 1;
fail:
	c->pos = save;
	return 0;
}

int
read_keyword(struct cur *c, const char *kw)
{
	uint64_t save = c->pos;

	if (!cur_lit(c, kw))
		return 0;
	if (pdf_is_regular(cur_peek(c))) {
		c->pos = save;
		return 0;
	}
	return 1;
}

/* "/Name": decoded into v->name (at most NAME_KEEP bytes kept). */
static int
parse_name(struct cur *c, struct val *v)
{
	size_t n = 0;
	int b;

	c->pos++;	/* '/' */
	v->kind = V_NAME;
	v->name_long = 0;
	while (pdf_is_regular(b = cur_peek(c))) {
		c->pos++;
		if (b == '#') {
			int h = pdf_hexval(cur_get(c)), l = pdf_hexval(cur_get(c));
			if (h < 0 || l < 0 || (h == 0 && l == 0))
				return -1;
			b = h << 4 | l;
		}
		if (n < NAME_KEEP)
			v->name[n++] = (char)b;
		else
			v->name_long = 1;
	}
	v->name[n] = '\0';
	return 0;
}

static int
parse_literal_string(struct cur *c)
{
	unsigned nest = 1;
	int b;

	c->pos++;	/* '(' */
	while (nest > 0) {
		if ((b = cur_get(c)) < 0)
			return -1;
		if (b == '\\') {
			if (cur_get(c) < 0)
				return -1;
		} else if (b == '(') {
			nest++;
		} else if (b == ')') {
			nest--;
		}
	}
	return 0;
}

static int
parse_hex_string(struct cur *c)
{
	int b;

	c->pos++;	/* '<' */
	for (;;) {
		if ((b = cur_get(c)) < 0)
			return -1;
		if (b == '>')
			return 0;
		if (pdf_hexval(b) < 0 && !pdf_is_ws(b))
			return -1;
	}
}

/* [+-]digits[.digits] or [+-].digits; V_INT when there is no point. */
static int
parse_number(struct cur *c, struct val *v)
{
	int b, digits = 0, point = 0, sign = 0, big = 0;
	uint64_t num = 0;

	b = cur_peek(c);
	if (b == '+' || b == '-') {
		sign = b;
		c->pos++;
	}
	while ((b = cur_peek(c)) >= 0) {
		if (b >= '0' && b <= '9') {
			unsigned d = (unsigned)(b - '0');
			if (!point) {
				if (num > (UINT64_MAX - d) / 10)
					big = 1;
				else
					num = num * 10 + d;
			}
			digits++;
		} else if (b == '.' && !point) {
			point = 1;
		} else {
			break;
		}
		c->pos++;
		if (digits > 64)
			return -1;	/* no real PDF number is this long */
	}
	if (digits == 0 || pdf_is_regular(b))
		return -1;
	v->kind = point ? V_REAL : V_INT;
	v->num = num;
	v->neg = sign == '-';
	v->big = big || num > (uint64_t)INT64_MAX;
	return 0;
}

static int dict_body(struct cur *c, dict_cb cb, void *arg, int depth);

static int
parse_array(struct cur *c, struct val *v, int depth)
{
	struct val e;

	c->pos++;	/* '[' */
	v->kind = V_ARRAY;
	v->n = 0;
	v->all_uint = 1;
	v->pair_total = 0;
	for (;;) {
		skip_ws(c);
		if (cur_peek(c) == ']') {
			c->pos++;
			return 0;
		}
		if (parse_value(c, &e, depth + 1) != 0)
			return -1;
		if (e.kind != V_INT || e.neg || e.big) {
			v->all_uint = 0;
		} else {
			if (v->n < 3)
				v->first[v->n] = e.num;
			if (v->n % 2 == 1)
				v->pair_total = sat_add(v->pair_total, e.num);
		}
		v->n++;
	}
}

/* After an unsigned integer: " G R" makes it a reference. */
static void
maybe_ref(struct cur *c, struct val *v)
{
	uint64_t save = c->pos, gen;

	skip_ws(c);
	if (read_uint(c, &gen) && gen <= 65535) {
		skip_ws(c);
		if (read_keyword(c, "R")) {
			v->kind = V_REF;
			v->gen = (unsigned)gen;
			return;
		}
	}
	c->pos = save;
}

int
parse_value(struct cur *c, struct val *v, int depth)
{
	int b;

	if (depth > PDF_NEST_MAX)
		return -1;
	skip_ws(c);
	b = cur_peek(c);
	switch (b) {
	case '/':
		return parse_name(c, v);
	case '(':
		v->kind = V_STRING;
		return parse_literal_string(c);
	case '<':
		c->pos++;
		b = cur_peek(c);
		c->pos--;
		if (b == '<') {
			v->kind = V_DICT;
			return dict_body(c, NULL, NULL, depth + 1);
		}
		v->kind = V_STRING;
		return parse_hex_string(c);
	case '[':
		return parse_array(c, v, depth);
	default:
		break;
	}
	if ((b >= '0' && b <= '9') || b == '+' || b == '-' || b == '.') {
		if (parse_number(c, v) != 0)
			return -1;
		if (v->kind == V_INT && !v->neg && !v->big)
			maybe_ref(c, v);
		return 0;
	}
	if (read_keyword(c, "true") || read_keyword(c, "false")) {
		v->kind = V_BOOL;
		return 0;
	}
	if (read_keyword(c, "null")) {
		v->kind = V_NULL;
		return 0;
	}
	return -1;	/* a delimiter out of place, another keyword, or EOF */
}

static int
dict_body(struct cur *c, dict_cb cb, void *arg, int depth)
{
	struct val key, v;

	if (depth > PDF_NEST_MAX || !cur_lit(c, "<<"))
		return -1;
	for (;;) {
		skip_ws(c);
		if (cur_lit(c, ">>"))
			return 0;
		if (cur_peek(c) != '/' || parse_name(c, &key) != 0)
			return -1;
		if (parse_value(c, &v, depth) != 0)
			return -1;
		if (cb != NULL && cb(arg, &key, &v) != 0)
			return -1;
	}
}

int
parse_dict(struct cur *c, dict_cb cb, void *arg)
{
	uint64_t end = cur_limit(c, PDF_GAP_MAX);
	int r;

	skip_ws(c);
	cur_unlimit(c, end);
	end = cur_limit(c, PDF_DICT_MAX);
	r = dict_body(c, cb, arg, 0);
	cur_unlimit(c, end);
	return r != 0 || c->ioerr ? -1 : 0;
}

#ifdef PDF_LEX_DICT_MAX
/* parse_dict within max bytes, for pdf-signatures-intact (a signature
 * dictionary's /Contents may be larger than PDF_DICT_MAX). Compiled only
 * where it is asked for, at the end of the file, so that the other
 * plugins' binaries stay byte for byte what they were. */
int
parse_dict_max(struct cur *c, dict_cb cb, void *arg, uint64_t max)
{
	uint64_t end = cur_limit(c, PDF_GAP_MAX);
	int r;

	skip_ws(c);
	cur_unlimit(c, end);
	end = cur_limit(c, max);
	r = dict_body(c, cb, arg, 0);
	cur_unlimit(c, end);
	return r != 0 || c->ioerr ? -1 : 0;
}
#endif
