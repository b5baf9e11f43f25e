/* is-utf8: is the whole file strict UTF-8 (RFC 3629)?
 *
 * 1: every byte belongs to a complete, shortest-form sequence of a Unicode
 * scalar value (no overlongs, no surrogates, nothing above U+10FFFF, no
 * sequence cut off at the end). 0: anything else. The empty file is the
 * empty sequence, which is valid: 1. NUL, a BOM and noncharacters are
 * scalar values, so they are valid too. Streaming, constant memory. */
#include "lfplugin.h"

int
main(void)
{
	static uint8_t buf[64 * 1024];
	struct lfp_utf8 st;
	ssize_t n;

	lfp_utf8_init(&st);
	while ((n = lfp_read(buf, sizeof(buf))) > 0)
		if (lfp_utf8_feed(&st, buf, (size_t)n) != 0)
			lfp_answer(0);
	if (n < 0)
		lfp_fail("is-utf8: read error");
	lfp_answer(lfp_utf8_finish(&st) == 0);
}
