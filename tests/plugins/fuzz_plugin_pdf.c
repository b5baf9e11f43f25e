/* libFuzzer target for is-pdf's structural check
 * (plugins/is-pdf/pdf_check.c, pdf_lex.c) over an in-memory source. */
#include "pdf_check.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *data;
	size_t size;
};

static ssize_t
mem_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct mem *m = ctx;

	if (off >= m->size)
		return 0;
	if (len > m->size - off)
		len = (size_t)(m->size - off);
	memcpy(buf, m->data + off, len);
	return (ssize_t)len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	struct pdf_src src = { mem_pread, &m, size };
	int r = pdf_check(&src);

	if (r != 0 && r != 1)
		__builtin_trap();	/* memory cannot fail to read */
	return 0;
}
