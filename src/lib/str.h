/* Formatting into fixed-size buffers, the only way the tree does it
 * (scripts/lint/banned refuses snprintf anywhere else; docs/testing.md,
 * "Lint").
 *
 * str_fmt is for text a program uses: paths, names, keys, protocol text.
 * Truncation there changes what is opened or compared, so it is an error
 * the compiler makes every caller handle (warn_unused_result, -Werror),
 * and the buffer is left empty rather than holding a prefix.
 *
 * str_msg is for text a human reads and nothing parses: a refusal's reason,
 * a detail line, a log message. It cuts to fit, never inside a UTF-8
 * sequence, and returns nothing to check. */
#ifndef LOCKFILE_STR_H
#define LOCKFILE_STR_H

#include <stdarg.h>
#include <stddef.h>

enum str_err {
	STR_OK = 0,
	STR_E_TRUNCATED,	/* did not fit (dst emptied) */
	STR_E_FORMAT,		/* the C library refused the format */
	STR_E_NO_DIR,		/* str_dirname: no directory part */
};

enum str_err str_fmt(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), warn_unused_result));
enum str_err str_vfmt(char *dst, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0), warn_unused_result));

void str_msg(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void str_vmsg(char *dst, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* The directory part of an absolute or relative path ("/run/lf/sock" ->
 * "/run/lf"): STR_E_NO_DIR when there is no slash or only the leading
 * one, STR_E_TRUNCATED when it does not fit (out is empty then). */
enum str_err str_dirname(const char *path, char *out, size_t outlen)
    __attribute__((warn_unused_result));

#endif
