/* Learn the input's path (the console's work directory) from fd 3. */
#include "hostile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int
attempt(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/fd/3", buf, sizeof(buf) - 1);

	if (n < 0)
		return 0;
	buf[n] = '\0';
	if (strcmp(buf, cfg("input_path")) == 0)
		return 1;
	errno = ENODATA;
	return 0;
}
