/* Text for human eyes (see render.h and docs/rendering.md). */
#include "lib/render.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unictype.h>
#include <unistr.h>
#include <uniwidth.h>

/* Scripts whose letters are shown escaped (the minority scripts of a
 * mixed word, for render_mixed_scripts()). */
#define MAX_SCRIPTS 8
struct scripts {
	size_t n;
	const uc_script_t *s[MAX_SCRIPTS];
};

struct state {
	unsigned flags;
	const struct scripts *force;
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

static int
in_scripts(const struct scripts *set, const uc_script_t *sc)
{
	size_t i;

	if (set == NULL || sc == NULL)
		return 0;
	for (i = 0; i < set->n; i++)
		if (set->s[i] == sc)
			return 1;
	return 0;
}

static void
esc_byte(struct piece *p, unsigned c)
{
	ASSERT(str_fmt(p->b, sizeof(p->b), "\\x%02x", c & 0xff) == STR_OK);
	p->len = strlen(p->b);
	p->cols = p->len;
	p->escaped = 1;
}

static void
esc_cp(struct piece *p, ucs4_t c)
{
	ASSERT(str_fmt(p->b, sizeof(p->b), "\\u{%04X}", (unsigned)c) ==
	    STR_OK);
	p->len = strlen(p->b);
	p->cols = p->len;
	p->escaped = 1;
}

/* Code points never shown as themselves, whatever follows or precedes. */
static int
never_raw(ucs4_t c)
{
	if (uc_is_general_category(c, UC_CATEGORY_C) ||	/* Cc Cf Cs Co Cn */
	    uc_is_general_category(c, UC_CATEGORY_Zl) ||
	    uc_is_general_category(c, UC_CATEGORY_Zp) ||
	    uc_is_general_category(c, UC_CATEGORY_Zs))	/* not U+0020 here */
		return 1;
	/* Invisible by definition (zero-width, fillers, tags, variation
	 * selectors) and the explicit bidirectional controls: most are Cf,
	 * but the Hangul fillers are letters and the selectors are marks. */
	return uc_is_property_default_ignorable_code_point(c) ||
	    uc_is_property_variation_selector(c) ||
	    uc_is_property_bidi_control(c);
}

/* The next unit of s[0..n) (n > 0): consumed bytes, *p filled. */
static size_t
next_piece(struct state *st, const uint8_t *s, size_t n, struct piece *p)
{
	ucs4_t c;
	int len, w;

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
	len = u8_mbtoucr(&c, s, n);
	if (len < 1) {		/* invalid or truncated: one byte at a time */
		esc_byte(p, s[0]);
		st->base = 0;
		return 1;
	}
	w = uc_width(c, "UTF-8");
	if ((st->flags & RENDER_ASCII) || never_raw(c) || w < 0 || (st->force != NULL &&
	    uc_is_general_category(c, UC_CATEGORY_L) &&
	    in_scripts(st->force, uc_script(c)))) {
		esc_cp(p, c);
		st->base = 0;
		return (size_t)len;
	}
	if (uc_is_general_category(c, UC_CATEGORY_M) || w == 0) {
		/* A mark (or a zero-width conjoining letter, as a decomposed
		 * Hangul syllable has) combines with what precedes it: shown
		 * only on a shown letter, and only a few: never on a quote,
		 * a slash, an escape or the start, never a tower of them. */
		if (!st->base || st->marks >= RENDER_MAX_MARKS) {
			esc_cp(p, c);
			st->base = 0;
			return (size_t)len;
		}
		st->marks++;
	} else {
		st->base = uc_is_general_category(c, UC_CATEGORY_L);
		st->marks = 0;
	}
	memcpy(p->b, s, (size_t)len);
	p->len = (size_t)len;
	p->cols = (size_t)w;
	return (size_t)len;
}

/* Measure (out NULL) or write the rendering. Writing stops before the
 * piece that would pass room (bytes) or cols_room (columns); *cut tells
 * whether it did. */
static void
core(const uint8_t *in, size_t inlen, unsigned flags,
    const struct scripts *force, char *out, size_t room, size_t cols_room,
    struct render_info *ri, int *cut)
{
	struct state st = { .flags = flags, .force = force };
	size_t i = 0;

	*cut = 0;
	while (i < inlen) {
		struct piece p;
		size_t used = next_piece(&st, in + i, inlen - i, &p);

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

static size_t
render_force(const char *in, size_t inlen, unsigned flags,
    const struct scripts *force, size_t max_cols, char *out, size_t outlen,
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
		ucs4_t c;
		int n = u8_mbtoucr(&c, p + i, len - i), w;

		if (n < 1) {
			cols++;
			i++;
			continue;
		}
		w = uc_width(c, "UTF-8");
		cols += w > 0 ? (size_t)w : 0;
		i += (size_t)n;
	}
	return cols;
}

/* Bytes and columns of the unit of safe text at s (an escape, or one
 * character with the zero-width characters that follow it). */
static size_t
unit_at(const uint8_t *s, size_t len, size_t *cols)
{
	size_t i = 0;
	ucs4_t c;
	int n, w;

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
	n = u8_mbtoucr(&c, s, len);
	if (n < 1) {
		*cols = 1;
		return 1;
	}
	w = uc_width(c, "UTF-8");
	*cols = w > 0 ? (size_t)w : 0;
	i = (size_t)n;
	while (i < len) {
		n = u8_mbtoucr(&c, s + i, len - i);
		if (n < 1 || s[i] == '\\' || uc_width(c, "UTF-8") != 0)
			break;
		i += (size_t)n;
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

/* ---- mixed scripts ---- */

static void
add_script(struct scripts *set, const uc_script_t *sc)
{
	if (sc != NULL && !in_scripts(set, sc) && set->n < MAX_SCRIPTS)
		set->s[set->n++] = sc;
}

/* UTS #39 "highly restrictive": one script, or a subset of one of the
 * three combinations that East Asian writing uses with Latin. */
static int
allowed(const struct scripts *w)
{
	static const char *const combos[3][4] = {
		{ "Latin", "Han", "Hiragana", "Katakana" },
		{ "Latin", "Han", "Bopomofo", NULL },
		{ "Latin", "Han", "Hangul", NULL },
	};
	size_t k, i, j;

	if (w->n <= 1)
		return 1;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < w->n; i++) {
			for (j = 0; j < 4 && combos[k][j] != NULL; j++)
				if (uc_script_byname(combos[k][j]) == w->s[i])
					break;
			if (j == 4 || combos[k][j] == NULL)
				break;		/* w->s[i] is not in combo k */
		}
		if (i == w->n)
			return 1;
	}
	return 0;
}

/* A word has ended: when it mixes scripts, its scripts join all (in order
 * of appearance) and all but its most frequent join minority. */
static void
end_word(struct scripts *w, const size_t *count, struct scripts *all,
    struct scripts *minority, int *mixed)
{
	size_t i, top = 0;

	if (!allowed(w)) {
		*mixed = 1;
		for (i = 1; i < w->n; i++)
			if (count[i] > count[top])
				top = i;
		for (i = 0; i < w->n; i++) {
			add_script(all, w->s[i]);
			if (i != top)
				add_script(minority, w->s[i]);
		}
	}
	w->n = 0;
}

int
render_mixed_scripts(const char *in, size_t inlen, unsigned flags, char *out,
    size_t outlen)
{
	const uint8_t *s = (const uint8_t *)in;
	const uc_script_t *common = uc_script_byname("Common");
	const uc_script_t *inherited = uc_script_byname("Inherited");
	struct scripts word = { 0 }, all = { 0 }, minority = { 0 };
	size_t count[MAX_SCRIPTS] = { 0 }, i = 0, o;
	int mixed = 0;

	if (outlen > 0)
		out[0] = '\0';
	while (i < inlen) {
		ucs4_t c;
		int n = u8_mbtoucr(&c, s + i, inlen - i);

		if (n < 1) {
			end_word(&word, count, &all, &minority, &mixed);
			memset(count, 0, sizeof(count));
			i++;
			continue;
		}
		i += (size_t)n;
		if (uc_is_general_category(c, UC_CATEGORY_L)) {
			const uc_script_t *sc = uc_script(c);
			size_t k;

			if (sc == NULL || sc == common || sc == inherited)
				continue;
			add_script(&word, sc);
			for (k = 0; k < word.n; k++)
				if (word.s[k] == sc)
					count[k]++;
		} else if (!uc_is_general_category(c, UC_CATEGORY_M)) {
			end_word(&word, count, &all, &minority, &mixed);
			memset(count, 0, sizeof(count));
		}
	}
	end_word(&word, count, &all, &minority, &mixed);
	if (!mixed || outlen == 0)
		return mixed;
	/* Text a human reads: each part cut to what is left. */
	str_msg(out, outlen, "mixed scripts: ");
	for (i = 0; i < all.n; i++) {
		o = strlen(out);
		str_msg(out + o, outlen - o, "%s%s", i ? " + " : "",
		    all.s[i]->name);
	}
	o = strlen(out);
	str_msg(out + o, outlen - o, ": ");
	o = strlen(out);
	if (o + 1 < outlen)
		render_force(in, inlen, flags | RENDER_QUOTE, &minority, 0, out + o,
		    outlen - o, NULL);
	return 1;
}
