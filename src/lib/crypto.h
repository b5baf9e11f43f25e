/* Hashing, hex and random identifiers. SHA-256 through OpenSSL's EVP;
 * randomness from the kernel's CSPRNG (getrandom), never a counter. */
#ifndef LOCKFILE_CRYPTO_H
#define LOCKFILE_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN 64

/* Hash everything readable from fd (from its current offset). 0 or -1. */
int sha256_fd(int fd, uint8_t out[SHA256_LEN]);
/* Hash a whole opened file with pread from offset 0 (offset untouched). */
int sha256_fd_pread(int fd, uint8_t out[SHA256_LEN]);
void sha256_mem(const void *data, size_t len, uint8_t out[SHA256_LEN]);

void hex_encode(const uint8_t *in, size_t len, char *out /* 2*len+1 */);
/* Lowercase hex only; exact length. 0 or -1. */
int hex_decode(const char *in, uint8_t *out, size_t outlen);
int is_lower_hex(const char *s, size_t len);

/* Constant-time comparison of equal-length byte strings: 1 when equal. */
int ct_equal(const void *a, const void *b, size_t len);

/* Random bytes from getrandom(); aborts if the kernel cannot provide them. */
void random_bytes(void *out, size_t len);

/* An identifier: prefix followed by 32 lowercase hex digits (128 bits). */
#define ID_HEX_LEN 32
void random_id(const char *prefix, char *out, size_t outlen);
/* 1 when s is exactly prefix + 32 lowercase hex digits. */
int id_is_valid(const char *s, const char *prefix);

#endif
