/* Key cleaning. Seed, "What the human approves": the key is percent-decoded
 * once and cleaned (a/./b, a//b, a/x/../b -> a/b); a key that escapes its
 * root is refused. The approval screen shows the cleaned key, and the typed
 * text on a second line whenever the two differ. */
#ifndef LOCKFILE_KEY_H
#define LOCKFILE_KEY_H

#include <stddef.h>

#include "protocol/table.h"

enum key_status {
	KEY_OK = 0,
	KEY_BAD_ESCAPE,		/* a % not followed by two hex digits */
	KEY_FORBIDDEN_BYTE,	/* NUL, control, DEL, backslash after decoding */
	KEY_BAD_UTF8,		/* decoded bytes are not UTF-8 */
	KEY_ABSOLUTE,		/* starts with / */
	KEY_ESCAPES_ROOT,	/* .. above the root */
	KEY_EMPTY,		/* nothing left */
	KEY_TOO_LONG,
	KEY_OUTSIDE_PREFIX,
};

/* Decode once and clean raw (rawlen bytes) into out (NUL-terminated). */
enum key_status key_clean(const char *raw, size_t rawlen, char *out,
    size_t outlen);

/* Clean, then require the profile prefix ("" or ending in "/"). */
enum key_status key_clean_in_prefix(const char *raw, size_t rawlen,
    const char *prefix, char *out, size_t outlen);

/* Static name of a status, for the audit. */
const char *key_status_name(enum key_status s);

#endif
