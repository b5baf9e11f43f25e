/* Shared text checks (see text.h). */
#include "lib/text.h"

int
utf8_valid(const uint8_t *s, size_t n, int flags)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], cp, min;
		size_t len, j;

		if (c < 0x80) {
			if ((flags & UTF8_NO_CONTROLS) && (c < 0x20 || c == 0x7f))
				return 0;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2; cp = c & 0x1f; min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3; cp = c & 0x0f; min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4; cp = c & 0x07; min = 0x10000;
		} else {
			return 0;
		}
		if (len > n - i)
			return 0;
		for (j = 1; j < len; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		if ((flags & UTF8_NO_CONTROLS) && cp <= 0x9f)
			return 0;
		i += len;
	}
	return 1;
}

int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
