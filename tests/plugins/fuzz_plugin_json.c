/* libFuzzer target for is-json's validator (plugins/is-json/json_check.c).
 * Besides memory safety it checks the streaming property: the answer must
 * not depend on where the input is cut into reads. */
#include "json_check.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
answer(const uint8_t *data, size_t size, size_t cut)
{
	static struct json_check jc;

	json_check_init(&jc);
	if (json_check_feed(&jc, data, cut) != 0 ||
	    json_check_feed(&jc, data + cut, size - cut) != 0)
		return 0;
	return json_check_finish(&jc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int whole = answer(data, size, size);
	size_t cut;

	for (cut = 0; cut < size && cut < 64; cut++)
		if (answer(data, size, cut) != whole)
			__builtin_trap();
	if (size > 64 && answer(data, size, size / 2) != whole)
		__builtin_trap();
	return 0;
}
