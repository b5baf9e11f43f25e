/* Escaping of untrusted text before it reaches a terminal, a log or the
 * audit. The rule is deliberately blunt: printable ASCII passes except the
 * backslash, which doubles; every other byte (controls, DEL, escape
 * sequences, all of UTF-8 including bidirectional overrides and zero-width
 * characters) becomes \xHH. Nothing an agent writes can move a cursor,
 * change colours, reorder text or hide characters. */
#ifndef LOCKFILE_ESCAPE_H
#define LOCKFILE_ESCAPE_H

#include <stddef.h>

/* Writes at most outlen-1 bytes plus NUL. Truncation is marked by a
 * trailing "..." so a reader knows text was cut. Returns the length of the
 * escaped form that would have been written without truncation. */
size_t escape_text(const char *in, size_t inlen, char *out, size_t outlen);

/* True when every byte is printable ASCII (0x20..0x7e). */
int text_is_plain(const char *in, size_t inlen);

#endif
