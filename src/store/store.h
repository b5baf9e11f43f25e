/* The plugin store, read side. Plugins live under
 * <home>/.local/share/lockfile/plugins/NAME/VERSION/{manifest.json,plugin}
 * and are trusted only as recorded in plugins.lock. Opening a plugin checks
 * both hashes on the opened files, refuses a yanked version, and hands out
 * the binary fd that exec will use (the bytes checked are the bytes run).
 * Boundary: "A plugin answers only its signed question" and "A withdrawn
 * version does not run". */
#ifndef LOCKFILE_STORE_H
#define LOCKFILE_STORE_H

#include <limits.h>
#include <sys/types.h>
#include <time.h>

#include "store/lockdb.h"
#include "store/manifest.h"

/* A binary's sha256 as the console computed it, keyed on the identity of
 * the file it read (docs/marketplace.md, "The digest cache"). */
struct store_digest {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	uint8_t sha256[SHA256_LEN];
};

#define STORE_DIGESTS 32

struct store {
	char root[PATH_MAX];	/* .../plugins */
	char lockpath[PATH_MAX];/* .../plugins.lock */
	struct lockdb db;
	struct store_digest digests[STORE_DIGESTS];
	size_t ndigests, next_digest;	/* filled, then replaced in turn */
};

enum store_status {
	STORE_OK = 0,
	STORE_NOT_INSTALLED,
	STORE_YANKED,
	STORE_TAMPERED,
};

struct opened_plugin {
	struct manifest m;
	struct lock_entry entry;	/* copy of the lock record */
	int binfd;			/* O_RDONLY, close-on-exec */
};

/* Paths under home; loads plugins.lock. 0, or -1 with a static reason. */
int store_open(struct store *s, const char *home, const char **why);
/* Reload plugins.lock (after an install by another process). */
int store_reload(struct store *s, const char **why);

/* Open the installed plugin NAME (at VERSION when non-NULL/non-empty).
 * On STORE_OK, out->binfd must be closed by the caller. why names the
 * precise cause for the audit. */
enum store_status store_open_plugin(const struct store *s, const char *name,
    const char *version, struct opened_plugin *out, const char **why);
/* store_open_plugin for the answers an agent can time without a quantum
 * (file.plugins, a plan's check before the card): the binary's sha256 is
 * taken from the digest cache when the opened file is the one hashed
 * before (same device, inode, size, mtime and ctime), and computed and
 * recorded otherwise. Its time then does not depend on how much of the
 * binary is in the page cache, which a plugin could leave changed. The
 * run opens again with a full hash, inside the quantum. */
enum store_status store_check_plugin(struct store *s, const char *name,
    const char *version, struct opened_plugin *out, const char **why);
/* Open exactly the version pin names (a copy of the record a plan was
 * approved with): STORE_TAMPERED when plugins.lock no longer records that
 * very name, version, both hashes, marketplace and official flag, or the
 * version's files are gone or differ; STORE_YANKED when it was yanked
 * since. Boundary: "a plan runs only the version and hashes it was
 * approved with" (docs/security.md). */
enum store_status store_open_pinned(const struct store *s,
    const struct lock_entry *pin, struct opened_plugin *out,
    const char **why);

#endif
