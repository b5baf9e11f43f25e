/* is-utf8: is the whole file strict UTF-8 (RFC 3629)?
 *
 * 1: every byte belongs to a complete, shortest-form sequence of a Unicode
 * scalar value (no overlongs, no surrogates, nothing above U+10FFFF, no
 * sequence cut off at the end). 0: anything else. The empty file is the
 * empty sequence, which is valid: 1. NUL, a BOM and noncharacters are
 * scalar values, so they are valid too. The input is mapped a piece at a
 * time and checked with the CPU's vector unit (lfp_utf8_feed); memory does
 * not grow with the file. */
#include "lfplugin.h"

int
main(void)
{
	/* Used only where the input cannot be mapped. */
	static uint8_t buf[256 * 1024];
	struct lfp_input in;
	struct lfp_utf8 st;
	int r;

	lfp_utf8_init(&st);
	if (lfp_input_init(&in, buf, sizeof(buf), 0) != 0)
		lfp_fail("is-utf8: no input");
	while ((r = lfp_input_next(&in)) > 0)
		if (lfp_utf8_feed(&st, in.p, in.len) != 0)
			lfp_answer(0);
	if (r < 0)
		lfp_fail("is-utf8: read error");
	lfp_answer(lfp_utf8_finish(&st) == 0);
}
