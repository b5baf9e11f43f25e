/* This process's start and the executables installed beside it (one per
 * role, paths.h; docs/hacking.md, "Executables"). A sibling is found in
 * the directory of /proc/self/exe, never on PATH: whoever can replace a
 * file there can replace this executable too (sysconf_check_binary). */
#ifndef LOCKFILE_EXE_H
#define LOCKFILE_EXE_H

#include <stddef.h>

/* What every executable does first: the log's name, fds 0..2 open, and no
 * core dumps (RLIMIT_CORE 1, or 0 under an inherited hard 0). Fatal on
 * failure. */
void exe_start(const char *progname);

enum exe_err {
	EXE_OK = 0,
	EXE_SELF = -1,		/* /proc/self/exe unreadable */
	EXE_TOOLONG = -2,	/* the sibling's path does not fit */
	EXE_OPEN = -3,		/* the sibling cannot be opened (errno) */
};

/* The path of the executable NAME beside this one. */
enum exe_err exe_sibling_path(const char *name, char *out, size_t outlen);
/* Open it (O_RDONLY | O_CLOEXEC, no symlink): *fd on EXE_OK. */
enum exe_err exe_sibling_open(const char *name, int *fd);
/* Replace this process with NAME, argv[0] set to NAME and the rest of
 * argv (argv[0] not included) after it, the environment unchanged. Returns
 * only on failure, with a static reason in *why. */
void exe_sibling_exec(const char *name, char **args, const char **why);

#endif
