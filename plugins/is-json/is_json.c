/* is-json: is the file exactly one JSON text (RFC 8259)?
 *
 * 1: optional whitespace, one value of any type, optional whitespace, and
 * nothing else; the whole text strict UTF-8 without a byte order mark;
 * arrays and objects nested at most JSON_MAX_DEPTH (512) deep. 0: anything
 * else, including an empty file and deeper nesting. Streaming: the memory
 * used does not depend on the file. */
#include "json_check.h"
#include "lfplugin.h"

int
main(void)
{
	static uint8_t buf[64 * 1024];
	static struct json_check jc;
	ssize_t n;

	json_check_init(&jc);
	while ((n = lfp_read(buf, sizeof(buf))) > 0)
		if (json_check_feed(&jc, buf, (size_t)n) != 0)
			lfp_answer(0);
	if (n < 0)
		lfp_fail("is-json: read error");
	lfp_answer(json_check_finish(&jc));
}
