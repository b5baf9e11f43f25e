/* The system configuration directory (see sysconf.h). */
#include "config.h"
#include "lib/fd.h"
#include "lib/sysconf.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
sysconf_root_owned_chain(const char *path)
{
	char p[PATH_MAX];
	size_t n = strlen(path);
	struct stat st;

	if (n == 0 || n >= sizeof(p) || path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	memcpy(p, path, n + 1);
	for (;;) {
		char *slash;
		if (lstat(p, &st) != 0)
			return -1;	/* errno ENOENT when missing */
		if (!S_ISDIR(st.st_mode) || st.st_uid != 0) {
			errno = EPERM;
			return -1;
		}
		/* /tmp-like sticky directories are fine above our directory
		 * (no one can replace root's entry in them), not as it. */
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		    !(strcmp(p, path) != 0 && (st.st_mode & S_ISVTX))) {
			errno = EPERM;
			return -1;
		}
		if (strcmp(p, "/") == 0)
			return 0;
		slash = strrchr(p, '/');
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
}

int
sysconf_check_binary(char *why, size_t whylen)
{
	char path[PATH_MAX], e[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	struct stat st;

	if (n <= 0) {
		str_msg(why, whylen, "/proc/self/exe cannot be read");
		return -1;
	}
	path[n] = '\0';
	escape_text(path, (size_t)n, e, sizeof(e));
	if (stat(path, &st) != 0 || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		str_msg(why, whylen, "%s is not root's or is writable by others "
		    "(install it root-owned: make install)", e);
		return -1;
	}
	slash = strrchr(path, '/');
	if (slash == path)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (sysconf_root_owned_chain(path) != 0) {
		str_msg(why, whylen, "%s: a directory above it is not root's or "
		    "is writable by others (install it root-owned: make install)",
		    e);
		return -1;
	}
	str_msg(why, whylen, "%s, root's, in root-owned directories", e);
	return 0;
}

const char *
sysconf_dir(const char **why)
{
	static char dir[PATH_MAX];
	const char *env = getenv("LOCKFILE_SYSCONFDIR");
	const char *d = env != NULL && env[0] != '\0' ? env : LOCKFILE_SYSCONFDIR;

	if (strlen(d) >= sizeof(dir)) {
		*why = "system configuration path too long";
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (sysconf_root_owned_chain(d) != 0) {
		*why = errno == ENOENT ? "system configuration directory missing"
		    : "system configuration directory is not root-owned and "
		    "closed to writes by others (all the way up)";
		return NULL;
	}
	if (str_fmt(dir, sizeof(dir), "%s", d) != STR_OK) {
		*why = "system configuration path too long";
		errno = ENAMETOOLONG;
		return NULL;
	}
	return dir;
}

int
sysconf_open(const char *name, const char **why)
{
	char path[PATH_MAX];
	const char *dir = sysconf_dir(why);
	struct stat st;
	int fd;

	if (dir == NULL) {
		/* A missing directory holds no file (ENOENT, as a missing
		 * file); an unsafe one is EPERM. */
		if (errno != ENOENT)
			errno = EPERM;
		return -1;
	}
	if (strchr(name, '/') != NULL ||
	    str_fmt(path, sizeof(path), "%s/%s", dir, name) != STR_OK) {
		*why = "bad system configuration file name";
		errno = EINVAL;
		return -1;
	}
	fd = open(path, OPEN_RO_SAFE);
	if (fd < 0) {
		*why = errno == ENOENT ? "missing" : "cannot be opened";
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		*why = "not a root-owned file closed to writes by others";
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

char *
sysconf_read(const char *name, size_t max, size_t *len, const char **why)
{
	struct stat st;
	char *buf;
	int fd = sysconf_open(name, why);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || st.st_size < 0 || (size_t)st.st_size > max) {
		*why = "too large";
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	if (read_full(fd, buf, (size_t)st.st_size) != st.st_size) {
		*why = "cannot be read";
		free(buf);
		close(fd);
		return NULL;
	}
	buf[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	close(fd);
	return buf;
}
