/* libFuzzer target for is-pdf's structural check
 * (plugins/is-pdf/pdf_check.c, pdf_lex.c) over an in-memory source. */
#include "pdf_check.h"
#include "fuzz_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_mem m = { data, size };
	struct pdf_src src = { fuzz_mem_pread, &m, size };
	int r = pdf_check(&src);

	if (r != 0 && r != 1)
		__builtin_trap();	/* memory cannot fail to read */
	return 0;
}
