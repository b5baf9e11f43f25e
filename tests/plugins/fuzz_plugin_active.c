/* libFuzzer target for has-active-content (plugins/has-active-content/:
 * the PDF tokeniser and object stream reader, the OOXML part and XML
 * scanners, the compound file storages) over an in-memory source. The
 * first input byte picks where the rest goes: even, the whole of
 * hac_check (by signature, as the plugin does); odd, the part it names
 * (bits 1..2: PDF, ZIP, compound file). Memory cannot fail to read, and a
 * source whose every read fails must give no answer. */
#include "hac_check.h"
#include "fuzz_structure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_structure(data, size, hac_check, hac_pdf, hac_zip, hac_cfb);
}
