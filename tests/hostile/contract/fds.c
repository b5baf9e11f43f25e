/* Contract: the descriptor layout. The open descriptors must be exactly the
 * list in the input's "fds" (0,1,2,3 for protocol 1; also 6 and 7 for
 * protocol 2), with stdin /dev/null, the input read-only, stdout and stderr
 * write-only pipes, fd 6 a read-only pipe and fd 7 a write-only pipe. Like
 * c-state: answers 1, or 0 with the failing check's number in stderr bytes. */
#include "hostile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int
is(int fd, mode_t type, int acc)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) == acc && raw_fstat(fd, &st) == 0 &&
	    (st.st_mode & S_IFMT) == type;
}

int
main(void)
{
	int want[1024] = { 0 }, fd, fail = 0;
	const char *p;
	struct stat st;

	conf_load();
	for (p = cfg("fds"); *p != '\0';) {
		char *end;
		long n = strtol(p, &end, 10);
		if (end == p || n < 0 || n >= 1024)
			return 2;
		want[n] = 1;
		p = *end == ',' ? end + 1 : end;
	}
	for (fd = 0; fd < 1024 && fail == 0; fd++)
		if ((fcntl(fd, F_GETFD) >= 0) != want[fd])
			fail = 100 + fd;	/* an fd too many or missing */
	if (fail == 0) {
		if (raw_fstat(0, &st) != 0 || !S_ISCHR(st.st_mode) ||
		    major(st.st_rdev) != 1 || minor(st.st_rdev) != 3 ||
		    (fcntl(0, F_GETFL) & O_ACCMODE) != O_RDONLY)
			fail = 1;		/* stdin is /dev/null, read-only */
		else if (!is(1, S_IFIFO, O_WRONLY))
			fail = 2;
		else if (!is(2, S_IFIFO, O_WRONLY))
			fail = 3;
		else if (!is(3, S_IFREG, O_RDONLY))
			fail = 4;
		else if (want[6] && !is(6, S_IFIFO, O_RDONLY))
			fail = 5;
		else if (want[7] && !is(7, S_IFIFO, O_WRONLY))
			fail = 6;
	}
	if (fail == 0)
		return write(1, "1\n", 2) == 2 ? 0 : 1;
	if (write_filler(2, (size_t)fail) != 0)
		return 1;
	return write(1, "0\n", 2) == 2 ? 0 : 1;
}
