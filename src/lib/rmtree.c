/* Tree removal by descriptor (see rmtree.h). */
#include "lib/rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int
rm_level(int parent, const char *name, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, ret = 0, err = 0;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth > RMTREE_MAX_DEPTH)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (d == NULL) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (rm_level(dirfd(d), de->d_name, depth + 1) != 0) {
			ret = -1;
			err = errno;
		}
	}
	closedir(d);
	if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		return -1;
	errno = err;
	return ret;
}

int
rm_tree_at(int parent, const char *name)
{
	return rm_level(parent, name, 0);
}
