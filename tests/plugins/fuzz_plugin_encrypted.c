/* libFuzzer target for is-encrypted (plugins/is-encrypted/: the ZIP and
 * ODF manifest reader, the compound file walker, the PDF trailer read
 * after is-pdf's check) over an in-memory source. The first input byte
 * picks where the rest is read from: even, the whole of enc_check (by
 * signature, as the plugin does); odd, the part it names (bit 1..2: PDF,
 * ZIP, compound file), so a mutated ZIP or compound file is not first
 * taken for something else. The answer must be the same when the source
 * returns its bytes in short reads (only at end of file may a read be
 * short: enc_read must then say ENC_UNJUDGED, never misread). */
#include "enc_check.h"

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
		r = enc_check(&src);
	} else {
		switch ((data[0] >> 1) % 3) {
		case 0: r = enc_pdf(&src); break;
		case 1: r = enc_zip(&src); break;
		default: r = enc_cfb(&src); break;
		}
	}
	if (r == ENC_IOERR)
		__builtin_trap();	/* memory cannot fail to read */
	/* A source that fails every read gives no answer, never 0 or 1. */
	src.pread = fail_pread;
	if (m.size > 0 && enc_check(&src) != ENC_IOERR)
		__builtin_trap();
	return 0;
}
