/* has-active-content: does the file carry active content: a PDF with
 * JavaScript, launch, submit, import, remote go-to, rich media, XFA or
 * an embedded file; an Office document with macros, XLM, DDE, a remote
 * template, ActiveX or embedded objects?
 *
 * Protocol 1. The checks are in hac_pdf.c and hac_office.c (and
 * docs/plugins.md). Linked statically with zlib (object streams, OOXML
 * parts). */
#include "lfplugin.h"
#include "hac_check.h"

int
main(void)
{
	struct pdf_src src = { lfp_input_pread, NULL, 0 };

	if (lfp_input_size(&src.size) != 0)
		lfp_fail("has-active-content: the input is not a regular file");
	switch (hac_check(&src)) {
	case ENC_YES:
		lfp_answer(1);
	case ENC_NO:
		lfp_answer(0);
	case ENC_IOERR:
		lfp_fail("has-active-content: read error");
	default:
		lfp_fail("has-active-content: malformed or beyond a limit");
	}
}
