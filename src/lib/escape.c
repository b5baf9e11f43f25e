/* Terminal-safe escaping (see escape.h for the rule). */
#include "lib/escape.h"

#include <string.h>

size_t
escape_text(const char *in, size_t inlen, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0, need = 0;
	int truncated = 0;

	for (i = 0; i < inlen; i++) {
		unsigned char c = (unsigned char)in[i];
		char tmp[4];
		size_t n;

		if (c == '\\') {
			tmp[0] = '\\'; tmp[1] = '\\'; n = 2;
		} else if (c >= 0x20 && c < 0x7f) {
			tmp[0] = (char)c; n = 1;
		} else {
			tmp[0] = '\\'; tmp[1] = 'x';
			tmp[2] = hex[c >> 4]; tmp[3] = hex[c & 15]; n = 4;
		}
		need += n;
		if (!truncated && outlen > 0 && o + n + 4 <= outlen) {
			memcpy(out + o, tmp, n);
			o += n;
		} else if (!truncated) {
			truncated = 1;
		}
	}
	if (outlen > 0) {
		if (truncated && o + 4 <= outlen) {
			memcpy(out + o, "...", 3);
			o += 3;
		}
		out[o < outlen ? o : outlen - 1] = '\0';
	}
	return need;
}

int
text_is_plain(const char *in, size_t inlen)
{
	size_t i;

	for (i = 0; i < inlen; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c < 0x20 || c >= 0x7f)
			return 0;
	}
	return 1;
}
