/* Scrubbing text bound for the console window or the audit. Seed, "Side
 * channels": error text is scrubbed of URLs, paths, hosts, key ids and the
 * profile's own location (bucket, endpoint, host, user, directories). The
 * result is also escaped (printable ASCII only). */
#ifndef LOCKFILE_SCRUB_H
#define LOCKFILE_SCRUB_H

#include <stddef.h>

/* words: extra literal strings to remove (profile locations, secrets). */
void scrub_text(const char *in, const char *const *words, size_t nwords,
    char *out, size_t outlen);

#endif
