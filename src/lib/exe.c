/* This process's start and its sibling executables (see exe.h). */
#include "lib/exe.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

extern char **environ;

void
exe_start(const char *progname)
{
	struct rlimit nocore = { 1, 1 };

	log_init(progname);
	sanitise_stdfds();
	/* No core dumps anywhere: a console core would hold secrets and file
	 * bytes. One byte, not zero: a file core needs at least a page, and a
	 * piped core_pattern ignores the limit but for 1, which the kernel
	 * takes as "never pipe" (docs/sandbox.md). The hard limit stays 1, so
	 * plugins get the same; 0 when a hard limit of 0 was inherited
	 * (doctor's kernel.core-pattern names what that leaves open). Set
	 * before anything is loaded. */
	if (setrlimit(RLIMIT_CORE, &nocore) != 0) {
		nocore.rlim_cur = nocore.rlim_max = 0;
		if (setrlimit(RLIMIT_CORE, &nocore) != 0)
			fatal_errno("setrlimit");
	}
}

enum exe_err
exe_sibling_path(const char *name, char *out, size_t outlen)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return EXE_SELF;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash == NULL)
		return EXE_SELF;
	*slash = '\0';
	if (str_fmt(out, outlen, "%s/%s", self, name) != STR_OK)
		return EXE_TOOLONG;
	return EXE_OK;
}

enum exe_err
exe_sibling_open(const char *name, int *fd)
{
	char path[PATH_MAX];
	enum exe_err e = exe_sibling_path(name, path, sizeof(path));

	if (e != EXE_OK)
		return e;
	*fd = open(path, OPEN_RO_SAFE);
	return *fd < 0 ? EXE_OPEN : EXE_OK;
}

void
exe_sibling_exec(const char *name, char **args, const char **why)
{
	char path[PATH_MAX];
	char **argv;
	size_t i, n;

	switch (exe_sibling_path(name, path, sizeof(path))) {
	case EXE_OK:
		break;
	case EXE_TOOLONG:
		*why = "the path of this executable is too long";
		return;
	default:
		*why = "/proc/self/exe cannot be read";
		return;
	}
	for (n = 0; args[n] != NULL; n++)
		;
	argv = calloc(n + 2, sizeof(*argv));
	if (argv == NULL) {
		*why = "out of memory";
		return;
	}
	argv[0] = (char *)name;
	for (i = 0; i < n; i++)
		argv[i + 1] = args[i];
	execve(path, argv, environ);
	*why = errno == ENOENT ? "it is not installed beside this lockfile "
	    "(install every executable: make install)" : "it cannot be run";
	free(argv);
}
