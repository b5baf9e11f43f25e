/* pdf-signatures-intact: is every signature of the PDF valid over its byte
 * range, and does the last one cover the whole file (docs/plugins.md,
 * "pdf-signatures-intact")? Over any random-access source (the plugin
 * gives it fd 3; the fuzzer gives it memory). The answer type and the
 * PDF readers are is-encrypted's and is-pdf's (enc_check.h, pdf_lex.h),
 * shared (only the header of the first). */
#ifndef PDF_SIGNATURES_INTACT_CHECK_H
#define PDF_SIGNATURES_INTACT_CHECK_H

#include "enc_check.h"

#define SIG_MAX 64			/* signature dictionaries in one file */
#define SIG_CONTENTS_MAX (1u << 20)	/* hex digits of one /Contents */
#define SIG_DICT_MAX (SIG_CONTENTS_MAX + (64u << 10))	/* its dictionary */

enum sig_kind {
	SIG_DETACHED,		/* adbe.pkcs7.detached, ETSI.CAdES.detached */
	SIG_TIMESTAMP,		/* ETSI.RFC3161: a document timestamp */
	SIG_UNKNOWN,		/* another /SubFilter, or none: never valid */
};

/* One signature dictionary: where it starts, and what the shape check
 * (sig_shape) found in it. */
struct sig {
	uint64_t at;		/* its "<<" */
	int shape_ok;		/* /ByteRange and /Contents as required */
	enum sig_kind kind;
	uint64_t range[4];	/* /ByteRange: 0, a, b, c */
};

enum enc_answer sig_check(const struct pdf_src *src);

/* The dictionaries that name /ByteRange, or /Type /Sig or /DocTimeStamp,
 * anywhere outside strings and streams' data, in file order (sig_scan.c). */
enum enc_answer sig_scan(const struct pdf_src *src, struct sig *sigs,
    size_t *n);
/* Parse one and check its /ByteRange against its own /Contents. */
enum enc_answer sig_shape(const struct pdf_src *src, struct sig *s);
/* The CMS signature or timestamp over its byte range (sig_verify.c):
 * ENC_YES valid, ENC_NO not, ENC_IOERR. */
enum enc_answer sig_verify(const struct pdf_src *src, const struct sig *s);

#endif
