/* Existence oracle through execve(): the allowlist must let execve through
 * (the sandbox itself execs the plugin after loading the filter), and the
 * kernel resolves the path before Landlock refuses it: EACCES for an
 * existing file, ENOENT for a missing one. */
#include "hostile.h"

#include <errno.h>
#include <unistd.h>

int
attempt(void)
{
	char *const argv[] = { (char *)"probe", NULL };
	char *const envp[] = { NULL };
	int ea, eb;

	execve(cfg("secret"), argv, envp);	/* mode 0600: never runs */
	ea = errno;
	execve(cfg("missing"), argv, envp);
	eb = errno;
	if (ea != eb)
		return 1;
	errno = ea;
	return 0;
}
