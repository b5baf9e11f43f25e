/* Every madvise advice that changes the page cache of a file the plugin
 * maps, tried on its own binary's read-only data: MADV_COLD and
 * MADV_PAGEOUT (reclaim: the owner of a file may), MADV_WILLNEED and
 * MADV_POPULATE_READ (load), MADV_HUGEPAGE and MADV_COLLAPSE (huge pages
 * in the file's cache). Each leaves state a later run, or the console's
 * next read of the binary, can see. 1 when the kernel took any of them;
 * in the sandbox every one must be refused (the seccomp allowlist keeps
 * only DONTNEED, FREE and the guard pages). */
#include "hostile.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#define SPAN (4UL << 20)

static const unsigned char data[SPAN] __attribute__((aligned(2 << 20))) = { 1 };

int
attempt(void)
{
	static const int advice[] = {
		20 /* MADV_COLD */, 21 /* MADV_PAGEOUT */, MADV_WILLNEED,
		22 /* MADV_POPULATE_READ */, MADV_HUGEPAGE, 25 /* MADV_COLLAPSE */,
	};
	volatile const unsigned char *p = data;
	int err = 0;
	size_t i;

	(void)p[0];
	for (i = 0; i < sizeof(advice) / sizeof(advice[0]); i++) {
		if (madvise((void *)(uintptr_t)data, SPAN, advice[i]) == 0)
			return 1;
		/* The sandbox's answer (EPERM) wins over the kernel's own
		 * (EINVAL where a kind of memory does not support one). */
		if (err != EPERM)
			err = errno;
	}
	errno = err;
	return 0;
}
