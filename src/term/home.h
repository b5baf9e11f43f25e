/* The console account's home: --home DIR, or the account's home from the
 * password database (never $HOME, which a caller controls). */
#ifndef LOCKFILE_HOME_H
#define LOCKFILE_HOME_H

#include <stddef.h>

/* 0, or -1 after logging why. The directory must exist, belong to the
 * calling account and not be open to group or others. */
int home_resolve(const char *arg, char *out, size_t outlen);

#endif
