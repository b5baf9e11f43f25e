/* mkdir -p (see mkdir.h). */
#include "lib/mkdir.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

int
mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path), i;

	if (len == 0 || len >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (tmp[i] != '/' && tmp[i] != '\0')
			continue;
		tmp[i] = '\0';
		if (mkdir(tmp, mode) != 0 && errno != EEXIST)
			return -1;
		if (i < len)
			tmp[i] = '/';
	}
	return 0;
}
