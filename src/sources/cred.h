/* Credentials for a source, read when a fetch needs them and wiped after.
 * Two origins, named in the profile's `credentials` table:
 *   file    = "~/..."   a file in the console's home: regular, owned by the
 *                       console account, no group or other bits (0600/0400);
 *   command = [argv]    a pinned command (e.g. the Vault CLI): its binary is
 *   sha256  = "hex"     opened once, hashed on that fd, checked against the
 *                       pin and executed from the same fd, without a shell,
 *                       with an empty environment plus the variables the
 *                       profile names (env, pass_env), stdin /dev/null,
 *                       stderr discarded, stdout capped, a wall-clock limit.
 * Boundary: the secret lives in locked memory (libsodium) from the read to
 * secret_free, which wipes it; it never reaches a log, a detail or the
 * audit (secret_scrub removes it from library messages). */
#ifndef LOCKFILE_SOURCES_CRED_H
#define LOCKFILE_SOURCES_CRED_H

#include <stddef.h>
#include <jansson.h>

#include "sources/source.h"

#define CRED_MAX_ARGS 32
#define CRED_MAX_ENV 16
#define CRED_MAX_BYTES (64 * 1024)

struct cred;
struct secret;

/* Check a credentials table. 0, or -1 with a static message. */
int cred_validate(const json_t *t, const char **why);
/* Keep what a load needs (home is the console account's home). */
int cred_open(const json_t *t, const char *home, struct cred **out,
    const char **why);
void cred_close(struct cred *c);

/* Read the secret: FC_OK, or FC_CREDENTIAL_SOURCE with a static detail. */
enum fetch_cause cred_load(const struct cred *c, struct secret **out,
    char *detail, size_t detaillen);

/* The secret's bytes (NUL-terminated; a final newline removed). */
const char *secret_text(const struct secret *s);
size_t secret_len(const struct secret *s);
/* Split a two-line secret in place (first line, second line; no third,
 * neither empty). 0 or -1. */
int secret_split2(struct secret *s, const char **first, const char **second);
/* Wipe and free (NULL is fine). */
void secret_free(struct secret *s);

/* Replace in text (NUL-terminated, in place) every occurrence of the
 * secret and of each of its lines of at least 6 bytes by "<secret>". */
void secret_scrub(const struct secret *s, char *text, size_t textcap);
/* The same for one word (an access key id). */
void text_scrub_word(const char *word, char *text, size_t textcap);

#endif
