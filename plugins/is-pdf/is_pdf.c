/* is-pdf: is the file a structurally well-formed PDF document?
 *
 * Protocol 1. The checks are in pdf_check.c (and docs/plugins.md): header,
 * %%EOF, startxref, the cross-reference sections it leads to, their trailer
 * or stream dictionaries and the catalog's entry. No content is decoded.
 * The input is read with pread at the places the structure names: memory
 * stays fixed whatever the file's size. */
#include "lfplugin.h"
#include "pdf_check.h"

int
main(void)
{
	struct pdf_src src = { lfp_input_pread, NULL, 0 };
	int r;

	if (lfp_input_size(&src.size) != 0)
		lfp_fail("is-pdf: the input is not a regular file");
	r = pdf_check(&src);
	if (r < 0)
		lfp_fail("is-pdf: read error");
	lfp_answer(r);
}
