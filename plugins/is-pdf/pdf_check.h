/* The structural PDF check behind is-pdf, over any random-access source
 * (the plugin gives it fd 3; the fuzzer gives it memory). Memory is fixed:
 * it never holds more than a few buffers of the file. */
#ifndef IS_PDF_CHECK_H
#define IS_PDF_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pdf_src {
	/* Read up to len bytes at off: bytes read (short only at end of
	 * file), or -1 on error. */
	ssize_t (*pread)(void *ctx, void *buf, size_t len, uint64_t off);
	void *ctx;
	uint64_t size;
};

#define PDF_HEADER_WINDOW 1024	/* "%PDF-" must start in these first bytes */
#define PDF_TAIL_WINDOW 1024	/* "%%EOF" must start in these last bytes */
#define PDF_MAX_SECTIONS 256	/* cross-reference sections in a Prev chain */

/* 1: well-formed (docs/plugins.md lists the checks); 0: not; -1: the
 * source could not be read. */
int pdf_check(const struct pdf_src *src);

#endif
