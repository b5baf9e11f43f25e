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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#ifndef bit_AVX512VBMI
#define bit_AVX512VBMI	(1 << 1)	/* cpuid 7.0 ECX */
#endif
#ifndef bit_AVX512VBMI2
#define bit_AVX512VBMI2	(1 << 6)
#endif
#endif

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

void
lfp_fwd_init(struct lfp_fwd *f, lfp_fill_fn fill, const void *arg)
{
	f->pos = f->end = f->bstart = 0;
	f->blen = 0;
	f->fill = fill;
	f->arg = arg;
}

int
lfp_fwd_take(struct lfp_fwd *f, uint8_t *out, size_t len)
{
	while (len > 0) {
		size_t have, n;
		int e;

		if (f->pos >= f->end || len > f->end - f->pos)
			return LFP_FWD_PAST;
		if (f->pos < f->bstart || f->pos - f->bstart >= f->blen) {
			size_t want = f->end - f->pos < LFP_FWD_BLOCK ?
			    (size_t)(f->end - f->pos) : LFP_FWD_BLOCK;
			if ((e = f->fill(f->arg, f->buf, want, f->pos)) != 0)
				return e;
			f->bstart = f->pos;
			f->blen = want;
		}
		have = f->blen - (size_t)(f->pos - f->bstart);
		n = have < len ? have : len;
		if (out != NULL) {
			memcpy(out, f->buf + (f->pos - f->bstart), n);
			out += n;
		}
		f->pos += n;
		len -= n;
	}
	return 0;
}

ssize_t
lfp_input_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	return lfp_pread(buf, len, off);
}

void
lfp_result(int result, const char *why)
{
	if (result == 0 || result == 1)
		lfp_answer(result);
	lfp_fail(why);
}

enum { IN_MAP, IN_READ };

int
lfp_input_init(struct lfp_input *in, uint8_t *buf, size_t buflen, size_t keep)
{
	memset(in, 0, sizeof(*in));
	if (buf == NULL || keep > LFP_KEEP_MAX || buflen <= 2 * keep) {
		errno = EINVAL;
		return -1;
	}
	in->buf = buf;
	in->buflen = buflen;
	in->keep = keep;
	/* No size (not a regular file, which fd 3 always is in the sandbox):
	 * read until end of file. */
	in->mode = lfp_input_size(&in->size) == 0 ? IN_MAP : IN_READ;
	return 0;
}

/* Read mode: the kept bytes to the front, then fill the rest of buf from
 * fd 3's offset (a pipe works too). */
static int
input_read(struct lfp_input *in)
{
	size_t keep = in->next == 0 ? 0 : in->keep, got = 0;
	ssize_t n = 1;

	if (keep > in->len)
		keep = in->len;
	if (keep > 0)
		memmove(in->buf, in->p + in->len - keep, keep);
	while (keep + got < in->buflen &&
	    (n = lfp_read(in->buf + keep + got, in->buflen - keep - got)) > 0)
		got += (size_t)n;
	if (n < 0)
		return -1;
	if (got == 0)
		return 0;
	in->p = in->buf;
	in->len = keep + got;
	in->off = in->next - keep;
	in->next += got;
	return 1;
}

int
lfp_input_next(struct lfp_input *in)
{
	uint64_t start, mstart, page = (uint64_t)getpagesize();
	size_t mlen;
	void *m;

	if (in->mode == IN_READ)
		return input_read(in);
	if (in->map != NULL) {
		(void)munmap(in->map, in->maplen);
		in->map = NULL;
	}
	if (in->next >= in->size)
		return 0;
	start = in->next == 0 ? 0 : in->next - in->keep;
	mstart = start & ~(page - 1);		/* mmap offsets are page-aligned */
	mlen = in->size - mstart < LFP_PIECE ? (size_t)(in->size - mstart) :
	    LFP_PIECE;
	m = mmap(NULL, mlen, PROT_READ, MAP_PRIVATE, LFP_FD_INPUT,
	    (off_t)mstart);
	if (m == MAP_FAILED) {
		if (in->next != 0)
			return -1;
		/* Not mappable (some file systems): read it instead. */
		in->mode = IN_READ;
		return input_read(in);
	}
	in->map = m;
	in->maplen = mlen;
	in->p = (const uint8_t *)m + (start - mstart);
	in->len = (size_t)(mstart + mlen - start);
	in->off = start;
	in->next = mstart + mlen;
	return 1;
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

#if defined(__x86_64__)
/* XCR0: which register state the kernel saves and restores. A CPU may have
 * AVX and the kernel not enable it (then the instructions fault). */
static uint64_t
xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static int
cpu_isa(void)
{
	unsigned a, b, c, d;
	uint64_t x;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return LFP_ISA_SCALAR;
	if (!(c & bit_SSSE3) || !(c & bit_SSE4_1))
		return LFP_ISA_SCALAR;
	if (!(c & bit_OSXSAVE) || !(c & bit_AVX))
		return LFP_ISA_SSE4;
	x = xcr0();
	if ((x & 0x06) != 0x06)			/* XMM, YMM */
		return LFP_ISA_SSE4;
	if (__get_cpuid_max(0, NULL) < 7)
		return LFP_ISA_SSE4;
	__cpuid_count(7, 0, a, b, c, d);
	if (!(b & bit_AVX2) || !(b & bit_BMI) || !(b & bit_BMI2))
		return LFP_ISA_SSE4;
	if ((b & bit_AVX512F) && (b & bit_AVX512BW) &&
	    (c & bit_AVX512VBMI) && (c & bit_AVX512VBMI2) &&
	    (x & 0xe6) == 0xe6)			/* + opmask, ZMM0-15 high, ZMM16-31 */
		return LFP_ISA_AVX512;
	return LFP_ISA_AVX2;
}
#else
static int
cpu_isa(void)
{
	return LFP_ISA_SCALAR;
}
#endif

int
lfp_cpu_isa(void)
{
	static int isa = -1;

	if (isa < 0)
		isa = cpu_isa();
	return isa;
}
