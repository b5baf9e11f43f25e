/* Read the parent's (the console's) command line from /proc. */
#include "hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int
attempt(void)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)getppid());
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0)
		return 1;
	errno = n == 0 ? ENODATA : errno;
	return 0;
}
