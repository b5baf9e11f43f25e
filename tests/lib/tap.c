/* The one TAP writer of the C tests (tap.h). */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int ntest, nfail, planned;

/* Writes s with the characters that could end a TAP line replaced by '?':
 * '\n' (TAP), and what Python's str.splitlines() also splits on, as
 * tests/run-all and run-confine.py read the output: '\r', '\v', '\f',
 * 0x1c-0x1e, and U+0085, U+2028, U+2029 in UTF-8. With hash, '#' too (in
 * a description it would start a directive: "# SKIP" turns a failure into
 * a pass). */
static void
put_clean(const char *s, int hash)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p != '\0') {
		if (p[0] == 0xc2 && p[1] == 0x85) {
			p += 2;
			putchar('?');
		} else if (p[0] == 0xe2 && p[1] == 0x80 &&
		    (p[2] == 0xa8 || p[2] == 0xa9)) {
			p += 3;
			putchar('?');
		} else if (*p == '\n' || *p == '\r' || *p == '\v' ||
		    *p == '\f' || (*p >= 0x1c && *p <= 0x1e) ||
		    (hash && *p == '#')) {
			p++;
			putchar('?');
		} else
			putchar(*p++);
	}
}

/* The formatted text (vasprintf: _GNU_SOURCE, meson.build), or NULL when
 * memory runs out: the caller then writes a fixed text, since the line must
 * still be written (the count is the test). */
static char *format(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

static char *
format(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static void
result(int cond, const char *desc, const char *directive, const char *note)
{
	printf("%s %d - ", cond ? "ok" : "not ok", ++ntest);
	put_clean(desc != NULL ? desc : "(out of memory)", 1);
	if (directive != NULL)
		printf(" # %s", directive);
	if (note != NULL) {
		/* A note that reads as a directive would make one of it. */
		if (directive == NULL && (strncasecmp(note, "skip", 4) == 0 ||
		    strncasecmp(note, "todo", 4) == 0))
			printf(" # why: ");
		else
			printf(directive == NULL ? " # " : " ");
		put_clean(note, 1);
	}
	putchar('\n');
	fflush(stdout);
	if (!cond)
		nfail++;
}

void
tap_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
	planned = 1;
}

int
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	char *desc;

	va_start(ap, fmt);
	desc = format(fmt, ap);
	va_end(ap);
	result(cond, desc, NULL, NULL);
	free(desc);
	return cond;
}

int
tap_okwhy(int cond, const char *why, const char *fmt, ...)
{
	va_list ap;
	char *desc;

	va_start(ap, fmt);
	desc = format(fmt, ap);
	va_end(ap);
	result(cond, desc, NULL, cond ? NULL : why);
	free(desc);
	return cond;
}

void
tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;
	char *desc;

	va_start(ap, fmt);
	desc = format(fmt, ap);
	va_end(ap);
	result(1, desc, "SKIP", reason);
	free(desc);
}

void
tap_diag(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = format(fmt, ap);
	va_end(ap);
	printf("# ");
	put_clean(s != NULL ? s : "(out of memory)", 0);
	putchar('\n');
	fflush(stdout);
	free(s);
}

void
tap_bail(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = format(fmt, ap);
	va_end(ap);
	printf("Bail out! ");
	put_clean(s != NULL ? s : "(out of memory)", 0);
	putchar('\n');
	fflush(stdout);
	free(s);
	exit(1);
}

void
tap_fail_setup(const char *fmt, ...)
{
	va_list ap;
	char *desc;

	va_start(ap, fmt);
	desc = format(fmt, ap);
	va_end(ap);
	if (!planned && ntest == 0)
		tap_plan(1);
	result(0, desc, NULL, NULL);
	free(desc);
	(void)tap_done();
	exit(1);
}

int
tap_done(void)
{
	if (!planned)
		tap_plan(ntest);
	return nfail ? 1 : 0;
}
