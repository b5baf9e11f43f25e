/* Test-only plugin (never shipped, no manifest): reads the whole input into
 * memory and answers 1. It exists to show that the sandbox's memory limit
 * bites: where it fails for lack of memory, a streaming plugin that answers
 * under the same limit is proved not to hold the file. */
#include "lfplugin.h"

#include <stdlib.h>

int
main(void)
{
	uint64_t size, got = 0;
	uint8_t *buf;
	ssize_t n;

	if (lfp_input_size(&size) != 0 || size > SIZE_MAX)
		lfp_fail("slurp: no size");
	if ((buf = malloc(size ? (size_t)size : 1)) == NULL)
		lfp_fail("slurp: out of memory");
	while (got < size && (n = lfp_read(buf + got, (size_t)(size - got))) > 0)
		got += (uint64_t)n;
	lfp_answer(got == size);
}
