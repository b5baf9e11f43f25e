/* A message from one run to a later one through the page cache of the
 * plugin's own binary. The plugin runs as the console account, which owns
 * the store's binaries, so the kernel lets it reclaim (MADV_PAGEOUT) or
 * deactivate (MADV_COLD) the cached pages of its own file mappings; a later
 * run of the same binary, on another file, reads each page's residency back
 * as major faults (getrusage). Sixteen bits, one per 2 MiB region of a
 * read-only array in the binary (a page-cache folio never spans two
 * aligned regions, and read-around on a fault stays inside one).
 *
 * pc_role=write: fault in every page of every region, then page out the
 * regions whose bit of pc_message is 1; 1 when the kernel took every
 * advice. pc_role=read: without read-around (MADV_RANDOM), touch one page
 * in the middle of each region and count major faults; 1 when the bits
 * read equal pc_message. The harness
 * runs the writer, then the reader, on a fresh copy of the binary owned by
 * the console account: bare, the reader must get the message; sandboxed it
 * must not. */
#include "hostile.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define BITS 16
#define REGION (2UL << 20)
#define PAGE 4096UL

/* In the file (initialized, read-only): mapped from the binary itself. */
static const unsigned char regions[BITS * REGION]
    __attribute__((aligned(2 << 20))) = { 1 };

static long
majflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_majflt : -1;
}

static int
write_bits(unsigned message)
{
	volatile const unsigned char *p = regions;
	unsigned i, sum = 0;
	size_t off;

	/* Every page in the cache first (read-around may bring neighbours
	 * back later, so all faults come before any advice), and mapped: only
	 * mapped pages are reclaimed. */
	for (off = 0; off < sizeof(regions); off += PAGE)
		sum += p[off];
	(void)sum;
	for (i = 0; i < BITS; i++)
		if ((message >> i & 1) &&
		    madvise((void *)(uintptr_t)(regions + i * REGION), REGION,
		    MADV_PAGEOUT) != 0)
			return 0;
	return 1;
}

static int
read_bits(unsigned message)
{
	unsigned i, got = 0, sum = 0;

	/* No read-around: a fault must bring in its own page only, never the
	 * next region's. */
	(void)madvise((void *)(uintptr_t)regions, sizeof(regions), MADV_RANDOM);
	for (i = 0; i < BITS; i++) {
		volatile const unsigned char *p = regions + i * REGION + REGION / 2;
		long before = majflt();

		sum += *p;
		if (before >= 0 && majflt() > before)
			got |= 1U << i;
	}
	(void)sum;
	if (got == message)
		return 1;
	errno = ENODATA;
	return 0;
}

int
attempt(void)
{
	const char *role = cfg("pc_role");
	unsigned message = (unsigned)cfg_u64("pc_message") & 0xffff;

	if (strcmp(role, "write") == 0)
		return write_bits(message);
	return read_bits(message);
}
