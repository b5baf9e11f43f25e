/* Probe which processes exist on the machine: sched_getaffinity takes any
 * pid and checks no permission (ESRCH tells a missing one). Pid 1 always
 * exists; success is its CPU mask. */
#include "hostile.h"

#include <sched.h>

int
attempt(void)
{
	cpu_set_t set;

	return sched_getaffinity(1, sizeof(set), &set) == 0;
}
