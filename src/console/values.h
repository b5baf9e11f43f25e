/* Values the human typed for placeholders. Held in locked, guarded memory
 * (libsodium) for the console session only, reused by (peer uid, name):
 * a value typed for one agent is never held for another; wiped at the
 * end. They reach only a plugin's fd 6: never a response, the audit (names
 * only), the window or the disk. Each value counts the distinct files it
 * was replayed on, for the approval card. */
#ifndef LOCKFILE_VALUES_H
#define LOCKFILE_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include <lockfile/plugin.h>

#include "lib/crypto.h"

#define VALUES_MAX 64
#define VALUES_MAX_FILES 4096
/* A value is at most an input's max_bytes, at most the ABI's ceiling. */
#define VALUE_MAX_BYTES LF_PLUGIN_VALUE_MAX

struct held_value {
	uid_t uid;		/* the peer it was typed for */
	char name[33];
	uint8_t *bytes;		/* sodium_malloc'd, VALUE_MAX_BYTES */
	size_t len;
	size_t nfiles;
	uint8_t (*files)[SHA256_LEN];	/* sha256 of files it ran on */
};

struct values {
	size_t n;
	struct held_value v[VALUES_MAX];
};

void values_init(struct values *vs);
/* Wipe and free everything (session end). */
void values_wipe(struct values *vs);
/* The value held for placeholder name of peer uid, or NULL. */
struct held_value *values_find(struct values *vs, uid_t uid,
    const char *name);
/* A fresh locked buffer for a value being typed for peer uid; NULL when
 * full. The caller fills bytes/len, or values_discard()s it. */
struct held_value *values_new(struct values *vs, uid_t uid,
    const char *name);
void values_discard(struct values *vs, struct held_value *hv);
/* Record that hv was used on the file with this hash. */
void values_note_file(struct held_value *hv, const uint8_t sha[SHA256_LEN]);

#endif
