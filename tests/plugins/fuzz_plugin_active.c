/* libFuzzer target for has-active-content (plugins/has-active-content/:
 * the PDF tokeniser and object stream reader, the OOXML part and XML
 * scanners, the compound file storages) over an in-memory source. The
 * first input byte picks where the rest goes: even, the whole of
 * hac_check (by signature, as the plugin does); odd, the part it names
 * (bits 1..2: PDF, ZIP, compound file). Memory cannot fail to read, and a
 * source whose every read fails must give no answer. */
#include "hac_check.h"

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

static ssize_t
fail_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	(void)buf;
	(void)len;
	(void)off;
	return -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m;
	struct pdf_src src = { mem_pread, &m, 0 };
	enum enc_answer r;

	if (size < 1)
		return 0;
	m.data = data + 1;
	m.size = size - 1;
	src.size = m.size;
	if (!(data[0] & 1)) {
		r = hac_check(&src);
	} else {
		switch ((data[0] >> 1) % 3) {
		case 0: r = hac_pdf(&src); break;
		case 1: r = hac_zip(&src); break;
		default: r = hac_cfb(&src); break;
		}
	}
	if (r == ENC_IOERR)
		__builtin_trap();
	src.pread = fail_pread;
	if (m.size > 0 && hac_check(&src) != ENC_IOERR)
		__builtin_trap();
	return 0;
}
