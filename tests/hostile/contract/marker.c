/* Contract: built dynamically linked (c-dynamic). When it runs at all it
 * creates the marker file named in its input and answers 1; the sandbox
 * must refuse it before it runs (exec-failed, no marker). Bare, it creates
 * the marker, which proves the mark means "it ran". */
#include "hostile.h"

#include <fcntl.h>
#include <unistd.h>

int
main(void)
{
	int fd;

	conf_load();
	fd = open(cfg("marker"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
