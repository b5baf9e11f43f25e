/* plugins.lock: what `plugin install/update/verify` recorded from a signed
 * index, and the only thing the console trusts about installed plugins:
 * per plugin its version, the hashes of its manifest and binary, its
 * marketplace, official flag and yanked flag; per marketplace the index
 * version and hash last accepted (rollback protection). Written atomically
 * (temp file, fsync, rename, fsync of the directory). */
#ifndef LOCKFILE_LOCKDB_H
#define LOCKFILE_LOCKDB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/crypto.h"

#define LOCKDB_MAX_PLUGINS 256
#define LOCKDB_MAX_MARKETS 16
#define LOCKDB_MAX_BYTES (1024 * 1024)

struct lock_entry {
	char name[33];
	char version[21];
	uint8_t manifest_sha256[SHA256_LEN];
	uint8_t binary_sha256[SHA256_LEN];
	char marketplace[65];
	int official;
	int yanked;
};

struct lock_index {
	char marketplace[65];
	unsigned long long version;
	uint8_t sha256[SHA256_LEN];
};

struct lockdb {
	size_t n;
	struct lock_entry e[LOCKDB_MAX_PLUGINS];
	size_t nidx;
	struct lock_index idx[LOCKDB_MAX_MARKETS];
};

/* A missing file is an empty database. 0, or -1 with a static reason. */
int lockdb_load(const char *path, struct lockdb *db, const char **why);
/* The bytes of a plugins.lock (what lockdb_load reads, fuzzed alone).
 * 0, or -1 with a static reason and db emptied. */
int lockdb_parse(const char *data, size_t len, struct lockdb *db,
    const char **why);
int lockdb_save(const char *path, const struct lockdb *db, const char **why);

struct lock_entry *lockdb_find(struct lockdb *db, const char *name);
const struct lock_entry *lockdb_find_const(const struct lockdb *db,
    const char *name);

#endif
