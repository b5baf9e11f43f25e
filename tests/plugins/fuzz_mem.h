/* The in-memory source of the plugin fuzz targets (a check's pread
 * callback over the fuzzer's bytes), and one whose every read fails: a
 * check must then give no answer, never 0 or 1. */
#ifndef LOCKFILE_TESTS_FUZZ_MEM_H
#define LOCKFILE_TESTS_FUZZ_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

struct fuzz_mem {
	const uint8_t *data;
	size_t size;
};

static inline ssize_t
fuzz_mem_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct fuzz_mem *m = ctx;

	if (off >= m->size)
		return 0;
	if (len > m->size - off)
		len = (size_t)(m->size - off);
	memcpy(buf, m->data + off, len);
	return (ssize_t)len;
}

static inline ssize_t
fuzz_fail_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	(void)buf;
	(void)len;
	(void)off;
	return -1;
}

#endif
