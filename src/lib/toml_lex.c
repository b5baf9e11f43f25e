/* TOML tokens (see toml_int.h): UTF-8, whitespace, comments, newlines, keys
 * and the four string forms. This is where untrusted bytes are read; every
 * read is bounded by lx->end and every decoded string by TOML_MAX_STRING. */
#include "lib/toml_int.h"
#include "lib/text.h"
#include "lib/log.h"

#include <stdint.h>
#include <string.h>

static int
line_of(const struct tlex *lx, const char *at)
{
	const char *p = lx->start, *nl;
	int line = 1;

	if (at < lx->start || at > lx->end)
		at = lx->end;
	while ((nl = memchr(p, '\n', (size_t)(at - p))) != NULL) {
		line++;
		p = nl + 1;
	}
	return line;
}

int
tlex_fail(struct tlex *lx, const char *at, const char *msg)
{
	if (lx->failed)
		return -1;
	lx->failed = 1;
	if (lx->err != NULL) {
		lx->err->line = line_of(lx, at);
		lx->err->unsupported = 0;
		lx->err->msg = msg;
	}
	return -1;
}

void
tlex_unsupported(struct tlex *lx, const char *at, const char *msg)
{
	if (lx->unsup_at != NULL)
		return;
	lx->unsup_at = at;
	lx->unsup_msg = msg;
}

int
tlex_report_unsupported(struct tlex *lx)
{
	if (lx->unsup_at == NULL)
		return 0;
	if (tlex_fail(lx, lx->unsup_at, lx->unsup_msg) < 0 && lx->err != NULL)
		lx->err->unsupported = 1;
	return -1;
}

int
tlex_check_utf8(struct tlex *lx)
{
	const unsigned char *s = (const unsigned char *)lx->start;
	const unsigned char *e = (const unsigned char *)lx->end;

	while (s < e) {
		unsigned c = *s;
		uint32_t cp, min;
		size_t n, i;

		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1, cp = c & 0x1f, min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2, cp = c & 0x0f, min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3, cp = c & 0x07, min = 0x10000;
		} else
			return tlex_fail(lx, (const char *)s, "invalid UTF-8");
		if ((size_t)(e - s) <= n)
			return tlex_fail(lx, (const char *)s, "truncated UTF-8");
		for (i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return tlex_fail(lx, (const char *)s,
				    "invalid UTF-8");
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return tlex_fail(lx, (const char *)s, "invalid UTF-8");
		s += n + 1;
	}
	return 0;
}

/* Control characters TOML refuses in comments and strings: all of C0 but
 * tab, and DEL. Newlines are handled before this is asked. */
static int
is_control(int c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

void
tlex_ws(struct tlex *lx)
{
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
		lx->p++;
}

int
tlex_newline(struct tlex *lx)
{
	int c = tlex_peek(lx, 0);

	if (c == '\n') {
		lx->p++;
		return 1;
	}
	if (c == '\r') {
		if (tlex_peek(lx, 1) != '\n')
			return tlex_fail(lx, lx->p, "carriage return without "
			    "line feed");
		lx->p += 2;
		return 1;
	}
	return 0;
}

int
tlex_comment(struct tlex *lx)
{
	int c;

	if (tlex_peek(lx, 0) != '#')
		return 0;
	lx->p++;
	while ((c = tlex_peek(lx, 0)) != -1 && c != '\n') {
		if (c == '\r' && tlex_peek(lx, 1) == '\n')
			break;
		if (is_control(c))
			return tlex_fail(lx, lx->p, "control character in a "
			    "comment");
		lx->p++;
	}
	return 0;
}

int
tlex_eol(struct tlex *lx)
{
	int r;

	tlex_ws(lx);
	if (tlex_comment(lx) < 0)
		return -1;
	if (tlex_eof(lx))
		return 0;
	if ((r = tlex_newline(lx)) < 0)
		return -1;
	if (r == 0)
		return tlex_fail(lx, lx->p, "expected the end of the line");
	return 0;
}

int
tlex_blank(struct tlex *lx)
{
	int r;

	do {
		tlex_ws(lx);
		if (tlex_comment(lx) < 0)
			return -1;
		if ((r = tlex_newline(lx)) < 0)
			return -1;
	} while (r == 1);
	return 0;
}

/* ---- strings ---- */

static int
put(struct tlex *lx, struct buf *b, const void *data, size_t len)
{
	if (buf_append(b, data, len) < 0)
		return tlex_fail(lx, lx->p, "string or key longer than 64 KiB");
	return 0;
}

static int
put_utf8(struct tlex *lx, struct buf *b, uint32_t cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp, n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | (cp >> 18));
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return put(lx, b, u, n);
}

/* \uXXXX or \UXXXXXXXX at lx->p (the backslash), ndig hex digits. */
static int
unicode_escape(struct tlex *lx, struct buf *b, size_t ndig)
{
	uint32_t cp = 0;
	size_t i;
	int d;

	for (i = 0; i < ndig; i++) {
		if ((d = hex_digit(tlex_peek(lx, 2 + i))) < 0)
			return tlex_fail(lx, lx->p, "bad \\u or \\U escape");
		cp = (cp << 4) | (uint32_t)d;
	}
	/* Only Unicode scalar values: no surrogates, nothing past U+10FFFF. */
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return tlex_fail(lx, lx->p, "escape is not a Unicode scalar "
		    "value");
	if (put_utf8(lx, b, cp) < 0)
		return -1;
	lx->p += 2 + ndig;
	return 0;
}

/* A line-ending backslash in a multi-line basic string, at lx->p: it must
 * be followed by optional whitespace and a newline, and it swallows all
 * whitespace and newlines up to the next other character. */
static int
line_ending_backslash(struct tlex *lx)
{
	const char *bs = lx->p;
	int r;

	lx->p++;
	tlex_ws(lx);
	if ((r = tlex_newline(lx)) < 0)
		return -1;
	if (r == 0)
		return tlex_fail(lx, bs, "backslash followed by whitespace "
		    "must end the line");
	do {
		tlex_ws(lx);
		if ((r = tlex_newline(lx)) < 0)
			return -1;
	} while (r == 1);
	return 0;
}

static int
escape(struct tlex *lx, struct buf *b, int multiline)
{
	int e = tlex_peek(lx, 1);
	char c;

	switch (e) {
	case 'b': c = '\b'; break;
	case 't': c = '\t'; break;
	case 'n': c = '\n'; break;
	case 'f': c = '\f'; break;
	case 'r': c = '\r'; break;
	case '"': c = '"'; break;
	case '\\': c = '\\'; break;
	case 'u':
		return unicode_escape(lx, b, 4);
	case 'U':
		return unicode_escape(lx, b, 8);
	case ' ': case '\t': case '\n': case '\r':
		if (multiline)
			return line_ending_backslash(lx);
		/* FALLTHROUGH */
	default:
		return tlex_fail(lx, lx->p, "unknown escape in a string");
	}
	if (put(lx, b, &c, 1) < 0)
		return -1;
	lx->p += 2;
	return 0;
}

/* Appends the run of ordinary bytes at lx->p: everything up to the quote q,
 * a backslash (when escapes are on), a newline or a control character. */
static int
plain_run(struct tlex *lx, struct buf *b, char q, int escapes)
{
	const char *s = lx->p;

	while (lx->p < lx->end) {
		int c = (unsigned char)*lx->p;

		if (c == q || (escapes && c == '\\') || c == '\n' ||
		    c == '\r' || is_control(c))
			break;
		lx->p++;
	}
	return put(lx, b, s, (size_t)(lx->p - s));
}

/* A single-line string: basic (q = '"', escapes) or literal (q = '\''). */
static int
single_line(struct tlex *lx, struct buf *b, char q)
{
	const char *open = lx->p;
	int c;

	lx->p++;
	for (;;) {
		if (plain_run(lx, b, q, q == '"') < 0)
			return -1;
		c = tlex_peek(lx, 0);
		if (c == -1 || c == '\n' || c == '\r')
			return tlex_fail(lx, open, "unterminated string");
		if (c == q) {
			lx->p++;
			return 0;
		}
		if (c == '\\') {
			if (escape(lx, b, 0) < 0)
				return -1;
			continue;
		}
		return tlex_fail(lx, lx->p, "control character in a string");
	}
}

/* A multi-line string at its opening triple quote. Up to two quotes may
 * stand right before the closing three (""""" ends a string with ""). */
static int
multi_line(struct tlex *lx, struct buf *b, char q)
{
	const char *open = lx->p;
	size_t run;
	int c, r;

	lx->p += 3;
	/* A newline right after the opening delimiter is trimmed. */
	if (tlex_newline(lx) < 0)
		return -1;
	for (;;) {
		if (plain_run(lx, b, q, q == '"') < 0)
			return -1;
		c = tlex_peek(lx, 0);
		if (c == -1)
			return tlex_fail(lx, open, "unterminated multi-line "
			    "string");
		if (c == q) {
			for (run = 0; tlex_peek(lx, run) == q; run++)
				;
			if (run > 5)
				return tlex_fail(lx, lx->p, "too many quotes "
				    "in a multi-line string");
			if (run >= 3) {
				if (put(lx, b, lx->p, run - 3) < 0)
					return -1;
				lx->p += run;
				return 0;
			}
			if (put(lx, b, lx->p, run) < 0)
				return -1;
			lx->p += run;
		} else if (c == '\\') {
			if (escape(lx, b, 1) < 0)
				return -1;
		} else if (c == '\n' || c == '\r') {
			/* CRLF is kept as LF: newlines decode the same on
			 * every platform. */
			if ((r = tlex_newline(lx)) < 0)
				return -1;
			if (put(lx, b, "\n", 1) < 0)
				return -1;
		} else
			return tlex_fail(lx, lx->p, "control character in a "
			    "string");
	}
}

static int
is_triple(const struct tlex *lx, char q)
{
	return tlex_peek(lx, 0) == q && tlex_peek(lx, 1) == q &&
	    tlex_peek(lx, 2) == q;
}

json_t *
tlex_string(struct tlex *lx)
{
	struct buf *b = buf_new(TOML_MAX_STRING);
	char q = *lx->p;
	json_t *v = NULL;
	int r;

	ASSERT(q == '"' || q == '\'');
	if (is_triple(lx, q))
		r = multi_line(lx, b, q);
	else
		r = single_line(lx, b, q);
	if (r == 0 && (v = json_stringn((const char *)buf_data(b),
	    buf_len(b))) == NULL)
		tlex_fail(lx, lx->p, "string refused by jansson");
	buf_free(b);
	return v;
}

static int
is_bare_key_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

struct buf *
tlex_key_part(struct tlex *lx)
{
	struct buf *b = buf_new(TOML_MAX_STRING);
	const char *s = lx->p;
	int c = tlex_peek(lx, 0);

	if (c == '"' || c == '\'') {
		if (is_triple(lx, (char)c)) {
			tlex_fail(lx, s, "a key cannot be a multi-line string");
			goto fail;
		}
		if (single_line(lx, b, (char)c) < 0)
			goto fail;
		return b;
	}
	while (lx->p < lx->end && is_bare_key_char(*lx->p))
		lx->p++;
	if (lx->p == s) {
		tlex_fail(lx, s, "expected a key");
		goto fail;
	}
	if (put(lx, b, s, (size_t)(lx->p - s)) < 0)
		goto fail;
	return b;
fail:
	buf_free(b);
	return NULL;
}
