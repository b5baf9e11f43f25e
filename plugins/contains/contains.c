/* contains: does the file contain the typed needle, byte for byte?
 *
 * Protocol 2, one input `needle` (kind text, 1..1024 bytes). 1: the needle
 * occurs somewhere in the file (case, Unicode normalisation and line ends
 * are not folded). 0: it does not. No answer (plugin_error): an empty
 * needle, a needle that is not of kind text, or a malformed fd 6. Constant
 * memory (search.h); with protocol 2 the detail on fd 7 gives the offset of
 * the first match to the human at security level 0. */
#include "lfplugin.h"
#include "search.h"

int
main(void)
{
	static uint8_t needle[SEARCH_NEEDLE_MAX];
	static struct search s;
	struct lfp_value v = { SEARCH_NEEDLE_MAX, needle, 0 };
	uint64_t at;

	if (lfp_values_read(&v, 1) != 0)
		lfp_fail("contains: expected one value of at most 1024 bytes on fd 6");
	if (v.len == 0 || search_init(&s, needle, v.len) != 0)
		lfp_fail("contains: the needle is empty");
	if (!lfp_is_text(needle, v.len))
		lfp_fail("contains: the needle is not of kind text");

	for (;;) {
		uint8_t *space = search_space(&s);
		size_t got = 0;
		ssize_t n = 1;

		/* Fill the whole chunk, so the carried bytes are rescanned at
		 * most once per SEARCH_CHUNK bytes of input. */
		while (got < SEARCH_CHUNK &&
		    (n = lfp_read(space + got, SEARCH_CHUNK - got)) > 0)
			got += (size_t)n;
		if (n < 0)
			lfp_fail("contains: read error");
		if (got > 0 && search_feed(&s, got, &at)) {
			(void)lfp_detail("first match at byte offset %llu",
			    (unsigned long long)at);
			lfp_answer(1);
		}
		if (n == 0)
			lfp_answer(0);
	}
}
