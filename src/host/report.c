/* The report builder and the text helpers the host checks share (see
 * host/report.h). */
#include "host/report.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdarg.h>
#include <string.h>

void
iso_escape(const char *in, char *out, size_t outlen)
{
	escape_text(in, strlen(in), out, outlen);
}

void
iso_add(struct iso_report *r, const char *name, int ok, const char *fmt, ...)
{
	struct iso_check *c;
	va_list ap;

	ASSERT(r->n < ISO_MAX_CHECKS);
	c = &r->c[r->n++];
	c->name = name;
	c->ok = ok;
	va_start(ap, fmt);
	str_vmsg(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void
isolation_first_failure(const struct iso_report *r, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!r->c[i].ok) {
			str_msg(out, outlen, "%s: %s", r->c[i].name,
			    r->c[i].detail);
			return;
		}
	str_msg(out, outlen, "all conditions hold");
}

/* The next field of *cur up to sep (separators are not merged: an empty
 * field is a field, and fails the strict parsers). NULL at the end. */
char *
iso_tok_next(char **cur, char sep)
{
	char *t = *cur, *e;

	if (t == NULL)
		return NULL;
	e = strchr(t, sep);
	if (e != NULL) {
		*e = '\0';
		*cur = e + 1;
	} else {
		*cur = NULL;
	}
	return t;
}

