/* Contract: a plugin that leaves a sleeping child behind and answers 1. The
 * answer stands; the harness checks the child did not outlive the run. */
#include <sys/prctl.h>
#include <unistd.h>

int
main(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		(void)prctl(PR_SET_NAME, "lf-orphan", 0, 0, 0);
		sleep(60);
		_exit(0);
	}
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
