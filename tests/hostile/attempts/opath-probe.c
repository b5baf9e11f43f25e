/* Probe a path through an O_PATH descriptor (not covered by Landlock), then
 * fstat it for its size. */
#include "hostile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int
attempt(void)
{
	struct stat st;
	int fd = open(cfg("secret"), O_PATH | O_CLOEXEC), r;

	if (fd < 0)
		return 0;
	r = raw_fstat(fd, &st) == 0 && st.st_size > 0;
	close(fd);
	return r;
}
