/* A marketplace as the store sees it (docs/marketplace.md): its signed
 * index fetched and checked against what plugins.lock recorded, and a
 * plugin version fetched and checked against the index, file by file.
 *
 * Boundary: "Plugins and releases are what their publisher built" and "A
 * withdrawn version does not run". Each artifact is bound to its own tag:
 * the index of version N to index/vN, a plugin's manifest and binary to
 * NAME/vVERSION, all signed by the marketplace repository's release.yml on
 * that tag; a signature for one artifact's tag cannot stand for another's,
 * and the hashes the index names pin each file (no mix-and-match). */
#ifndef LOCKFILE_MARKETPLACE_H
#define LOCKFILE_MARKETPLACE_H

#include <stddef.h>
#include <time.h>

#include "lib/paths.h"
#include "store/index.h"
#include "store/lockdb.h"
#include "store/manifest.h"
#include "store/trust.h"

/* The layout of a marketplace directory (and of an installed version) is
 * lib/paths.h's: LF_MARKET_INDEX, LF_PLUGIN_MANIFEST, LF_PLUGIN_BINARY,
 * each with its LF_BUNDLE_SUFFIX. */
#define MK_BUNDLE_MAX (256 * 1024)
#define MK_BINARY_MAX (64 * 1024 * 1024)

/* Fetch the index of m and accept it only when: it parses strictly; it
 * names m's repository; its bundle verifies for tag index/vN, N its own
 * version; it has not expired at now (freeze); its version is not below
 * m's index_floor nor the one plugins.lock recorded for m (rollback), and
 * at the same version its bytes are the same. 0 with *ix filled (index_free it), or -1 with why. */
int market_fetch_index(const struct trust *t, const struct market_conf *m,
    const struct lockdb *db, time_t now, struct mindex *ix, char *why,
    size_t whylen);

/* For a human to confirm what to pin: fetch m's index, check it names m's
 * repository and verify its bundle for tag index/vN by the repository's
 * name only (not its ids, not expiry or rollback); the index version and
 * the ids the verified certificate carries ("" when none). 0, or -1. */
int market_identity(const struct trust *t, const struct market_conf *m,
    unsigned long long *version, char *repo_id, char *owner_id, char *why,
    size_t whylen);

/* Check the plugin directory dirfd (manifest.json, plugin and both
 * bundles) as NAME@VERSION of marketplace m: both signatures for tag
 * NAME/vVERSION by mk's repository (name and ids), the manifest's and the binary's SHA-256 equal to the
 * expected ones, the manifest parses strictly and names NAME, VERSION and
 * the binary's hash, and the binary is a static ELF for this machine.
 * Used on a fresh download and, by `verify`, on an installed copy. */
int market_check_plugin(const struct trust *t, const struct market_conf *mk,
    const char *name, const char *version,
    const uint8_t manifest_sha256[SHA256_LEN],
    const uint8_t binary_sha256[SHA256_LEN], int dirfd, struct manifest *m,
    char *why, size_t whylen);

/* Read and parse the manifest of the plugin directory dirfd, checking its
 * SHA-256 against the one recorded (the installed side of a loosening
 * check: no signature check, the record already stands for one). */
int market_read_manifest(int dirfd, const uint8_t manifest_sha256[SHA256_LEN],
    struct manifest *m, char *why, size_t whylen);

/* Fetch the four files of index entry e from m into the empty directory
 * dirfd (files 0400, the binary 0500, each fsync'ed), then
 * market_check_plugin() them against e. */
int market_fetch_plugin(const struct trust *t, const struct market_conf *m,
    const struct index_entry *e, int dirfd, struct manifest *man, char *why,
    size_t whylen);

#endif
