/* Read the environment of whoever started the run (the harness sets
 * LF_HOSTILE_ENV to the secret). */
#include "hostile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
attempt(void)
{
	const char *v = getenv("LF_HOSTILE_ENV");

	if (v != NULL && strcmp(v, cfg("secret_text")) == 0)
		return 1;
	errno = ENOENT;
	return 0;
}
