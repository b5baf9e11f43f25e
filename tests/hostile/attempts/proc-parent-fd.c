/* Reopen the parent's descriptors through /proc/PPID/fd/N: the harness left
 * one on the secret in the parent. */
#include "hostile.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int
attempt(void)
{
	char path[64];
	int n, e = ENOENT;

	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getppid(), n);
		if (path_has_secret(path))
			return 1;
		if (errno != ENOENT)
			e = errno;
	}
	errno = e;
	return 0;
}
