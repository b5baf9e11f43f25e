/* is-encrypted, compound file part ([MS-OFFCRYPTO] 2.3.4.4 puts an
 * encrypted OOXML package in a compound file as the stream
 * "EncryptedPackage" beside "EncryptionInfo"): encrypted when the root
 * storage has a stream child of that name, compared case-insensitively as
 * [MS-CFB] 2.6.4 orders names and olefile finds them. */
#include "cfbread.h"

struct found {
	int yes;
};

static enum enc_answer
on_entry(void *arg, const uint8_t *d, uint32_t parent)
{
	struct found *f = arg;

	if (parent == 0 && d[0x42] == 2 && cfb_name_is(d, "encryptedpackage"))
		f->yes = 1;
	return ENC_NO;
}

enum enc_answer
enc_cfb(const struct pdf_src *src)
{
	struct found f = { 0 };
	enum enc_answer e = cfb_walk(src, on_entry, &f);

	if (e != ENC_NO)
		return e;
	return f.yes ? ENC_YES : ENC_NO;
}
