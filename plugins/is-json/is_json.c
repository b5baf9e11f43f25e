/* is-json: is the file exactly one JSON text (RFC 8259)?
 *
 * 1: optional whitespace, one value of any type, optional whitespace, and
 * nothing else; the whole text strict UTF-8 without a byte order mark;
 * arrays and objects nested at most JSON_MAX_DEPTH (512) deep. 0: anything
 * else, including an empty file and deeper nesting. The input is mapped a
 * piece at a time and checked with the CPU's vector unit (json_fast.c);
 * the memory used does not depend on the file. */
#include "json_fast.h"
#include "lfplugin.h"

int
main(void)
{
	/* Used only where the input cannot be mapped. */
	static uint8_t buf[256 * 1024];
	static struct json_fast jf;
	struct lfp_input in;
	int r;

	json_fast_init(&jf, lfp_cpu_isa());
	if (lfp_input_init(&in, buf, sizeof(buf), 0) != 0)
		lfp_fail("is-json: no input");
	while ((r = lfp_input_next(&in)) > 0)
		if (json_fast_feed(&jf, in.p, in.len) != 0)
			lfp_answer(0);
	if (r < 0)
		lfp_fail("is-json: read error");
	lfp_answer(json_fast_finish(&jf));
}
