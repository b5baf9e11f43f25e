/* ptrace its own child (the step before ptracing anything else). */
#include "hostile.h"

#include <errno.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int
attempt(void)
{
	int r, e, st, rel;
	pid_t pid = waiter_start(&rel);

	if (pid < 0)
		return 0;
	r = ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0;
	e = errno;
	if (r) {
		while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
			;
		(void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	waiter_end(pid, rel);
	errno = e;
	return r;
}
