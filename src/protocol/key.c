/* Key cleaning (see key.h). */
#include "protocol/key.h"

#include <string.h>

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Strict UTF-8: no overlongs, no surrogates, nothing above U+10FFFF. */
static int
utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i];
		size_t len, j;
		unsigned cp, min;

		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			len = 2; cp = c & 0x1f; min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3; cp = c & 0x0f; min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4; cp = c & 0x07; min = 0x10000;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (j = 1; j < len; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		/* C1 controls (U+0080..U+009F) are controls too. */
		if (cp >= 0x80 && cp <= 0x9f)
			return 0;
		i += len;
	}
	return 1;
}

enum key_status
key_clean(const char *raw, size_t rawlen, char *out, size_t outlen)
{
	char dec[PROTO_MAX_KEY + 1];
	size_t n = 0, i, o = 0;
	/* start offsets of the components written so far, for ".." */
	size_t starts[PROTO_MAX_KEY / 2 + 1];
	size_t depth = 0;

	if (rawlen > PROTO_MAX_KEY || outlen == 0)
		return KEY_TOO_LONG;
	for (i = 0; i < rawlen; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c == '%') {
			int hi, lo;
			if (i + 2 >= rawlen)
				return KEY_BAD_ESCAPE;
			hi = hexval((unsigned char)raw[i + 1]);
			lo = hexval((unsigned char)raw[i + 2]);
			if (hi < 0 || lo < 0)
				return KEY_BAD_ESCAPE;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			return KEY_FORBIDDEN_BYTE;
		dec[n++] = (char)c;
	}
	if (!utf8_valid((const unsigned char *)dec, n))
		return KEY_BAD_UTF8;
	if (n > 0 && dec[0] == '/')
		return KEY_ABSOLUTE;

	for (i = 0; i < n; ) {
		size_t j = i;
		while (j < n && dec[j] != '/')
			j++;
		size_t clen = j - i;
		if (clen == 0 || (clen == 1 && dec[i] == '.')) {
			/* empty or "." component: dropped */
		} else if (clen == 2 && dec[i] == '.' && dec[i + 1] == '.') {
			if (depth == 0)
				return KEY_ESCAPES_ROOT;
			o = starts[--depth];
		} else {
			if (o + (o > 0) + clen + 1 > outlen)
				return KEY_TOO_LONG;
			starts[depth++] = o;	/* ".." cuts back to here */
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, dec + i, clen);
			o += clen;
		}
		i = j + 1;
	}
	out[o] = '\0';
	if (o == 0)
		return KEY_EMPTY;
	return KEY_OK;
}

enum key_status
key_clean_in_prefix(const char *raw, size_t rawlen, const char *prefix,
    char *out, size_t outlen)
{
	enum key_status s = key_clean(raw, rawlen, out, outlen);
	size_t plen = strlen(prefix);

	if (s != KEY_OK)
		return s;
	if (plen > 0 && (strncmp(out, prefix, plen) != 0 || out[plen] == '\0'))
		return KEY_OUTSIDE_PREFIX;
	return KEY_OK;
}

const char *
key_status_name(enum key_status s)
{
	static const char *const names[] = {
		"ok", "bad-escape", "forbidden-byte", "bad-utf8", "absolute",
		"escapes-root", "empty", "too-long", "outside-prefix",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s]
	    : "unknown";
}
