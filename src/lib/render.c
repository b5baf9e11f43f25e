/* Text for human eyes (see render.h and docs/rendering.md). */
#include "lib/render.h"
#include "lib/render_int.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

struct state {
	unsigned flags;
	const unsigned char *force;	/* per input byte: the character that
					 * starts there is shown escaped */
	int base;		/* the last unit shown was a letter (or one of its
				 * marks): a combining mark may follow */
	unsigned marks;		/* marks shown on that letter so far */
	int space;		/* the last unit was a space (RENDER_QUOTE) */
};

/* One unit of input (a character, or one byte of invalid UTF-8) as shown. */
struct piece {
	char b[16];
	size_t len;
	size_t cols;
	int escaped;
};

static void
esc_byte(struct piece *p, unsigned c)
{
	ASSERT(str_fmt(p->b, sizeof(p->b), "\\x%02x", c & 0xff) == STR_OK);
	p->len = strlen(p->b);
	p->cols = p->len;
	p->escaped = 1;
}

static void
esc_cp(struct piece *p, UChar32 c)
{
	ASSERT(str_fmt(p->b, sizeof(p->b), "\\u{%04X}", (unsigned)c) ==
	    STR_OK);
	p->len = strlen(p->b);
	p->cols = p->len;
	p->escaped = 1;
}

size_t
render_next_cp(const uint8_t *s, size_t n, UChar32 *c)
{
	int32_t i = 0, len = n > 4 ? 4 : (int32_t)n;

	/* ICU's strict decoder: overlongs, surrogates, values above
	 * U+10FFFF and cut sequences are ill-formed (a negative c). */
	U8_NEXT(s, i, len, *c);
	return *c < 0 ? 0 : (size_t)i;
}

int
render_cp_width(UChar32 c)
{
	int ea, hst;

	if (c < 0x20 || (c >= 0x7f && c < 0xa0))
		return -1;
	/* Marks that do not space, format characters and the medial and
	 * final jamo of a decomposed Hangul syllable take no column. */
	if (U_GET_GC_MASK(c) & (U_GC_MN_MASK | U_GC_ME_MASK | U_GC_CF_MASK))
		return 0;
	hst = u_getIntPropertyValue(c, UCHAR_HANGUL_SYLLABLE_TYPE);
	if (hst == U_HST_VOWEL_JAMO || hst == U_HST_TRAILING_JAMO)
		return 0;
	ea = u_getIntPropertyValue(c, UCHAR_EAST_ASIAN_WIDTH);
	return ea == U_EA_WIDE || ea == U_EA_FULLWIDTH ? 2 : 1;
}

static int
is_letter(UChar32 c)
{
	return (U_GET_GC_MASK(c) & U_GC_L_MASK) != 0;
}

int
render_never_raw(UChar32 c)
{
	/* Cc Cf Cs Co Cn, line and paragraph separators, every space but
	 * U+0020 (which never reaches here). */
	if (U_GET_GC_MASK(c) & (U_GC_C_MASK | U_GC_ZL_MASK | U_GC_ZP_MASK |
	    U_GC_ZS_MASK))
		return 1;
	/* Blank by design though not spaces: U+2800 BRAILLE PATTERN BLANK
	 * (a space look-alike that also hides a repeated space) and U+1D159
	 * MUSICAL SYMBOL NULL NOTEHEAD (docs/rendering.md). */
	if (c == 0x2800 || c == 0x1D159)
		return 1;
	/* Invisible by definition (zero-width, fillers, tags, variation
	 * selectors) and the explicit bidirectional controls: most are Cf,
	 * but the Hangul fillers are letters and the selectors are marks. */
	return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) ||
	    u_hasBinaryProperty(c, UCHAR_VARIATION_SELECTOR) ||
	    u_hasBinaryProperty(c, UCHAR_BIDI_CONTROL);
}

/* The next unit of s[0..n) (n > 0), at input offset off: consumed bytes,
 * *p filled. */
static size_t
next_piece(struct state *st, const uint8_t *s, size_t n, size_t off,
    struct piece *p)
{
	UChar32 c;
	size_t len;
	int w;

	p->escaped = 0;
	if (s[0] < 0x80) {
		c = s[0];
		if (c < 0x20 || c == 0x7f) {
			esc_byte(p, c);
			st->base = 0;
			st->space = 0;
			return 1;
		}
		if (c == ' ' && (st->flags & RENDER_QUOTE) && st->space) {
			esc_byte(p, c);		/* a repeated space */
			st->base = 0;
			return 1;
		}
		if (c == '\\' || (c == '"' && (st->flags & RENDER_QUOTE))) {
			p->b[0] = '\\';
			p->b[1] = (char)c;
			p->len = p->cols = 2;
			p->escaped = 1;
		} else {
			p->b[0] = (char)c;
			p->len = p->cols = 1;
		}
		st->space = c == ' ';
		st->base = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		st->marks = 0;
		return 1;
	}
	st->space = 0;
	len = render_next_cp(s, n, &c);
	if (len == 0) {		/* invalid or truncated: one byte at a time */
		esc_byte(p, s[0]);
		st->base = 0;
		return 1;
	}
	w = render_cp_width(c);
	if ((st->flags & RENDER_ASCII) || render_never_raw(c) || w < 0 ||
	    (st->force != NULL && st->force[off])) {
		esc_cp(p, c);
		st->base = 0;
		return len;
	}
	if ((U_GET_GC_MASK(c) & U_GC_M_MASK) || w == 0) {
		/* A mark (or a zero-width conjoining letter, as a decomposed
		 * Hangul syllable has) combines with what precedes it: shown
		 * only on a shown letter, and only a few: never on a quote,
		 * a slash, an escape or the start, never a tower of them. */
		if (!st->base || st->marks >= RENDER_MAX_MARKS) {
			esc_cp(p, c);
			st->base = 0;
			return len;
		}
		st->marks++;
	} else {
		st->base = is_letter(c);
		st->marks = 0;
	}
	memcpy(p->b, s, len);
	p->len = len;
	p->cols = (size_t)w;
	return len;
}

/* Measure (out NULL) or write the rendering. Writing stops before the
 * piece that would pass room (bytes) or cols_room (columns); *cut tells
 * whether it did. */
static void
core(const uint8_t *in, size_t inlen, unsigned flags,
    const unsigned char *force, char *out, size_t room, size_t cols_room,
    struct render_info *ri, int *cut)
{
	struct state st = { .flags = flags, .force = force };
	size_t i = 0;

	*cut = 0;
	while (i < inlen) {
		struct piece p;
		size_t used = next_piece(&st, in + i, inlen - i, i,
		    &p);

		if (out != NULL && (ri->len + p.len > room ||
		    ri->cols + p.cols > cols_room)) {
			*cut = 1;
			return;
		}
		if (out != NULL)
			memcpy(out + ri->len, p.b, p.len);
		ri->len += p.len;
		ri->cols += p.cols;
		ri->escaped |= p.escaped;
		i += used;
	}
}

size_t
render_force(const char *in, size_t inlen, unsigned flags,
    const unsigned char *force, size_t max_cols, char *out, size_t outlen,
    struct render_info *info)
{
	struct render_info ri = { 0 }, whole = { 0 };
	size_t q = (flags & RENDER_QUOTE) ? 1 : 0, room, cols;
	int cut;

	if (info == NULL)
		info = &ri;
	memset(info, 0, sizeof(*info));
	if (outlen == 0)
		return 0;
	if (max_cols == 0)
		max_cols = SIZE_MAX;
	/* Measure first: text that fits whole is never cut, even when it
	 * leaves no room for the marker. */
	core((const uint8_t *)in, inlen, flags, force, NULL, 0, 0, &whole, &cut);
	room = outlen - 1;
	cols = max_cols;
	if (whole.len + 2 * q > room || whole.cols + 2 * q > cols) {
		/* The marker and the quotes must fit after the cut. */
		if (room < 2 * q + 3 || cols < 2 * q + 3) {
			out[0] = '\0';
			info->truncated = 1;
			return 0;
		}
		room -= 2 * q + 3;
		cols -= 2 * q + 3;
	} else {
		room = cols = SIZE_MAX;
	}
	if (q)
		out[info->len++] = '"';
	info->cols = info->len;
	room = room == SIZE_MAX ? SIZE_MAX : room + q;
	cols = cols == SIZE_MAX ? SIZE_MAX : cols + q;
	core((const uint8_t *)in, inlen, flags, force, out, room, cols, info,
	    &cut);
	if (q) {
		out[info->len++] = '"';
		info->cols++;
	}
	if (cut) {
		memcpy(out + info->len, "...", 3);
		info->len += 3;
		info->cols += 3;
		info->truncated = 1;
	}
	out[info->len] = '\0';
	return info->len;
}

size_t
render_text(const char *in, size_t inlen, unsigned flags, size_t max_cols,
    char *out, size_t outlen, struct render_info *info)
{
	return render_force(in, inlen, flags, NULL, max_cols, out, outlen, info);
}

unsigned
render_locale_flags(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);
		if (v == NULL || *v == '\0')
			continue;
		return strcasestr(v, "UTF-8") != NULL ||
		    strcasestr(v, "utf8") != NULL ? 0 : RENDER_ASCII;
	}
	return RENDER_ASCII;
}

size_t
render_width(const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0, cols = 0;

	while (i < len) {
		UChar32 c;
		size_t n = render_next_cp(p + i, len - i, &c);
		int w;

		if (n == 0) {
			cols++;
			i++;
			continue;
		}
		w = render_cp_width(c);
		cols += w > 0 ? (size_t)w : 0;
		i += n;
	}
	return cols;
}

/* Bytes and columns of the unit of safe text at s (an escape, or one
 * character with the zero-width characters that follow it). */
static size_t
unit_at(const uint8_t *s, size_t len, size_t *cols)
{
	size_t i = 0, n;
	UChar32 c;
	int w;

	if (s[0] == '\\' && len >= 2) {
		if (s[1] == 'x')
			i = len < 4 ? len : 4;
		else if (s[1] == 'u') {
			const uint8_t *e = memchr(s, '}', len);
			i = e != NULL ? (size_t)(e - s) + 1 : len;
		} else
			i = 2;
		*cols = i;
		return i;
	}
	n = render_next_cp(s, len, &c);
	if (n == 0) {
		*cols = 1;
		return 1;
	}
	w = render_cp_width(c);
	*cols = w > 0 ? (size_t)w : 0;
	i = n;
	while (i < len) {
		n = render_next_cp(s + i, len - i, &c);
		if (n == 0 || s[i] == '\\' || render_cp_width(c) != 0)
			break;
		i += n;
	}
	return i;
}

size_t
render_fit(const char *s, size_t len, size_t cols)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0, used = 0;

	while (i < len) {
		size_t w, n = unit_at(p + i, len - i, &w);

		if (used + w > cols && i > 0)
			break;
		used += w;
		i += n;
	}
	return i;
}
