/* What hostile and contract plugins share (see hostile.h): the harness's
 * parameters, read once from the input with pread so that the input's
 * offset is left alone, and small helpers. */
#include "hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONF_MAX 8192
#define CONF_LINES 64

static char conf[CONF_MAX + 1];
static char *lines[CONF_LINES];
static size_t nlines;

void
conf_load(void)
{
	size_t off = 0;
	char *p;

	while (off < CONF_MAX) {
		ssize_t n = pread(3, conf + off, CONF_MAX - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	conf[off] = '\0';
	for (p = conf; *p != '\0' && nlines < CONF_LINES;) {
		char *nl = strchr(p, '\n');
		lines[nlines++] = p;
		if (nl == NULL)
			break;
		*nl = '\0';
		p = nl + 1;
	}
}

const char *
cfg(const char *key)
{
	size_t i, klen = strlen(key);

	for (i = 0; i < nlines; i++)
		if (strncmp(lines[i], key, klen) == 0 && lines[i][klen] == '=')
			return lines[i] + klen + 1;
	fprintf(stderr, "hostile: no '%s' in the input\n", key);
	exit(2);
}

unsigned long long
cfg_u64(const char *key)
{
	const char *s = cfg(key);
	unsigned long long v = 0;

	if (*s == '\0')
		goto bad;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (~0ULL - 9) / 10)
			goto bad;
		v = v * 10 + (unsigned)(*s - '0');
	}
	return v;
bad:
	fprintf(stderr, "hostile: '%s' is not a decimal number\n", key);
	exit(2);
}

int
write_filler(int fd, size_t n)
{
	static const char fill[4096] = { 0 };

	while (n > 0) {
		size_t k = n < sizeof(fill) ? n : sizeof(fill);
		ssize_t w = write(fd, fill, k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		n -= (size_t)w;
	}
	return 0;
}

int
in_child(int (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return 0;
	if (pid == 0) {
		int r = fn();
		_exit(r == 1 ? 0 : (errno > 0 && errno < 256 ? errno : 255));
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 1;
	errno = WIFEXITED(st) ? WEXITSTATUS(st) : ECHILD;
	return 0;
}

int
fd_has_secret(int fd)
{
	char buf[4096];
	size_t len = 0;
	const char *want = cfg("secret_text");

	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		if (n == 0 || (len += (size_t)n) == sizeof(buf) - 1)
			break;
	}
	buf[len] = '\0';
	if (memmem(buf, len, want, strlen(want)) != NULL)
		return 1;
	errno = ENODATA;
	return 0;
}

int
path_has_secret(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), r, e;

	if (fd < 0)
		return 0;
	r = fd_has_secret(fd);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

pid_t
waiter_start(int *release_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[0]);
	*release_fd = p[1];
	return pid;
}

void
waiter_end(pid_t pid, int release_fd)
{
	int st, e = errno;

	close(release_fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	errno = e;
}

int
raw_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, (long)fd, st);
}
