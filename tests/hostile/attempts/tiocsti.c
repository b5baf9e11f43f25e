/* Push keystrokes into an inherited terminal (TIOCSTI; this kernel has
 * dev.tty.legacy_tiocsti=1): on every descriptor that is a tty, then on the
 * controlling terminal through /dev/tty. The harness starts the run on a
 * pty that is its controlling terminal. */
#include "hostile.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int
attempt(void)
{
	char c = '#';
	int fd, r;

	for (fd = 0; fd < 64; fd++)
		if (isatty(fd) && ioctl(fd, TIOCSTI, &c) == 0)
			return 1;
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = ioctl(fd, TIOCSTI, &c) == 0;
	close(fd);
	return r;
}
