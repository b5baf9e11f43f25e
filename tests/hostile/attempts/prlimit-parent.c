/* Read (and so also could change) the parent's resource limits. */
#include "hostile.h"

#include <sys/resource.h>
#include <unistd.h>

int
attempt(void)
{
	struct rlimit rl;

	return prlimit(getppid(), RLIMIT_NOFILE, NULL, &rl) == 0;
}
