/* An anonymous file (memfd_create): writable, executable, shareable. */
#include "hostile.h"

#include <sys/mman.h>
#include <unistd.h>

int
attempt(void)
{
	int fd = memfd_create("hostile", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}
