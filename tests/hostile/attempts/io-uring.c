/* io_uring: a second system call interface the filter cannot see into. */
#include "hostile.h"

#include <linux/io_uring.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 1L, &p);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}
