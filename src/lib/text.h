/* Small text checks shared by every parser of untrusted bytes: one strict
 * UTF-8 validator and one hex-digit reader, so that the rules are the same
 * everywhere (keys, manifest text, typed values, TOML). */
#ifndef LOCKFILE_TEXT_H
#define LOCKFILE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Refuse controls too: C0 (below 0x20), DEL and C1 (U+0080..U+009F). */
#define UTF8_NO_CONTROLS 1

/* Strict UTF-8 (RFC 3629): no overlongs, no surrogates, nothing above
 * U+10FFFF, no truncated sequence. 1 when valid. */
int utf8_valid(const uint8_t *s, size_t n, int flags);

/* Value of a hex digit of either case, or -1. */
int hex_digit(int c);

#endif
