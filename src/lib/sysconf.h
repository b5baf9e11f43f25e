/* The root-owned system configuration directory (/etc/lockfile): the
 * Sigstore trusted root, the release repository, the marketplaces,
 * system.toml (terminal rules) and container.toml (the container
 * declaration). Boundary: "The agent cannot replace the binary the console
 * runs" and what it trusts: every file read from here must be owned by
 * root and not writable by group or others, and so must the directory and
 * each of its ancestors. The path may be overridden with the environment
 * variable LOCKFILE_SYSCONFDIR (tests, host installs), but only to a
 * directory that passes the same check: only root can create one. */
#ifndef LOCKFILE_SYSCONF_H
#define LOCKFILE_SYSCONF_H

#include <stddef.h>

/* The directory to use, or NULL (with a static reason) when the chosen
 * directory is not root-owned all the way up. */
const char *sysconf_dir(const char **why);

/* Open DIR/name for reading after the same checks on the file. Returns an
 * fd or -1 (errno ENOENT when missing; why says the rest). */
int sysconf_open(const char *name, const char **why);

/* Read DIR/name whole (at most max bytes) into a malloc'ed, NUL-terminated
 * buffer; NULL on any failure. */
char *sysconf_read(const char *name, size_t max, size_t *len,
    const char **why);

#endif
