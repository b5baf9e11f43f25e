/* libFuzzer target for archive-within-limits (plugins/archive-within-limits/
 * awl_zip.c: the end records, the central directory, local headers and
 * tiling, names, inflation and nested archives) over an in-memory source.
 * Memory cannot fail to read, so the answer is 0 or 1; a source whose
 * every read fails must give no answer, never 0 or 1 (a read error is not
 * an inconsistent archive); and the answer must be the same when the
 * archive is read through a window at an offset of a larger source (the
 * nested archives' stored case). */
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "awl_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *p;
	size_t size;
	uint64_t shift;		/* the data starts this far into the source */
	int fail;
};

static ssize_t
mem_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct mem *m = ctx;

	if (m->fail)
		return -1;
	off -= m->shift;
	if (off >= m->size)
		return 0;
	if (len > m->size - off)
		len = m->size - off;
	memcpy(buf, m->p + off, len);
	return (ssize_t)len;
}

struct win {
	struct awl_src *parent;
	uint64_t base;
};

static ssize_t
win_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct win *w = ctx;

	return w->parent->pread(w->parent->ctx, buf, len, w->base + off);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { data, size, 0, 0 };
	struct awl_src src = { mem_pread, &m, size };
	struct mem shifted = { data, size, 1000, 0 };
	struct awl_src outer = { mem_pread, &shifted, size + 1000 };
	struct win w = { &outer, 1000 };
	struct awl_src inner = { win_pread, &w, size };
	enum awl_answer a, b;

	a = awl_check(&src, NULL);
	if (a != AWL_YES && a != AWL_NO)
		__builtin_trap();	/* memory cannot fail to read */
	b = awl_check(&inner, NULL);
	if (a != b)
		__builtin_trap();
	m.fail = 1;
	if (size >= 22 && awl_check(&src, NULL) != AWL_IOERR)
		__builtin_trap();
	return 0;
}
