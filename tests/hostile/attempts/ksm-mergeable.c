/* Page merging: MADV_MERGEABLE offers a plugin's pages to KSM, which merges
 * identical pages across processes; the copy-on-write fault time after a
 * merge tells another process which page contents the plugin holds (a
 * channel even when KSM is off today: an administrator may turn it on).
 * Bare, the kernel accepts the advice; in the sandbox seccomp refuses it. */
#include "hostile.h"

#include <errno.h>
#include <sys/mman.h>

#ifndef MADV_MERGEABLE
#define MADV_MERGEABLE 12
#endif

int
attempt(void)
{
	void *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	if (madvise(p, 1 << 16, MADV_MERGEABLE) == 0)
		return 1;
	return 0;
}
