/* Contract: a memory bomb gets no answer. It allocates and touches 8 GiB in
 * 1 MiB pieces like careless code would: an allocation failure is used
 * unchecked and crashes it. It answers 1 only if all of it worked. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(void)
{
	size_t i;

	for (i = 0; i < 8192; i++) {
		char *volatile p = malloc(1 << 20);
		memset(p, 1, 1 << 20);	/* NULL here: SIGSEGV */
	}
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
