/* Signal the parent (signal 0: the permission check without harm). */
#include "hostile.h"

#include <signal.h>
#include <unistd.h>

int
attempt(void)
{
	return kill(getppid(), 0) == 0;
}
