/* Internals shared by isolation.c, isolation_term.c and isolation_util.c:
 * one strict reader of /proc/<pid>/status, a field splitter and the report
 * builder. Not a public face. */
#ifndef LOCKFILE_ISOLATION_INT_H
#define LOCKFILE_ISOLATION_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "console/isolation.h"

/* The fields of a status file the checks use. A field that is absent keeps
 * its "unknown" value (-1, or n* = 0). */
struct proc_status {
	char name[64];		/* escaped by the kernel for \n and \\ only */
	long long ppid;
	int nuid;
	unsigned long long uid[4];	/* real, effective, saved, fs */
	int nnspid;
	unsigned long long nspid_last;
	int seccomp;
	int nnp;
	int threads;
	int have_caps;
	unsigned long long capeff, capprm, capamb;
};

/* Read and parse the status file at path (e.g. "/proc/self/status").
 * 0, or -1 with errno (ENOENT or ESRCH: the task is gone; EINVAL: the file
 * does not parse). */
int proc_status_read(const char *path, struct proc_status *ps);

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
