/* A strict ZIP central directory reader over a random-access source,
 * shared by is-encrypted and has-active-content (docs/plugins.md). The
 * directory is found as Python's zipfile finds it (zipread.c); entries
 * are reported in order; one entry's data is streamed, stored or
 * inflated through zlib, within a byte budget. Fixed memory. */
#ifndef PLUGINS_ZIPREAD_H
#define PLUGINS_ZIPREAD_H

#include <stddef.h>
#include <stdint.h>

#include "enc_check.h"		/* enum enc_answer, struct pdf_src */

#define ZIP_NAME_KEEP 255	/* longer names are reported cut, name_long */

struct zip_entry {
	char name[ZIP_NAME_KEEP + 1];	/* NUL-terminated (a NUL inside
					 * the name: name_len tells) */
	size_t name_len;
	int name_long;
	uint16_t flags, method;
	uint64_t csize;		/* compressed size */
	uint64_t lfh;		/* the local header's offset in the file */
};

/* Every central directory header, in order, to the directory's size.
 * fn returns ENC_NO to go on; anything else stops the walk and is
 * returned. A malformed directory: ENC_UNJUDGED. */
typedef enum enc_answer (*zip_entry_fn)(void *arg, const struct zip_entry *e);
enum enc_answer zip_entries(const struct pdf_src *src, zip_entry_fn fn,
    void *arg);

/* The entry's data, stored (method 0) or deflated (8), in pieces to fn
 * (a non-zero return stops early). Its local header must carry the same
 * name. More than max_out bytes of output, another method, or a deflate
 * stream cut short or corrupt: ENC_UNJUDGED. */
typedef int (*zip_data_fn)(void *arg, const uint8_t *p, size_t n);
enum enc_answer zip_entry_data(const struct pdf_src *src,
    const struct zip_entry *e, uint64_t max_out, zip_data_fn fn, void *arg);

#endif
