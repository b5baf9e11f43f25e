/* Inside the renderer: what render.c shares with render_key.c (not for
 * other callers; they use lib/render.h). */
#ifndef LOCKFILE_RENDER_INT_H
#define LOCKFILE_RENDER_INT_H

#include "lib/render.h"

#include <stddef.h>
#include <stdint.h>

#include <unicode/umachine.h>

/* The character at s[0..n) (n > 0): its byte length, or 0 when the bytes
 * there are not well-formed UTF-8 (one byte is then shown escaped). */
size_t render_next_cp(const uint8_t *s, size_t n, UChar32 *c);

/* Display columns of one character: -1 for a C0 or C1 control, 0 for a
 * mark, a format character or a conjoining jamo, 2 for East Asian wide
 * and full-width, 1 otherwise. */
int render_cp_width(UChar32 c);

/* Code points never shown as themselves, whatever follows or precedes
 * (the rules of render_text()). */
int render_never_raw(UChar32 c);

/* render_text(), with force[i] != 0 (force: inlen bytes, or NULL) for
 * each character starting at input byte i that must be shown escaped
 * whatever it is (the culprits of a warning line). */
size_t render_force(const char *in, size_t inlen, unsigned flags,
    const unsigned char *force, size_t max_cols, char *out, size_t outlen,
    struct render_info *info);

#endif
