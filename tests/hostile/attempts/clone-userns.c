/* A child in a new user namespace through clone(2). */
#include "hostile.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int
attempt(void)
{
	int st;
	long pid = syscall(SYS_clone, (long)(CLONE_NEWUSER | SIGCHLD), 0L, 0L,
	    0L, 0L);

	if (pid < 0)
		return 0;
	if (pid == 0)
		_exit(0);
	while (waitpid((pid_t)pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return 1;
}
