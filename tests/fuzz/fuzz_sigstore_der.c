/* libFuzzer target for our strict DER walker and the certificate readers
 * built on it (src/sigstore/der.c): sig_der_strict, sig_cert_from_der,
 * sig_cert_from_pem. Checks beyond "no crash, no leak, no overread": a
 * value the walker accepts fills the input exactly, so no proper prefix of
 * it is accepted; a certificate is accepted only as strict DER. */
#include "sigstore/internal.h"

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_sigstore_der: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	X509 *c = NULL;
	int strict;

	if (size > 4 * SIG_MAX_CERT)
		return 0;
	strict = sig_der_strict(data, size) == 0;
	if (strict && size > 0)
		CHECK(sig_der_strict(data, size - 1) != 0);
	if (sig_cert_from_der(data, size, &c) == SIGSTORE_OK) {
		CHECK(strict);
		X509_free(c);
		c = NULL;
	}
	if (sig_cert_from_pem(data, size, &c) == SIGSTORE_OK)
		X509_free(c);
	return 0;
}
