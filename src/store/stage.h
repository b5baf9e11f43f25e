/* The store's write side: one plugin command at a time (an flock on the
 * store directory), downloads staged in a fresh 0700 directory inside the
 * store (same filesystem, so a verified version moves into place with one
 * rename), and removal of installed versions. Nothing here follows a
 * symlink: every path below the store is walked with *at() calls from the
 * store directory's descriptor. The console trusts only plugins.lock, so an
 * unrecorded directory left by a crash is junk, never a plugin; the next
 * command sweeps stale staging directories. */
#ifndef LOCKFILE_STAGE_H
#define LOCKFILE_STAGE_H

#include <stddef.h>

#define STAGE_PREFIX ".staging-"

struct stage {
	int storefd;		/* <home>/.local/share/lockfile, flock'ed */
	int fd;			/* the staging directory, -1 until made */
	char name[64];		/* its name in the store */
};

/* Open (creating it 0700 when missing) and lock the store directory,
 * sweep stale staging directories. 0, or -1 with why. */
int stage_lock(struct stage *s, const char *storedir, char *why,
    size_t whylen);
/* Make the staging directory (once). 0 or -1. */
int stage_begin(struct stage *s, char *why, size_t whylen);
/* A fresh empty directory NAME@VERSION in the staging directory; returns
 * its fd or -1. */
int stage_plugin_dir(struct stage *s, const char *name, const char *version,
    char *why, size_t whylen);
/* Move the staged NAME@VERSION to plugins/NAME/VERSION (an unrecorded
 * directory already there is removed first). 0 or -1. */
int stage_commit(struct stage *s, const char *name, const char *version,
    char *why, size_t whylen);
/* Remove plugins/NAME/VERSION (and plugins/NAME when it is left empty). */
int stage_remove_version(struct stage *s, const char *name,
    const char *version);
/* Open plugins/NAME/VERSION of the store as a directory fd, or -1. */
int stage_open_installed(const struct stage *s, const char *name,
    const char *version);
/* Remove the staging directory and unlock. */
void stage_end(struct stage *s);

#endif
