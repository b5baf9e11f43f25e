/* sleeper: a plugin for the Docker suite only (tests/docker). It reads
 * nothing, sleeps for a few seconds and answers 1: long enough for an
 * agent container to look for its process while it runs (it must not see
 * it). Built with the SDK like the official plugins, published in the
 * test image's marketplace and installed through the signed path. */
#include "lfplugin.h"

#include <time.h>

int
main(void)
{
	struct timespec ts = { 8, 0 };

	while (nanosleep(&ts, &ts) != 0)
		;
	lfp_answer(1);
}
