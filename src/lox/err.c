/* lox: the error line every lox file shares (lox.h). Its own file, below
 * the others: images.c and docker.c both report through it, and neither
 * then depends on the other for it (scripts/lint/cycles). */
#include "config.h"
#include "lox/lox.h"
#include "lib/escape.h"
#include "lib/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
lox_err(const char *fmt, ...)
{
	char raw[1024], esc[2048];
	va_list ap;

	va_start(ap, fmt);
	str_vmsg(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	escape_text(raw, strlen(raw), esc, sizeof(esc));
	fprintf(stderr, "lox: %s\n", esc);
}
