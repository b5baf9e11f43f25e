/* A strict compound file ([MS-CFB]) directory walker over a random-access
 * source, shared by is-encrypted and has-active-content (cfbread.c).
 * Fixed memory. */
#ifndef PLUGINS_CFBREAD_H
#define PLUGINS_CFBREAD_H

#include <stdint.h>

#include "enc_check.h"		/* enum enc_answer, struct pdf_src */

#define CFB_DIRENT 128		/* a directory entry's bytes */

/* Every entry of the tree under the root storage, each once: d is its
 * 128-byte directory entry (name UTF-16LE at 0, name length at 0x40, type
 * at 0x42: 1 storage, 2 stream), parent the index of the storage holding
 * it (0: the root). fn returns ENC_NO to go on; anything else stops the
 * walk and is returned. */
typedef enum enc_answer (*cfb_entry_fn)(void *arg, const uint8_t *d,
    uint32_t parent);
enum enc_answer cfb_walk(const struct pdf_src *src, cfb_entry_fn fn,
    void *arg);

/* The entry's name equals lower (ASCII lower case, at most 31
 * characters), compared case-insensitively. 1 or 0. */
int cfb_name_is(const uint8_t *d, const char *lower);

#endif
