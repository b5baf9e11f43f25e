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

#include "store/lockdb.h"
#include "store/manifest.h"

struct store {
	char root[PATH_MAX];	/* .../plugins */
	char lockpath[PATH_MAX];/* .../plugins.lock */
	struct lockdb db;
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
