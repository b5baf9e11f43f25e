/* Read the parent's environment from /proc (the harness gave the parent a
 * variable carrying the secret). */
#include "hostile.h"

#include <stdio.h>
#include <unistd.h>

int
attempt(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)getppid());
	return path_has_secret(path);
}
