/* Watch a directory with inotify (learn about the console's activity). */
#include "hostile.h"

#include <sys/inotify.h>
#include <unistd.h>

int
attempt(void)
{
	int fd = inotify_init1(IN_CLOEXEC), r;

	if (fd < 0)
		return 0;
	r = inotify_add_watch(fd, cfg("dir"), IN_ALL_EVENTS) >= 0;
	close(fd);
	return r;
}
