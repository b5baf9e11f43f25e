/* libFuzzer target for contains' window search (plugins/contains/search.c):
 * feeding the haystack in chunks of fuzzer-chosen sizes must find exactly
 * what memmem finds in the whole buffer, at the same offset.
 * Input: needle length byte, chunk-size byte, needle, haystack. */
#include "search.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct search s;
	size_t nlen, step, hlen, off = 0;
	const uint8_t *needle, *hay, *want;
	uint64_t at = 0;
	int found = 0;

	if (size < 3)
		return 0;
	nlen = (size_t)data[0] % 40 + 1;
	step = (size_t)data[1] % 17 + 1;
	if (size - 2 < nlen)
		return 0;
	needle = data + 2;
	hay = needle + nlen;
	hlen = size - 2 - nlen;
	if (search_init(&s, needle, nlen) != 0)
		__builtin_trap();
	while (off < hlen && !found) {
		size_t n = hlen - off < step ? hlen - off : step;
		memcpy(search_space(&s), hay + off, n);
		found = search_feed(&s, n, &at);
		off += n;
	}
	want = memmem(hay, hlen, needle, nlen);
	if (found != (want != NULL) ||
	    (found && at != (uint64_t)(want - hay)))
		__builtin_trap();
	return 0;
}
