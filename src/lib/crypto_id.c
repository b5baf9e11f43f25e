/* Hex, randomness and random identifiers (crypto.h): the half of it that
 * needs no OpenSSL, in a file of its own so that an executable linked
 * statically (the agent's lockfile, the parser worker) takes these without
 * pulling libcrypto in (docs/hacking.md, "Executables"). */
#include "lib/crypto.h"
#include "lib/log.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

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
