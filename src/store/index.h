/* The signed index of a marketplace (docs/marketplace.md): which plugin
 * versions exist, the SHA-256 of each one's manifest and binary, and
 * whether it is withdrawn (yanked); a monotonic version (rollback) and an
 * expiry time (freeze). The index is untrusted bytes until its signature
 * verifies, and its signature is checked under a tag derived from the
 * version it states, so it is parsed first: here, strictly, with limits. */
#ifndef LOCKFILE_INDEX_H
#define LOCKFILE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "lib/crypto.h"

#define INDEX_MAX_BYTES (1024 * 1024)
#define INDEX_MAX_ENTRIES 4096		/* plugin versions in all */
#define INDEX_MAX_PLUGINS 256
#define INDEX_MAX_VERSIONS 128		/* versions of one plugin */
#define INDEX_MAX_VERSION 9007199254740991ULL	/* 2^53 - 1 */
#define REPO_MAX 200			/* OWNER/REPO */

/* Tags the release workflow signs on (the binding of each artifact). */
#define TAG_MAX 64
/* "index/vN" for the index of version N. */
int index_tag(unsigned long long version, char *out, size_t outlen);
/* "NAME/vVERSION" for a plugin's manifest and binary. */
int plugin_tag(const char *name, const char *version, char *out,
    size_t outlen);

struct index_entry {
	char name[33];
	char version[21];
	uint8_t manifest_sha256[SHA256_LEN];
	uint8_t binary_sha256[SHA256_LEN];
	int yanked;
};

struct mindex {
	unsigned long long version;
	long long expires;		/* Unix seconds */
	char repo[REPO_MAX + 1];
	uint8_t sha256[SHA256_LEN];	/* of the index bytes */
	size_t n;
	struct index_entry *e;		/* malloc'ed, n entries */
};

/* Parse index bytes. 0, or -1 with a static reason (never index bytes). */
int index_parse(const char *data, size_t len, struct mindex *ix,
    const char **why);
void index_free(struct mindex *ix);

const struct index_entry *index_find(const struct mindex *ix,
    const char *name, const char *version);
/* The highest version of name that is not yanked, or NULL. */
const struct index_entry *index_latest(const struct mindex *ix,
    const char *name);
/* 1 when the index has any version of name. */
int index_has(const struct mindex *ix, const char *name);

/* Compare two valid versions (version_is_valid) numerically: <0, 0, >0. */
int version_cmp(const char *a, const char *b);

/* OWNER/REPO: two GitHub names ([A-Za-z0-9._-], not starting with '.' or
 * '-', no ".."), one slash. 1 or 0. */
int repo_is_valid(const char *s);

#endif
