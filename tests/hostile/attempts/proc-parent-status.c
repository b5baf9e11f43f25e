/* Read the parent's status from /proc. */
#include "hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
attempt(void)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)getppid());
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	if (strstr(buf, "Uid:") != NULL)
		return 1;
	errno = ENODATA;
	return 0;
}
