/* libFuzzer target for the SDK's strict UTF-8 decoder
 * (plugins/sdk/utf8.c): the chunked fast path, the byte-at-a-time step and
 * a direct reading of RFC 3629's table must all agree. */
#include "lfplugin.h"

#include <stddef.h>
#include <stdint.h>

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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lfp_utf8 st;
	size_t i, cut = size ? data[0] % (size + 1) : 0;
	int whole, bytes = 1, chunked;

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

	if (whole != bytes || whole != chunked || whole != reference(data, size))
		__builtin_trap();
	/* text implies UTF-8 */
	if (lfp_is_text(data, size) && !whole)
		__builtin_trap();
	return 0;
}
