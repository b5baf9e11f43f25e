/* Who may read a local source (docs/sources.md, "Who may read a local
 * source"). Boundary: the agent cannot read the file itself. A local
 * profile's directory, every directory below it on the way to a key, and
 * the file must belong to the console account (or root), give group and
 * others no permission at all, and carry no ACL (docs/security.md: local
 * sources 0700, the console account's). One rule, used by the source at open and before each fetch,
 * by `lockfile policy approve` and by `lockfile doctor`. Refusals name the
 * path and the mode for the human (terminal, doctor, audit); the agent
 * only ever sees E_UNKNOWN_PROFILE or E_FETCH_FAILED. */
#ifndef LOCKFILE_SOURCES_LOCAL_H
#define LOCKFILE_SOURCES_LOCAL_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Entries a whole-tree check visits at most; past it, each fetch still
 * checks its own path. */
#define LOCAL_CHECK_MAX_ENTRIES 100000
#define LOCAL_CHECK_MAX_DEPTH 128

enum local_perm {
	LOCAL_PERM_OK = 0,
	LOCAL_PERM_OWNER,	/* another account owns it */
	LOCAL_PERM_MODE,	/* a group or other permission bit */
	LOCAL_PERM_ACL,		/* an access (or, on a directory, default) ACL */
	LOCAL_PERM_UNKNOWN,	/* its ACL cannot be read: fail closed */
};

/* The rule for one opened object (fd, with its fstat in st). why gets our
 * text naming the mode, the owner or the ACL and what to run (the caller
 * puts the object's name in front). */
enum local_perm local_perm_fd(int fd, const struct stat *st, uid_t console,
    char *why, size_t whylen);

/* The profile directory at path and everything below it that a fetch can
 * reach (no symlink is followed, no other filesystem is entered): 0 when
 * all of it passes; -1 with why naming the first path refused and why,
 * escaped for a terminal. *checked gets how many entries were checked
 * (stops at LOCAL_CHECK_MAX_ENTRIES). */
int local_check_tree(const char *path, uid_t console, char *why,
    size_t whylen, size_t *checked);

#endif
