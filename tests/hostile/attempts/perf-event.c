/* perf_event_open on itself (user-space counting only, allowed to everyone
 * at perf_event_paranoid=2): a kernel attack surface and timing source. */
#include "hostile.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0L, -1L, -1L,
	    (long)PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}
