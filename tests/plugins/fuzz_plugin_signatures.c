/* libFuzzer target for pdf-signatures-intact (plugins/pdf-signatures-intact/:
 * the tokeniser that finds signature dictionaries, the /ByteRange and
 * /Contents shape check, the CMS and RFC 3161 parsing and verification)
 * over an in-memory source. The first input byte picks where the rest
 * goes: even, the whole of sig_check (is-pdf's structural check first, as
 * the plugin does); odd, the parts without it, every dictionary found
 * shaped and verified, so a mutated signature reaches OpenSSL's parsers.
 * Memory cannot fail to read, and a source whose every read fails must
 * give no answer. */
#include "sig_check.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <openssl/crypto.h>

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

static enum enc_answer
parts(const struct pdf_src *src)
{
	static struct sig sigs[SIG_MAX];
	size_t n = 0, i;
	enum enc_answer e;

	if ((e = sig_scan(src, sigs, &n)) != ENC_NO)
		return e;
	for (i = 0; i < n; i++) {
		if ((e = sig_shape(src, &sigs[i])) != ENC_NO)
			return e;
		if (sigs[i].shape_ok &&
		    (e = sig_verify(src, &sigs[i])) == ENC_IOERR)
			return e;
	}
	return ENC_NO;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m;
	struct pdf_src src = { mem_pread, &m, 0 };
	enum enc_answer r;

	if (size < 1)
		return 0;
	(void)OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
	m.data = data + 1;
	m.size = size - 1;
	src.size = m.size;
	r = (data[0] & 1) ? parts(&src) : sig_check(&src);
	if (r == ENC_IOERR)
		__builtin_trap();	/* memory cannot fail to read */
	src.pread = fail_pread;
	if (m.size > 0 && sig_check(&src) != ENC_IOERR)
		__builtin_trap();
	return 0;
}
