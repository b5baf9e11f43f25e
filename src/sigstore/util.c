/* Allocation, strict base64 and time parsing for the Sigstore verifier. */
#include "sigstore/internal.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/asn1.h>
#include <sodium.h>

/* A root-owned trust file must also sit in a root-owned directory that
 * nobody else can write: otherwise its owner check says nothing about who
 * chose it. The file is opened relative to the directory checked. */
static int
open_in_root_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;
	int dfd, fd;

	if (slash == NULL || slash[1] == '\0' ||
	    (size_t)(slash - path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash == path ? 1 : slash - path] = '\0';
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) != 0 || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(dfd);
		return -1;
	}
	fd = openat(dfd, slash + 1, OPEN_RO_SAFE);
	close(dfd);
	return fd;
}

int
sig_read_file(const char *path, size_t max, int require_root_owned,
    uint8_t **out, size_t *outlen)
{
	uint8_t *buf = NULL;
	ssize_t n;
	int fd, ret = SIGSTORE_E_IO;

	*out = NULL;
	*outlen = 0;
	fd = require_root_owned ? open_in_root_dir(path) :
	    open(path, OPEN_RO_SAFE);
	if (fd < 0)
		return SIGSTORE_E_IO;
	if (check_fd_owner_mode(fd, require_root_owned ? 0 : (uid_t)-1,
	    require_root_owned) != 0)
		goto out;
	buf = sig_malloc(max + 1);
	n = read_full(fd, buf, max + 1);
	if (n < 0)
		goto out;
	if ((size_t)n > max) {
		ret = SIGSTORE_E_TOO_BIG;
		goto out;
	}
	*out = buf;
	*outlen = (size_t)n;
	buf = NULL;
	ret = SIGSTORE_OK;
out:
	free(buf);
	if (close(fd) != 0 && ret == SIGSTORE_OK) {
		free(*out);
		*out = NULL;
		ret = SIGSTORE_E_IO;
	}
	return ret;
}

void *
sig_malloc(size_t n)
{
	return xcalloc(1, n);
}

char *
sig_strndup(const char *s, size_t n)
{
	char *p = sig_malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* libsodium's decoder is the strict one we want: standard alphabet, exact
 * padding, zero trailing bits, no whitespace (no "ignore" set), and it
 * reports where it stopped so trailing junk is refused. */
int
sig_b64_decode(const char *in, size_t inlen, size_t max, uint8_t **out,
    size_t *outlen)
{
	const char *end = NULL;
	size_t cap, n = 0;
	uint8_t *buf;

	*out = NULL;
	*outlen = 0;
	if (inlen == 0 || inlen % 4 != 0)
		return SIGSTORE_E_BASE64;
	cap = inlen / 4 * 3;
	if (cap - 2 > max)
		return SIGSTORE_E_TOO_BIG;
	buf = sig_malloc(cap);
	if (sodium_base642bin(buf, cap, in, inlen, NULL, &n, &end,
	    sodium_base64_VARIANT_ORIGINAL) != 0 || end != in + inlen ||
	    n == 0) {
		free(buf);
		return SIGSTORE_E_BASE64;
	}
	if (n > max) {
		free(buf);
		return SIGSTORE_E_TOO_BIG;
	}
	*out = buf;
	*outlen = n;
	return SIGSTORE_OK;
}

int
sig_b64_decode_fixed(const char *in, size_t inlen, uint8_t *out,
    size_t outlen)
{
	uint8_t *buf;
	size_t n;
	int r = sig_b64_decode(in, inlen, outlen, &buf, &n);

	if (r != SIGSTORE_OK)
		return r == SIGSTORE_E_TOO_BIG ? SIGSTORE_E_BASE64 : r;
	if (n != outlen) {
		free(buf);
		return SIGSTORE_E_BASE64;
	}
	memcpy(out, buf, n);
	free(buf);
	return SIGSTORE_OK;
}

char *
sig_b64_encode(const uint8_t *in, size_t len)
{
	size_t n = sodium_base64_ENCODED_LEN(len,
	    sodium_base64_VARIANT_ORIGINAL);
	char *out = sig_malloc(n);

	sodium_bin2base64(out, n, in, len, sodium_base64_VARIANT_ORIGINAL);
	return out;
}

static int
digits(const char *s, int n, int *out)
{
	int i, v = 0;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int
days_in_month(int y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
	    31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : d[m - 1];
}

static sig_time
from_seconds(long long sec, long long nsec)
{
	if (sec >= SIG_TIME_MAX / SIG_NS - 1)
		return SIG_TIME_MAX;
	if (sec <= INT64_MIN / SIG_NS + 1)
		return INT64_MIN;
	return (sig_time)sec * SIG_NS + nsec;
}

int
sig_parse_rfc3339(const char *s, sig_time *out)
{
	int y, mo, d, h, mi, sec, i;
	long long frac = 0;
	size_t len = strlen(s), p = 19;
	struct tm tm;
	time_t t;

	if (len < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
	    s[13] != ':' || s[16] != ':')
		return SIGSTORE_E_ROOT_VALIDITY;
	if (digits(s, 4, &y) || digits(s + 5, 2, &mo) ||
	    digits(s + 8, 2, &d) || digits(s + 11, 2, &h) ||
	    digits(s + 14, 2, &mi) || digits(s + 17, 2, &sec))
		return SIGSTORE_E_ROOT_VALIDITY;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 59)
		return SIGSTORE_E_ROOT_VALIDITY;
	if (s[p] == '.') {
		int nd = 0;
		for (p++; p < len && s[p] >= '0' && s[p] <= '9'; p++) {
			if (++nd > 9)
				return SIGSTORE_E_ROOT_VALIDITY;
			frac = frac * 10 + (s[p] - '0');
		}
		if (nd == 0)
			return SIGSTORE_E_ROOT_VALIDITY;
		for (i = nd; i < 9; i++)
			frac *= 10;
	}
	if (p + 1 != len || s[p] != 'Z')
		return SIGSTORE_E_ROOT_VALIDITY;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return SIGSTORE_E_ROOT_VALIDITY;
	*out = from_seconds((long long)t, frac);
	return SIGSTORE_OK;
}

/* The fraction of a GeneralizedTime ("YYYYMMDDHHMMSS.fffZ") in
 * nanoseconds (digits past the ninth dropped); 0 without one. -1 when
 * what follows the dot is not digits up to the Z. */
static long long
generalized_fraction(const ASN1_TIME *at)
{
	const unsigned char *d = ASN1_STRING_get0_data(at);
	int n = ASN1_STRING_length(at), i, digits = 0;
	long long ns = 0;

	if (ASN1_STRING_type(at) != V_ASN1_GENERALIZEDTIME || n < 16 ||
	    d[14] != '.')
		return 0;
	for (i = 15; i < n && d[i] >= '0' && d[i] <= '9'; i++)
		if (digits++ < 9)
			ns = ns * 10 + (d[i] - '0');
	if (digits == 0 || i != n - 1 || d[i] != 'Z')
		return -1;
	for (; digits < 9; digits++)
		ns *= 10;
	return ns;
}

int
sig_asn1_time(const ASN1_TIME *at, sig_time *out)
{
	long long frac;
	struct tm tm;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (at == NULL || ASN1_TIME_to_tm(at, &tm) != 1)
		return SIGSTORE_E_DER;
	t = timegm(&tm);
	/* RFC 3161 genTime may carry a fraction: times are compared in
	 * nanoseconds (docs/sigstore.md), so it is kept, not floored. */
	frac = generalized_fraction(at);
	if (t == (time_t)-1 || frac < 0)
		return SIGSTORE_E_DER;
	*out = from_seconds((long long)t, frac);
	return SIGSTORE_OK;
}
