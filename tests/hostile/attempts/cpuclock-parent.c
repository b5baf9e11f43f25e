/* Read another process's CPU time through its CPU clock id: the kernel lets
 * clock_gettime read any process's clock without a permission check, and
 * the filter allows clock_gettime for every clock id. A timing side channel
 * on the console (and a receiver for covert channels), from any pid. */
#include "hostile.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* include/linux/posix-timers.h: process clock of pid, CPUCLOCK_SCHED. */
#define PROCESS_SCHED_CLOCK(pid) ((int)(~(unsigned)(pid) << 3) | 2)

int
attempt(void)
{
	struct timespec ts;

	return syscall(SYS_clock_gettime, (long)PROCESS_SCHED_CLOCK(getppid()),
	    &ts) == 0;
}
