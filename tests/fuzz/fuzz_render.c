/* libFuzzer target for src/lib/render.c. Beyond "no crash, no overread"
 * (ASan/UBSan), it checks on every input what a human's screen relies on:
 * the output fits its exact-size heap buffer, NUL-terminated; it is valid
 * UTF-8 with no control, bidirectional control, invisible, private-use,
 * unassigned character or non-ASCII space in it; a combining mark only
 * follows a letter, in a run of at most RENDER_MAX_MARKS; the columns
 * reported are the columns written and within the limit; and what was not
 * cut unescapes to the input exactly (no escape is ambiguous). The same
 * holds for render_key_warning()'s line, which is empty exactly when it
 * warns of nothing, and always for plain ASCII; with RENDER_ASCII,
 * nothing but printable ASCII. The property checks are written from the
 * rules (docs/rendering.md) with ICU's properties, not from render.c. */
#include "lib/render.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_render: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Takes no column: a mark that does not space, a format character, the
 * medial and final jamo of a decomposed Hangul syllable. */
static int
zero_width(UChar32 c)
{
	int hst = u_getIntPropertyValue(c, UCHAR_HANGUL_SYLLABLE_TYPE);

	return (U_GET_GC_MASK(c) & (U_GC_MN_MASK | U_GC_ME_MASK |
	    U_GC_CF_MASK)) || hst == U_HST_VOWEL_JAMO ||
	    hst == U_HST_TRAILING_JAMO;
}

/* Nothing but printable characters, marks only on letters. */
static void
check_safe(const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s;
	int32_t i = 0, len = (int32_t)n;
	unsigned marks = 0;
	int base = 0;

	while (i < len) {
		UChar32 c;

		U8_NEXT(p, i, len, c);
		CHECK(c >= 0x20 && c != 0x7f);	/* and well-formed */
		if (c < 0x80) {
			base = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
			marks = 0;
			continue;
		}
		CHECK(!(U_GET_GC_MASK(c) & (U_GC_C_MASK | U_GC_Z_MASK)));
		CHECK(!u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT));
		CHECK(!u_hasBinaryProperty(c, UCHAR_VARIATION_SELECTOR));
		CHECK(!u_hasBinaryProperty(c, UCHAR_BIDI_CONTROL));
		CHECK(c != 0x2800 && c != 0x1D159);	/* blank glyphs */
		if ((U_GET_GC_MASK(c) & U_GC_M_MASK) || zero_width(c)) {
			CHECK(base);
			CHECK(++marks <= RENDER_MAX_MARKS);
		} else {
			base = (U_GET_GC_MASK(c) & U_GC_L_MASK) != 0;
			marks = 0;
		}
	}
}

static int
ascii_only(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

static size_t
put_utf8(uint8_t *out, unsigned v)
{
	int32_t n = 0;
	UBool bad = 0;

	U8_APPEND(out, n, 4, (UChar32)v, bad);
	CHECK(!bad && n > 0);
	return (size_t)n;
}

/* The inverse of the rendering; out holds at least strlen(s) bytes. */
static size_t
unrender(const char *s, size_t n, uint8_t *out, int quoted)
{
	size_t i = 0, o = 0;

	if (quoted) {
		CHECK(n >= 2 && s[0] == '"' && s[n - 1] == '"');
		i = 1;
		n--;
	}
	while (i < n) {
		unsigned v;
		char *end;

		if (s[i] != '\\') {
			CHECK(!(quoted && s[i] == '"'));
			out[o++] = (uint8_t)s[i++];
			continue;
		}
		CHECK(i + 1 < n);
		switch (s[i + 1]) {
		case '\\':
		case '"':
			out[o++] = (uint8_t)s[i + 1];
			i += 2;
			break;
		case 'x':
			CHECK(i + 3 < n);
			CHECK(sscanf(s + i + 2, "%2x", &v) == 1);
			out[o++] = (uint8_t)v;
			i += 4;
			break;
		case 'u':
			CHECK(s[i + 2] == '{');
			v = (unsigned)strtoul(s + i + 3, &end, 16);
			CHECK(*end == '}' && end - (s + i + 3) >= 4);
			o += put_utf8(out + o, v);
			i = (size_t)(end - s) + 1;
			break;
		default:
			CHECK(0);
		}
	}
	return o;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct render_info ri;
	unsigned flags;
	size_t max_cols, outlen;
	char *out, *in;
	uint8_t *back;

	if (size < 3)
		return 0;
	flags = (data[0] & 1 ? RENDER_QUOTE : 0) |
	    (data[0] & 2 ? RENDER_ASCII : 0);
	max_cols = data[1] & 0x80 ? 0 : data[1];
	outlen = data[2] & 0x80 ? size * 4 + 8 : data[2];
	data += 3;
	size -= 3;

	in = malloc(size ? size : 1);
	out = malloc(outlen ? outlen : 1);
	back = malloc(outlen + 1);
	CHECK(in != NULL && out != NULL && back != NULL);
	memcpy(in, data, size);

	render_text(in, size, flags, max_cols, out, outlen, &ri);
	if (outlen == 0) {
		CHECK(ri.len == 0);
	} else {
		CHECK(ri.len < outlen && strlen(out) == ri.len);
		check_safe(out, ri.len);
		if (flags & RENDER_ASCII)
			CHECK(ascii_only(out, ri.len));
		CHECK(ri.cols == render_width(out, ri.len));
		CHECK(max_cols == 0 || ri.cols <= max_cols);
		if (!ri.truncated) {
			size_t n = unrender(out, ri.len, back,
			    (flags & RENDER_QUOTE) != 0);
			CHECK(n == size && memcmp(back, in, size) == 0);
		} else if (ri.len > 0) {
			CHECK(ri.len >= 3 &&
			    memcmp(out + ri.len - 3, "...", 3) == 0);
		}
		/* room for everything: never cut */
		if (outlen >= size * 4 + 3 && max_cols == 0)
			CHECK(!ri.truncated);
	}

	if (outlen > 0) {
		unsigned r = render_key_warning(in, size, flags & RENDER_ASCII,
		    out, outlen);
		size_t n = strlen(out);

		CHECK(n < outlen);
		check_safe(out, n);
		if (flags & RENDER_ASCII)
			CHECK(ascii_only(out, n));
		CHECK(r != 0 || n == 0);
		CHECK(r == 0 || n > 0 || outlen == 1);
		if (ascii_only(in, size))
			CHECK(r == 0);
	}
	free(back);
	free(out);
	free(in);
	return 0;
}
