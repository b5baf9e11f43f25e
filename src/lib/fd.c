/* File-descriptor helpers (see fd.h). */
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t
read_full(int fd, void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = read(fd, (char *)buf + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	return (ssize_t)off;
}

int
write_full(int fd, const void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, (const char *)buf + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

void
close_fds_from(int lowfd)
{
	close_fds_except(lowfd, NULL, 0);
}

void
close_fds_except(int lowfd, const int *keep, size_t nkeep)
{
	int lo = lowfd;
	size_t i;
	int sorted[16];

	ASSERT(nkeep <= 16);
	if (nkeep > 0)
		memcpy(sorted, keep, nkeep * sizeof(int));
	/* insertion sort: tiny list */
	for (i = 1; i < nkeep; i++) {
		int v = sorted[i];
		size_t j = i;
		while (j > 0 && sorted[j - 1] > v) {
			sorted[j] = sorted[j - 1];
			j--;
		}
		sorted[j] = v;
	}
	for (i = 0; i < nkeep; i++) {
		if (sorted[i] < lo)
			continue;
		if (sorted[i] > lo &&
		    syscall(SYS_close_range, lo, sorted[i] - 1, 0) != 0)
			fatal_errno("close_range");
		lo = sorted[i] + 1;
	}
	if (syscall(SYS_close_range, lo, ~0U, 0) != 0)
		fatal_errno("close_range");
}

int
set_cloexec(int fd, int on)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl < 0)
		return -1;
	fl = on ? (fl | FD_CLOEXEC) : (fl & ~FD_CLOEXEC);
	return fcntl(fd, F_SETFD, fl);
}

int
set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
	return fcntl(fd, F_SETFL, fl);
}

int
fd_reopen(int fd, int flags)
{
	char path[40];

	if (str_fmt(path, sizeof(path), "/proc/self/fd/%d", fd) != STR_OK) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, flags);
}

int
check_fd_owner_mode(int fd, uid_t uid, int strict)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (uid != (uid_t)-1 && st.st_uid != uid) {
		errno = EPERM;
		return -1;
	}
	if (strict && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

void
sanitise_stdfds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd < 0)
		fatal_errno("open /dev/null");
	close(fd);
}
