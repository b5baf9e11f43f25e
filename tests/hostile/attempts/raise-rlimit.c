/* Raise one of the limits the sandbox sets: a soft limit up to its hard
 * limit wherever they differ, else a hard limit by one. */
#include "hostile.h"

#include <sys/resource.h>

int
attempt(void)
{
	static const int res[] = {
		RLIMIT_DATA, RLIMIT_AS, RLIMIT_STACK, RLIMIT_NPROC, RLIMIT_CORE,
		RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_MEMLOCK, RLIMIT_MSGQUEUE,
	};
	struct rlimit rl;
	size_t i;

	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		if (getrlimit(res[i], &rl) != 0)
			return 0;
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			return setrlimit(res[i], &rl) == 0;
		}
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	rl.rlim_max++;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}
