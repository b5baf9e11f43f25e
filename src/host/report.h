/* The report every host check fills (docs/isolation.md: each condition's
 * stable name, whether it holds, and our text), and the small text
 * helpers the checks share: the detail's escape for values read from
 * files, and a strict field splitter. */
#ifndef LOCKFILE_HOST_REPORT_H
#define LOCKFILE_HOST_REPORT_H

#include <stddef.h>

#define ISO_MAX_CHECKS 16
#define ISO_DETAIL_MAX 200

struct iso_check {
	const char *name;	/* stable, documented in docs/isolation.md */
	int ok;
	char detail[ISO_DETAIL_MAX];	/* our text; values from files escaped */
};

struct iso_report {
	int container;		/* 1 when the declaration file exists */
	size_t n;
	struct iso_check c[ISO_MAX_CHECKS];
};

/* The first failing condition of r as "name: detail" into out. */
void isolation_first_failure(const struct iso_report *r, char *out,
    size_t outlen);

/* Append a condition to r; the detail is formatted from our own text and
 * values already escaped (iso_escape). */
void iso_add(struct iso_report *r, const char *name, int ok,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The next field of *cur up to sep, in place (separators are not merged:
 * an empty field is a field). NULL at the end. */
char *iso_tok_next(char **cur, char sep);

/* Escape untrusted bytes (process names, file text) for a detail. */
void iso_escape(const char *in, char *out, size_t outlen);

#endif
