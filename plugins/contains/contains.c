/* contains: does the file contain the typed needle, byte for byte?
 *
 * Protocol 2, one input `needle` (kind text, 1..1024 bytes). 1: the needle
 * occurs somewhere in the file (case, Unicode normalisation and line ends
 * are not folded). 0: it does not. No answer (plugin_error): an empty
 * needle, a needle that is not of kind text, or a malformed fd 6. The
 * input is mapped a piece at a time, each piece overlapping the last by
 * needle length - 1 bytes (lfp_input_next), and searched in linear time
 * (search.h); memory does not grow with the file. With protocol 2 the
 * detail on fd 7 gives the offset of the first match to the human at
 * security level 0. */
#include "lfplugin.h"
#include "search.h"

int
main(void)
{
	static uint8_t needle[SEARCH_NEEDLE_MAX];
	/* Used only where the input cannot be mapped. */
	static uint8_t buf[256 * 1024];
	struct lfp_value v = { SEARCH_NEEDLE_MAX, needle, 0 };
	struct lfp_input in;
	int isa = lfp_cpu_isa(), r;

	if (lfp_values_read(&v, 1) != 0)
		lfp_fail("contains: expected one value of at most 1024 bytes on fd 6");
	if (v.len == 0)
		lfp_fail("contains: the needle is empty");
	if (!lfp_is_text(needle, v.len))
		lfp_fail("contains: the needle is not of kind text");
	if (lfp_input_init(&in, buf, sizeof(buf), v.len - 1) != 0)
		lfp_fail("contains: no input");

	while ((r = lfp_input_next(&in)) > 0) {
		ptrdiff_t at = search_find(in.p, in.len, needle, v.len, isa);

		if (at >= 0) {
			(void)lfp_detail("first match at byte offset %llu",
			    (unsigned long long)(in.off + (uint64_t)at));
			lfp_answer(1);
		}
	}
	if (r < 0)
		lfp_fail("contains: read error");
	lfp_answer(0);
}
