/* Reopen the read-only input read-write through /proc/self/fd/3. */
#include "hostile.h"

#include <fcntl.h>
#include <unistd.h>

int
attempt(void)
{
	int fd = open("/proc/self/fd/3", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}
