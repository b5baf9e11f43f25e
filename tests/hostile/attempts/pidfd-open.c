/* Get a pidfd on the parent (then pidfd_getfd could steal its descriptors). */
#include "hostile.h"

#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	long fd = syscall(SYS_pidfd_open, (long)getppid(), 0L);

	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}
