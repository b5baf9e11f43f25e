/* Hostile plugins: each one makes a single escape attempt (attempts/NAME.c,
 * linked with hostile.c into h-NAME), or exercises one clause of the plugin
 * contract (contract/NAME.c, c-NAME). run-hostile.py runs every attempt bare
 * (bare-run: same descriptors, no confinement) and in the sandbox.
 *
 * Convention: an attempt prints 1 when it SUCCEEDED and 0 when it was
 * blocked. A blocked attempt writes exactly errno bytes to stderr (1 for
 * EPERM, 13 for EACCES): the stderr byte count is the one number
 * `sandbox-run --report` lets out, and it tells the harness which layer
 * refused (seccomp answers EPERM, Landlock EACCES). */
#ifndef LOCKFILE_HOSTILE_H
#define LOCKFILE_HOSTILE_H

#include <stddef.h>
#include <sys/types.h>

/* Defined by each attempt: 1 when the escape worked, 0 when it was refused,
 * with errno saying why. */
int attempt(void);

/* The harness's parameters arrive as "key=value" lines in the input (fd 3),
 * the one thing that reaches a plugin identically bare and sandboxed.
 * cfg() exits 2 when the key is missing: a harness bug, never a pass. */
void conf_load(void);
const char *cfg(const char *key);
unsigned long long cfg_u64(const char *key);

/* Run fn in a forked child; 1 when it returned 1 there, else 0 with errno
 * set to the child's errno. */
int in_child(int (*fn)(void));

/* A child that only waits, for attempts that need a process to aim at. It
 * blocks reading a pipe until waiter_end() closes the other end: inside the
 * sandbox the plugin may not signal even its own children (and pause(2) is
 * not allowed there). -1 with errno when fork failed. */
pid_t waiter_start(int *release_fd);
void waiter_end(pid_t pid, int release_fd);

/* 1 when fd yields bytes containing cfg("secret_text"); else 0 with errno
 * (ENODATA when the bytes were readable but not the secret). */
int fd_has_secret(int fd);
/* Same for a path, opened read-only. */
int path_has_secret(const char *path);

/* fstat(2) itself. glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH),
 * which the sandbox refuses as a path-based stat: use this where an attempt
 * needs the metadata of a descriptor it holds. */
struct stat;
int raw_fstat(int fd, struct stat *st);

/* Write exactly n bytes of filler to fd (the errno tally, stderr floods). */
int write_filler(int fd, size_t n);

#endif
