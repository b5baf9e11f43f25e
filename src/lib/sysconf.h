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

/* The directory to use, or NULL (with a static reason; errno ENOENT when
 * it is missing) when the chosen directory is not root-owned all the way
 * up. */
const char *sysconf_dir(const char **why);

/* 0 when the directory path and each of its ancestors is a root-owned
 * directory closed to writes by group and others (a sticky ancestor is
 * allowed); -1 with errno ENOENT (missing) or EPERM. Also used by doctor
 * for the binary's directory. */
int sysconf_root_owned_chain(const char *path);

/* The binary this process runs (/proc/self/exe): root's, not writable by
 * group or others, in root-owned directories closed to writes all the way
 * up. Boundary: "The agent cannot replace the binary the console runs";
 * the console refuses to start, and doctor fails, on the same rule. 0
 * with why describing it, or -1 with why saying what is wrong, escaped,
 * for the human. */
int sysconf_check_binary(char *why, size_t whylen);

/* Open DIR/name for reading after the same checks on the file. Returns an
 * fd or -1 (errno ENOENT when the file or the directory is missing, EPERM
 * when either is unsafe; why says the rest). */
int sysconf_open(const char *name, const char **why);

/* Read DIR/name whole (at most max bytes) into a malloc'ed, NUL-terminated
 * buffer; NULL on any failure. */
char *sysconf_read(const char *name, size_t max, size_t *len,
    const char **why);

#endif
