/* has-active-content: recognise the container as is-encrypted does
 * (enc_check.c: "PK\3\4" or the compound file signature at byte 0, then
 * "%PDF-" in the first 1024 bytes, then a ZIP end record in the last
 * 64 KiB + 22 bytes) and ask the part that knows it. Anything else: 0. */
#include "hac_check.h"

#include <string.h>

enum enc_answer
hac_check(const struct pdf_src *src)
{
	static const uint8_t cfb_sig[8] = {
		0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1 };
	static uint8_t tail[65535 + 22];
	uint8_t head[PDF_HEADER_WINDOW];
	size_t hl = src->size < sizeof(head) ? (size_t)src->size : sizeof(head);
	size_t tl = src->size < sizeof(tail) ? (size_t)src->size : sizeof(tail);
	enum enc_answer r;

	if ((r = enc_read(src, head, hl, 0)) != ENC_NO)
		return r;
	if (hl >= 4 && memcmp(head, "PK\3\4", 4) == 0)
		return hac_zip(src);
	if (hl >= 8 && memcmp(head, cfb_sig, 8) == 0)
		return hac_cfb(src);
	if (memmem(head, hl, "%PDF-", 5) != NULL)
		return hac_pdf(src);
	if ((r = enc_read(src, tail, tl, src->size - tl)) != ENC_NO)
		return r;
	if (memmem(tail, tl, "PK\5\6", 4) != NULL)
		return hac_zip(src);
	return ENC_NO;
}
