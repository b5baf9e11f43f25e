/* userfaultfd (user-mode faults only: what an unprivileged account gets with
 * vm.unprivileged_userfaultfd=0), the classic race-widening primitive. */
#include "hostile.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	long fd = syscall(SYS_userfaultfd, (long)(O_CLOEXEC | UFFD_USER_MODE_ONLY));

	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}
