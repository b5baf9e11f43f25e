/* ptrace the parent (the console): attach, then detach at once. */
#include "hostile.h"

#include <errno.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int
attempt(void)
{
	pid_t ppid = getppid();
	int st;

	if (ptrace(PTRACE_ATTACH, ppid, NULL, NULL) != 0)
		return 0;
	while (waitpid(ppid, &st, __WALL) < 0 && errno == EINTR)
		;
	(void)ptrace(PTRACE_DETACH, ppid, NULL, NULL);
	return 1;
}
