/* pdf-signatures-intact: does the PDF carry at least one signature, is
 * every signature valid over its byte range, and does the last one (a
 * signature or a document timestamp) cover the whole file but its own
 * /Contents, nothing appended?
 *
 * Protocol 1. The checks are in sig_scan.c and sig_verify.c (and
 * docs/plugins.md). Linked statically with OpenSSL's libcrypto. */
#include "lfplugin.h"
#include "sig_check.h"

#include <openssl/crypto.h>

int
main(void)
{
	struct pdf_src src = { lfp_input_pread, NULL, 0 };
	enum enc_answer r;

	/* No configuration file: the sandbox lets the plugin open nothing
	 * but its input, and the defaults are what it needs. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		lfp_fail("pdf-signatures-intact: libcrypto did not start");
	if (lfp_input_size(&src.size) != 0)
		lfp_fail("pdf-signatures-intact: the input is not a regular file");
	r = sig_check(&src);
	lfp_result(r, r == ENC_IOERR ? "pdf-signatures-intact: read error" :
	    "pdf-signatures-intact: not a PDF a reader can follow, or beyond "
	    "a limit");
}
