/* libFuzzer target for the SDK's strict UTF-8 decoder
 * (plugins/sdk/utf8.c): every vector kernel this CPU can run, the scalar
 * kernel, the chunked lfp_utf8_feed (at a cut chosen by the input), the
 * byte-at-a-time step and a direct reading of RFC 3629's table must all
 * agree, on the input itself and on a long UTF-8 text built from it with
 * one byte changed (random bytes are rarely valid for long, and a vector
 * kernel's work is in valid runs that cross its blocks). */
#include "lfplugin.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* RFC 3629 section 4, written out as a whole-buffer check. */
static int
reference(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t b = s[i];
		size_t len, k;
		uint8_t lo = 0x80, hi = 0xbf;

		if (b < 0x80) {
			i++;
			continue;
		}
		if (b >= 0xc2 && b <= 0xdf)
			len = 2;
		else if (b >= 0xe0 && b <= 0xef)
			len = 3;
		else if (b >= 0xf0 && b <= 0xf4)
			len = 4;
		else
			return 0;
		if (b == 0xe0)
			lo = 0xa0;
		if (b == 0xed)
			hi = 0x9f;
		if (b == 0xf0)
			lo = 0x90;
		if (b == 0xf4)
			hi = 0x8f;
		if (n - i < len)
			return 0;
		if (s[i + 1] < lo || s[i + 1] > hi)
			return 0;
		for (k = 2; k < len; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return 0;
		i += len;
	}
	return 1;
}

static void
check(const uint8_t *data, size_t size, size_t cut)
{
	struct lfp_utf8 st;
	size_t i;
	int whole, bytes = 1, chunked, isa, want = reference(data, size);

	lfp_utf8_init(&st);
	whole = lfp_utf8_feed(&st, data, size) == 0 &&
	    lfp_utf8_finish(&st) == 0;

	lfp_utf8_init(&st);
	for (i = 0; i < size && bytes; i++)
		bytes = lfp_utf8_step(&st, data[i]) != LFP_UTF8_BAD;
	bytes = bytes && lfp_utf8_finish(&st) == 0;

	lfp_utf8_init(&st);
	chunked = lfp_utf8_feed(&st, data, cut) == 0 &&
	    lfp_utf8_feed(&st, data + cut, size - cut) == 0 &&
	    lfp_utf8_finish(&st) == 0;

	if (whole != want || bytes != want || chunked != want)
		__builtin_trap();
	for (isa = LFP_ISA_SCALAR; isa <= lfp_cpu_isa(); isa++)
		if (lfp_utf8_valid_isa(isa, data, size) != want)
			__builtin_trap();
	/* text implies UTF-8 */
	if (lfp_is_text(data, size) && !want)
		__builtin_trap();
}

/* Each 3 input bytes pick a code point of 1 to 4 bytes (the first byte's
 * low bits pick the length, so all lengths are common); then the byte the
 * last two input bytes name is replaced by the one before them. */
static size_t
build_text(const uint8_t *data, size_t size, uint8_t *out, size_t cap)
{
	static const uint32_t base[4] = { 0, 0x80, 0x800, 0x10000 };
	static const uint32_t span[4] = { 0x80, 0x780, 0xf800, 0x100000 };
	size_t i, n = 0;

	if (size < 3)
		return 0;
	for (i = 0; i + 3 <= size - 3 && n + 4 <= cap; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 |
		    data[i + 2];
		unsigned len = data[i] & 3;
		uint32_t cp = base[len] + (v >> 2) % span[len];

		if (cp >= 0xd800 && cp <= 0xdfff)
			cp -= 0x800;		/* no surrogates in the text */
		if (cp < 0x80) {
			out[n++] = (uint8_t)cp;
		} else if (cp < 0x800) {
			out[n++] = (uint8_t)(0xc0 | cp >> 6);
			out[n++] = (uint8_t)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			out[n++] = (uint8_t)(0xe0 | cp >> 12);
			out[n++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
			out[n++] = (uint8_t)(0x80 | (cp & 0x3f));
		} else {
			out[n++] = (uint8_t)(0xf0 | cp >> 18);
			out[n++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
			out[n++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
			out[n++] = (uint8_t)(0x80 | (cp & 0x3f));
		}
	}
	if (n > 0) {
		size_t at = ((size_t)data[size - 2] << 8 | data[size - 1]) % (n + 1);
		if (at < n)
			out[at] = data[size - 3];
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t text[16384];
	size_t n;

	check(data, size, size ? data[0] % (size + 1) : 0);
	n = build_text(data, size, text, sizeof(text));
	check(text, n, size ? data[size - 1] % (n + 1) : 0);
	return 0;
}
