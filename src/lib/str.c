/* Checked and cutting formatting (see str.h). */
#include "lib/str.h"

#include <stdio.h>
#include <string.h>

enum str_err
str_vfmt(char *dst, size_t size, const char *fmt, va_list ap)
{
	int n;

	if (size == 0)
		return STR_E_TRUNCATED;
	n = vsnprintf(dst, size, fmt, ap);
	if (n < 0) {
		dst[0] = '\0';
		return STR_E_FORMAT;
	}
	if ((size_t)n >= size) {
		dst[0] = '\0';
		return STR_E_TRUNCATED;
	}
	return STR_OK;
}

enum str_err
str_fmt(char *dst, size_t size, const char *fmt, ...)
{
	enum str_err r;
	va_list ap;

	va_start(ap, fmt);
	r = str_vfmt(dst, size, fmt, ap);
	va_end(ap);
	return r;
}

void
str_vmsg(char *dst, size_t size, const char *fmt, va_list ap)
{
	size_t end;
	int n;

	if (size == 0)
		return;
	n = vsnprintf(dst, size, fmt, ap);
	if (n < 0) {
		dst[0] = '\0';
		return;
	}
	if ((size_t)n < size)
		return;
	/* Cut: drop a multi-byte sequence the cut split (continuation bytes
	 * back to their lead byte, then the lead byte). */
	end = size - 1;
	if (end > 0 && ((unsigned char)dst[end - 1] & 0x80) != 0) {
		size_t i = end;
		while (i > 0 && ((unsigned char)dst[i - 1] & 0xc0) == 0x80)
			i--;
		if (i > 0 && ((unsigned char)dst[i - 1] & 0xc0) == 0xc0) {
			unsigned char lead = (unsigned char)dst[i - 1];
			size_t want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
			if (end - (i - 1) < want)
				end = i - 1;
		}
	}
	dst[end] = '\0';
}

void
str_msg(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	str_vmsg(dst, size, fmt, ap);
	va_end(ap);
}

enum str_err
str_dirname(const char *path, char *out, size_t outlen)
{
	const char *slash = strrchr(path, '/');

	if (outlen > 0)
		out[0] = '\0';
	if (slash == NULL || slash == path)
		return STR_E_NO_DIR;
	if ((size_t)(slash - path) >= outlen)
		return STR_E_TRUNCATED;
	memcpy(out, path, (size_t)(slash - path));
	out[slash - path] = '\0';
	return STR_OK;
}
