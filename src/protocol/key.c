/* Key cleaning (see key.h). */
#include "protocol/key.h"
#include "lib/text.h"

#include <string.h>

enum key_status
key_clean(const char *raw, size_t rawlen, char *out, size_t outlen)
{
	char dec[PROTO_MAX_KEY + 1] = { 0 };
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
			hi = hex_digit((unsigned char)raw[i + 1]);
			lo = hex_digit((unsigned char)raw[i + 2]);
			if (hi < 0 || lo < 0)
				return KEY_BAD_ESCAPE;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			return KEY_FORBIDDEN_BYTE;
		dec[n++] = (char)c;
	}
	/* C0 and DEL were refused above; C1 controls are controls too. */
	if (!utf8_valid((const uint8_t *)dec, n, UTF8_NO_CONTROLS))
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
