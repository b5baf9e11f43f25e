/* lockfile plugin SDK: descriptors, answers and values (see lfplugin.h).
 *
 * Trust: the input on fd 3 is the confidential file and may be hostile; the
 * values on fd 6 come from the console, which has already checked them
 * against the manifest, but are still read with their declared bounds. */
#include "lfplugin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void
lfp_answer(int yes)
{
	if (write_all(STDOUT_FILENO, yes ? "1\n" : "0\n", 2) != 0)
		_exit(LFP_EXIT_ERROR);
	_exit(0);
}

void
lfp_fail(const char *why)
{
	/* stderr is discarded; this is for a developer running it by hand. */
	if (why != NULL) {
		(void)write_all(STDERR_FILENO, why, strlen(why));
		(void)write_all(STDERR_FILENO, "\n", 1);
	}
	_exit(LFP_EXIT_ERROR);
}

int
lfp_input_size(uint64_t *size)
{
	struct stat st;

	/* The raw system call: seccomp refuses newfstatat and statx, which
	 * glibc's and musl's fstat() may use. On x86-64 and arm64 the libc
	 * struct stat has the kernel's layout for this call. */
	if (syscall(SYS_fstat, LFP_FD_INPUT, &st) != 0)
		return -1;
	if (!S_ISREG(st.st_mode) || st.st_size < 0) {
		errno = EINVAL;
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return 0;
}

ssize_t
lfp_read(void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(LFP_FD_INPUT, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		return n;
	}
}

ssize_t
lfp_pread(void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	if (len > (uint64_t)INT64_MAX || off > (uint64_t)INT64_MAX - len) {
		errno = EINVAL;
		return -1;
	}
	while (got < len) {
		ssize_t n = pread(LFP_FD_INPUT, (char *)buf + got, len - got,
		    (off_t)(off + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Read exactly len bytes from fd 6. 0, or -1 on error or early EOF. */
static int
values_take(void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(LFP_FD_VALUES, (char *)buf + got, len - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int
lfp_values_read(struct lfp_value *v, size_t n)
{
	uint8_t hdr[4], extra;
	size_t i;
	ssize_t r;

	for (i = 0; i < n; i++) {
		uint32_t len;

		v[i].len = 0;
		if (v[i].max_bytes == 0 || v[i].max_bytes > LFP_VALUE_MAX ||
		    v[i].buf == NULL)
			return -1;
		if (values_take(hdr, sizeof(hdr)) != 0)
			return -1;
		len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 |
		    (uint32_t)hdr[2] << 8 | (uint32_t)hdr[3];
		if (len > v[i].max_bytes)
			return -1;
		if (values_take(v[i].buf, len) != 0)
			return -1;
		v[i].len = len;
	}
	/* Nothing may follow the declared values. */
	do {
		r = read(LFP_FD_VALUES, &extra, 1);
	} while (r < 0 && errno == EINTR);
	return r == 0 ? 0 : -1;
}

int
lfp_detail(const char *fmt, ...)
{
	char buf[LFP_DETAIL_MAX + 1];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n > LFP_DETAIL_MAX)
		n = LFP_DETAIL_MAX;	/* cut: the console keeps 256 anyway */
	return write_all(LFP_FD_DETAIL, buf, (size_t)n);
}
