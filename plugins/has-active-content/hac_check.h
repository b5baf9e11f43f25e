/* has-active-content: does the file carry active content (docs/plugins.md,
 * "has-active-content")? Over any random-access source; fixed memory.
 * The answer type and readers are is-encrypted's (enc_check.h, zipread.h,
 * cfbread.h), shared. */
#ifndef HAS_ACTIVE_CONTENT_H
#define HAS_ACTIVE_CONTENT_H

#include "enc_check.h"

#define HAC_OBJSTM_MAX (64u << 20)	/* inflated bytes of one object stream */
#define HAC_INFLATE_MAX (256u << 20)	/* of all object streams together */
#define HAC_PART_MAX (64u << 20)	/* inflated bytes of one OOXML part */

enum enc_answer hac_check(const struct pdf_src *src);
enum enc_answer hac_pdf(const struct pdf_src *src);
enum enc_answer hac_zip(const struct pdf_src *src);
enum enc_answer hac_cfb(const struct pdf_src *src);

#endif
