/* Contract: the plugin (and, with a "child=1" input, a child it forks) sleep
 * until killed; the harness kills the runner with SIGKILL and checks that
 * none of them outlives it. */
#include "hostile.h"

#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int
main(void)
{
	conf_load();
	if (strcmp(cfg("child"), "1") == 0) {
		pid_t pid = fork();
		/* refused (plugins get threads only): the plugin sleeps alone */
		if (pid == 0)
			(void)prctl(PR_SET_NAME, "lf-pdeath-child", 0, 0, 0);
	}
	for (;;)
		sleep(1000);
}
