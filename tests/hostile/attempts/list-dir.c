/* List a directory the account can read and find a name in it. */
#include "hostile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	char buf[4096];
	const char *want = cfg("dir_entry");
	long n;
	int fd = open(cfg("dir"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		long off = 0;
		while (off < n) {
			struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
			if (strcmp(d->d_name, want) == 0)
				return 1;
			off += d->d_reclen;
		}
	}
	if (n == 0)
		errno = ENOENT;
	return 0;
}
