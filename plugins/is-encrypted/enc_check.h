/* is-encrypted: which container the file is and whether it carries
 * encryption (docs/plugins.md, "is-encrypted"), over any random-access
 * source (the plugin gives it fd 3; the fuzzer gives it memory). Memory is
 * fixed: a few buffers and zlib's inflate state, whatever the file's size. */
#ifndef IS_ENCRYPTED_CHECK_H
#define IS_ENCRYPTED_CHECK_H

#include <stdint.h>

#include "pdf_check.h"		/* struct pdf_src: the source type */

enum enc_answer {
	ENC_NO = 0,		/* not one of the encrypted forms */
	ENC_YES = 1,		/* an encrypted form (the manifest's "one") */
	ENC_UNJUDGED,		/* a PDF, ZIP or compound file too malformed,
				 * or beyond a limit, to say: plugin_error */
	ENC_IOERR,		/* the source could not be read */
};

/* Limits (docs/plugins.md states them beside the question). */
#define ENC_MANIFEST_MAX (16u << 20)	/* inflated bytes of an ODF manifest */
#define ENC_CFB_DIR_SECTORS 2048	/* a compound file's directory chain:
					 * 8192 entries in 512-byte sectors,
					 * 65536 in 4096-byte ones */

enum enc_answer enc_check(const struct pdf_src *src);

/* The three parts, each called on a source already recognised by its
 * signature. */
enum enc_answer enc_pdf(const struct pdf_src *src);
enum enc_answer enc_zip(const struct pdf_src *src);
enum enc_answer enc_cfb(const struct pdf_src *src);

/* Exactly len bytes at off: 0, or ENC_UNJUDGED (past the end) or
 * ENC_IOERR. Inline: pdf-signatures-intact shares it without linking
 * is-encrypted's readers. */
static inline enum enc_answer
enc_read(const struct pdf_src *src, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	if (off > src->size || len > src->size - off)
		return ENC_UNJUDGED;
	n = src->pread(src->ctx, buf, len, off);
	if (n < 0)
		return ENC_IOERR;
	return (size_t)n == len ? ENC_NO : ENC_UNJUDGED;
}

/* is-pdf's structural check (pdf_check.c), which a PDF must pass before
 * anything else is read of it: ENC_NO when it does (go on), ENC_UNJUDGED
 * when it does not (not a PDF a reader can follow), or ENC_IOERR. */
static inline enum enc_answer
enc_pdf_check(const struct pdf_src *src)
{
	switch (pdf_check(src)) {
	case 1:
		return ENC_NO;
	case 0:
		return ENC_UNJUDGED;
	default:
		return ENC_IOERR;
	}
}

static inline uint16_t
enc_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
enc_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static inline uint64_t
enc_le64(const uint8_t *p)
{
	return (uint64_t)enc_le32(p) | (uint64_t)enc_le32(p + 4) << 32;
}

#endif
