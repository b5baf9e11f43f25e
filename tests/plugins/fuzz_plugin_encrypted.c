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
#include "fuzz_structure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_structure(data, size, enc_check, enc_pdf, enc_zip, enc_cfb);
}
