/* Slow down the console's next look at the plugin: page the whole binary
 * out of the page cache. The console hashed its plugins again, unquantized,
 * when it listed them (file.plugins) and when a plan arrived: after a run
 * that evicted 32 MiB of its own binary that hash read the disk, and the
 * agent timing the reply learned the bit the plugin chose (evict or not)
 * from a file it was never approved for. The plugin owns its binary (it
 * runs as the console account), so the kernel takes MADV_PAGEOUT on it.
 *
 * 1 when the kernel took the advice over the whole array; the harness then
 * sees the binary's pages gone (mincore, as root) and times a re-hash of it
 * against one made before the run. The console side (its listing and
 * precheck no longer read the binary) is tests/e2e/test_residency.py. */
#include "hostile.h"

#include <stdint.h>
#include <sys/mman.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define SPAN (32UL << 20)
#define PAGE 4096UL

static const unsigned char bulk[SPAN] __attribute__((aligned(2 << 20))) = { 1 };

int
attempt(void)
{
	volatile const unsigned char *p = bulk;
	unsigned sum = 0;
	size_t off;

	/* Only mapped pages are reclaimed: map them all first. */
	for (off = 0; off < SPAN; off += PAGE)
		sum += p[off];
	(void)sum;
	return madvise((void *)(uintptr_t)bulk, SPAN, MADV_PAGEOUT) == 0;
}
