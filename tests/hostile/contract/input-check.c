/* The plugin after input-poison: answers 1 when every descriptor it was
 * given is clean: no O_NONBLOCK, O_APPEND or O_DIRECT on any of fds 0-7
 * it holds, and fd 3 read-only, at offset 0, a plain read returning the
 * first bytes of the input ("LOCKFILE"). Otherwise writes fd + 1 bytes to
 * stderr for the first unclean fd (hostile.h's convention) and answers 0. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

static int
unclean(void)
{
	char buf[8];
	int fd;

	for (fd = 0; fd < 8; fd++) {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0)
			continue;	/* not given */
		if (fl & (O_NONBLOCK | O_DIRECT | O_APPEND))
			return fd + 1;
	}
	if ((fcntl(3, F_GETFL) & O_ACCMODE) != O_RDONLY ||
	    lseek(3, 0, SEEK_CUR) != 0 ||
	    read(3, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
	    memcmp(buf, "LOCKFILE", sizeof(buf)) != 0)
		return 4;
	return 0;
}

int
main(void)
{
	int bad = unclean();

	if (bad == 0)
		return write(1, "1\n", 2) == 2 ? 0 : 1;
	if (write_filler(2, (size_t)bad) != 0)
		return 1;
	return write(1, "0\n", 2) == 2 ? 0 : 1;
}
