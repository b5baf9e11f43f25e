/* libFuzzer target for pdf-signatures-intact (plugins/pdf-signatures-intact/:
 * the tokeniser that finds signature dictionaries, the /ByteRange and
 * /Contents shape check, the CMS and RFC 3161 parsing and verification)
 * over an in-memory source. The first input byte picks where the rest
 * goes: even, the whole of sig_check (is-pdf's structural check first, as
 * the plugin does); odd, the parts without it, every dictionary found
 * shaped and verified, so a mutated signature reaches OpenSSL's parsers.
 * Memory cannot fail to read, and a source whose every read fails must
 * give no answer (fuzz_structure.h, shared with the other structure
 * plugins' targets). */
#include "sig_check.h"
#include "fuzz_structure.h"

#include <openssl/crypto.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	(void)OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
	/* An odd first byte: the parts, whichever part it names. */
	return fuzz_structure(data, size, sig_check, parts, parts, parts);
}
