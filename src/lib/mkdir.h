/* mkdir -p by path. Apart from fd.h because it works on a path string,
 * not on a descriptor, and follows links in it as mkdir(2) does: its
 * callers make their own account's directories (the home's state, the
 * store, the work_dir, a test's tree). */
#ifndef LOCKFILE_MKDIR_H
#define LOCKFILE_MKDIR_H

#include <sys/types.h>

/* mkdir -p with a mode for every created component; existing components
 * are left alone. 0 or -1 with errno. */
int mkdir_p(const char *path, mode_t mode);

#endif
