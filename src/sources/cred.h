/* Credentials for a source, read once when the console opens the profile
 * (at start, before the console confines itself: console/confine.h) and
 * held in locked memory (libsodium: mlock, guard pages, no core dump)
 * until the profile is closed at the end of the session, which wipes them
 * (docs/sources.md, credentials; docs/security.md's credentials row). Two origins, named in the profile's `credentials` table:
 *   file    = "~/..."   a file in the console's home: regular, owned by the
 *                       console account, no group or other bits (0600/0400),
 *                       opened beneath the home without following links;
 *   command = [argv]    a pinned command (e.g. the Vault CLI): its binary is
 *   sha256  = "hex"     opened once, owner and mode checked, hashed on that
 *                       fd, compared with the pin and executed from the same
 *                       fd, without a shell, with an empty environment plus
 *                       the variables the profile names (env, pass_env),
 *                       stdin /dev/null, stderr discarded, stdout capped
 *                       (max_bytes), a wall-clock limit (timeout_s).
 * Boundary: the secret never reaches a log, a reason or the audit; every
 * reason here is static, and cred_scrub removes the secret from library
 * messages before they go into an audit detail. */
#ifndef LOCKFILE_SOURCES_CRED_H
#define LOCKFILE_SOURCES_CRED_H

#include <stddef.h>
#include <jansson.h>

#define CRED_MAX_ARGS 32
#define CRED_MAX_ENV 16
#define CRED_MAX_BYTES (64 * 1024)

struct cred;

/* Check a credentials table. 0, or -1 with a static message. */
int cred_validate(const json_t *t, const char **why);
/* Read the secret now (home is the console account's home). 0, or -1
 * with a static reason. */
int cred_open(const json_t *t, const char *home, struct cred **out,
    const char **why);
/* Wipe and free (NULL is fine). */
void cred_close(struct cred *c);

/* The secret (NUL-terminated; one final newline removed). */
const char *cred_text(const struct cred *c);
size_t cred_len(const struct cred *c);
/* Split a two-line secret in place, once (first line, second line; no
 * third, neither empty). 0 or -1. */
int cred_split2(struct cred *c, const char **first, const char **second);

/* Replace in text (NUL-terminated, in place) every occurrence of the
 * secret and of each of its lines of at least 6 bytes by "<secret>". */
void cred_scrub(const struct cred *c, char *text, size_t textcap);
/* The same for one word (an access key id) of at least 4 bytes. */
void text_scrub_word(const char *word, char *text, size_t textcap);

#endif
