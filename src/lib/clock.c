/* The monotonic clock (see clock.h). */
#include "lib/clock.h"
#include "lib/log.h"

#include <errno.h>
#include <time.h>

long long
now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		fatal_errno("clock_gettime");
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
sleep_until_ms(long long deadline_ms)
{
	struct timespec ts;

	ts.tv_sec = deadline_ms / 1000;
	ts.tv_nsec = (deadline_ms % 1000) * 1000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
