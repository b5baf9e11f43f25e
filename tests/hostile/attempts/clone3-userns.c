/* A child in a new user namespace through clone3(2), whose flags live in
 * memory where a seccomp filter cannot look. */
#include "hostile.h"

#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int
attempt(void)
{
	struct clone_args ca;
	int st;
	long pid;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWUSER;
	ca.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0)
		return 0;
	if (pid == 0)
		_exit(0);
	while (waitpid((pid_t)pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return 1;
}
