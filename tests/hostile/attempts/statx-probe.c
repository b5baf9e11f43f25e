/* Probe a path's existence and size with statx. */
#include "hostile.h"

#include <fcntl.h>
#include <sys/stat.h>

int
attempt(void)
{
	struct statx stx;

	return statx(AT_FDCWD, cfg("secret"), 0, STATX_SIZE, &stx) == 0 &&
	    stx.stx_size > 0;
}
