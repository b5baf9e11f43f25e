/* Change the parent's scheduling priority (to its current value: harmless,
 * but the permission is the point). */
#include "hostile.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

int
attempt(void)
{
	int prio;

	errno = 0;
	prio = getpriority(PRIO_PROCESS, (id_t)getppid());
	if (prio == -1 && errno != 0)
		return 0;
	return setpriority(PRIO_PROCESS, (id_t)getppid(), prio) == 0;
}
