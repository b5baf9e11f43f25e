/* SHA-256 and constant-time comparison through OpenSSL (see crypto.h;
 * hex and randomness are crypto_id.c). */
#include "lib/crypto.h"
#include "lib/log.h"

#include <errno.h>
#include <string.h>
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

int
ct_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}
