/* is-encrypted: is the file a PDF, OOXML, ODF or ZIP that carries
 * encryption?
 *
 * Protocol 1. The checks are in enc_check.c, enc_zip.c and enc_cfb.c (and
 * docs/plugins.md). The input is read with pread at the places its
 * structure names; memory stays fixed whatever the file's size. Linked
 * statically with zlib, for an ODF manifest only. */
#include "lfplugin.h"
#include "enc_check.h"

int
main(void)
{
	struct pdf_src src = { lfp_input_pread, NULL, 0 };

	if (lfp_input_size(&src.size) != 0)
		lfp_fail("is-encrypted: the input is not a regular file");
	switch (enc_check(&src)) {
	case ENC_YES:
		lfp_answer(1);
	case ENC_NO:
		lfp_answer(0);
	case ENC_IOERR:
		lfp_fail("is-encrypted: read error");
	default:
		lfp_fail("is-encrypted: malformed or beyond a limit");
	}
}
