/* Contract: a plugin that tries to leave a sleeping child behind. Plugins
 * may not create processes (only threads): it answers 1 if the fork worked,
 * 0 if it was refused; the harness checks no child outlives the run. */
#include <sys/prctl.h>
#include <unistd.h>

int
main(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return write(1, "0\n", 2) == 2 ? 0 : 1;
	if (pid == 0) {
		(void)prctl(PR_SET_NAME, "lf-orphan", 0, 0, 0);
		sleep(60);
		_exit(0);
	}
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
