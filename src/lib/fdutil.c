/* File-descriptor helpers (see fdutil.h). */
#include "lib/fdutil.h"
#include "lib/log.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
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

int
parse_u64(const char *s, unsigned long long min, unsigned long long max,
    unsigned long long *out)
{
	unsigned long long v = 0;
	const char *p = s;

	if (s == NULL || *s == '\0' || strlen(s) > 20)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (ULLONG_MAX - (unsigned)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (p - s > 1 && s[0] == '0')
		return -1;	/* no leading zeros: one spelling per number */
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

long long
now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		fatal_errno("clock_gettime");
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
sleep_until_ms(long long deadline_ms)
{
	struct timespec ts;

	ts.tv_sec = deadline_ms / 1000;
	ts.tv_nsec = (deadline_ms % 1000) * 1000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

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
