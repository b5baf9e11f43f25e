/* Writable memory past RLIMIT_DATA: the kernel counts a MAP_GROWSDOWN
 * mapping as stack, not data, and checks RLIMIT_STACK only when such a
 * mapping grows, not when it is created. The harness runs this with a data
 * limit well below growsdown_bytes; success means every page was written. */
#include "hostile.h"

#include <sys/mman.h>

int
attempt(void)
{
	size_t i, n = (size_t)cfg_u64("growsdown_bytes");
	volatile char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	for (i = 0; i < n; i += 4096)
		p[i] = 1;
	return 1;
}
