/* Hashing, hex and randomness (see crypto.h). */
#include "lib/crypto.h"
#include "lib/log.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

static int
sha256_stream(int fd, int use_pread, uint8_t out[SHA256_LEN])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	static __thread uint8_t chunk[1 << 16];
	off_t off = 0;
	int ret = -1;

	if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	for (;;) {
		ssize_t n = use_pread ? pread(fd, chunk, sizeof(chunk), off)
		    : read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto out;
		}
		if (n == 0)
			break;
		off += n;
		if (EVP_DigestUpdate(ctx, chunk, (size_t)n) != 1)
			goto out;
	}
	if (EVP_DigestFinal_ex(ctx, out, NULL) != 1)
		goto out;
	ret = 0;
out:
	OPENSSL_cleanse(chunk, sizeof(chunk));
	EVP_MD_CTX_free(ctx);
	return ret;
}

int
sha256_fd(int fd, uint8_t out[SHA256_LEN])
{
	return sha256_stream(fd, 0, out);
}

int
sha256_fd_pread(int fd, uint8_t out[SHA256_LEN])
{
	return sha256_stream(fd, 1, out);
}

void
sha256_mem(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	if (EVP_Digest(data, len, out, NULL, EVP_sha256(), NULL) != 1)
		fatal("sha256 failed");
}

void
hex_encode(const uint8_t *in, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex[in[i] >> 4];
		out[2 * i + 1] = hex[in[i] & 15];
	}
	out[2 * len] = '\0';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
hex_decode(const char *in, uint8_t *out, size_t outlen)
{
	size_t i;

	if (strlen(in) != 2 * outlen)
		return -1;
	for (i = 0; i < outlen; i++) {
		int hi = hexval(in[2 * i]), lo = hexval(in[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int
is_lower_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (hexval(s[i]) < 0)
			return 0;
	return 1;
}

int
ct_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

void
random_bytes(void *out, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = getrandom((char *)out + off, len - off, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fatal_errno("getrandom");
		}
		off += (size_t)n;
	}
}

void
random_id(const char *prefix, char *out, size_t outlen)
{
	uint8_t r[ID_HEX_LEN / 2];
	size_t plen = strlen(prefix);

	ASSERT(outlen >= plen + ID_HEX_LEN + 1);
	random_bytes(r, sizeof(r));
	memcpy(out, prefix, plen);
	hex_encode(r, sizeof(r), out + plen);
}

int
id_is_valid(const char *s, const char *prefix)
{
	size_t plen = strlen(prefix);

	if (s == NULL || strncmp(s, prefix, plen) != 0)
		return 0;
	if (strlen(s) != plen + ID_HEX_LEN)
		return 0;
	return is_lower_hex(s + plen, ID_HEX_LEN);
}
