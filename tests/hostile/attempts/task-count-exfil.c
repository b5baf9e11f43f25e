/* Exfiltration through a global level: the number of tasks on the machine,
 * shown as nr_threads in the world-readable /proc/loadavg (not namespaced:
 * every container sees the host's). The plugin holds N sleeping children
 * for a moment; an agent sampling /proc/loadavg reads N off the plateau.
 * RLIMIT_NPROC allows N up to 512; the children exit by themselves (the
 * plugin may not signal them). The harness, as the agent account, must
 * decode the number it put in the input. */
#include "hostile.h"

#include <errno.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
attempt(void)
{
	struct timespec quiet = { 0, 400000000 }, end;
	unsigned long long i, n = cfg_u64("tasks");
	int st;

	nanosleep(&quiet, NULL);
	if (clock_gettime(CLOCK_MONOTONIC, &end) != 0)
		return 0;
	end.tv_sec += 2;	/* hold until then, forking included */
	for (i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 0;
		if (pid == 0) {
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
			    &end, NULL) == EINTR)
				;
			_exit(0);
		}
	}
	while (wait(&st) > 0 || errno == EINTR)
		;
	nanosleep(&quiet, NULL);
	return 1;
}
