/* Append 1 MiB to an existing file the account owns: past RLIMIT_FSIZE 0 if
 * it could ever be opened inside the sandbox. */
#include "hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

int
attempt(void)
{
	int fd, r, e;

	(void)signal(SIGXFSZ, SIG_IGN);	/* see EFBIG rather than die */
	fd = open(cfg("wfile"), O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = write_filler(fd, 1 << 20) == 0;
	e = errno;
	close(fd);
	errno = e;
	return r;
}
