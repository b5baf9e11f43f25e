/* File-descriptor helpers: full reads and writes that survive EINTR, safe
 * opens that refuse symlinks and check owner and mode after opening,
 * descriptor flags, closing every descriptor above a floor, and keeping
 * the standard descriptors open. The clock is lib/clock.h, number parsing
 * lib/num.h, mkdir -p lib/mkdir.h. */
#ifndef LOCKFILE_FD_H
#define LOCKFILE_FD_H

#include <stddef.h>
#include <sys/types.h>

/* Returns bytes read (short only at EOF), or -1 with errno. */
ssize_t read_full(int fd, void *buf, size_t len);
/* Returns 0 when all was written, -1 with errno. */
int write_full(int fd, const void *buf, size_t len);

/* Close every fd >= lowfd. Aborts if the kernel refuses. */
void close_fds_from(int lowfd);
/* Close every fd >= lowfd except those listed. */
void close_fds_except(int lowfd, const int *keep, size_t nkeep);

int set_cloexec(int fd, int on);
int set_nonblock(int fd, int on);

/* A fresh open file description of what fd refers to (through
 * /proc/self/fd: its own offset and status flags; from an O_PATH
 * descriptor, the first real open). Returns the new fd or -1 with errno. */
int fd_reopen(int fd, int flags);

/* Open flags for opening a regular file that must not be a symlink. */
#define OPEN_RO_SAFE (O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)

/* Checks on an opened file: regular, owned by uid (or any when uid is
 * (uid_t)-1), no write bit for group or others when strict. 0 or -1. */
int check_fd_owner_mode(int fd, uid_t uid, int strict);

/* Ensure fds 0, 1 and 2 are open (to /dev/null when missing), so a later
 * open cannot land on a standard descriptor. */
void sanitise_stdfds(void);

#endif
