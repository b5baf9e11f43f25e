/* Dump its memory (and so the input) to a core file: a child raises its
 * core limit as far as it may and aborts; success when the kernel says a
 * core was written. */
#include "hostile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int
attempt(void)
{
	struct rlimit rl;
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return 0;
	if (pid == 0) {
		if (getrlimit(RLIMIT_CORE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			(void)setrlimit(RLIMIT_CORE, &rl);
		}
		(void)signal(SIGABRT, SIG_DFL);
		abort();
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFSIGNALED(st) && WCOREDUMP(st))
		return 1;
	errno = ENOENT;	/* no core */
	return 0;
}
