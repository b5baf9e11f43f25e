/* Use a descriptor inherited from whoever started the run: the harness opens
 * the secret on fd 9 before starting it. */
#include "hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int
attempt(void)
{
	int fd;

	for (fd = 4; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
			continue;
		if (fd_has_secret(fd))
			return 1;
	}
	errno = EBADF;
	return 0;
}
