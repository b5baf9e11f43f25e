/* The one strict reader of /proc/PID/status (see host/proc.h): the
 * isolation checks and the sandbox's task count read it here. One read()
 * of the whole file, not stdio: the sandbox walks every process's status
 * before each plugin, most of what `lockfile sandbox-run` costs
 * (bench/README.md). */
#include "host/proc.h"
#include "lib/num.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/* Tab-separated decimal fields of a status value (strsep: an empty field
 * is a field, and fails parse_u64). Returns the number
 * parsed (at most max; past it the last slot keeps the last field), or -1
 * when a field is not a strict decimal. */
static int
parse_fields(char *v, unsigned long long *out, int max, int *total)
{
	char *cur = v, *tok;
	int n = 0;

	*total = 0;
	while ((tok = strsep(&cur, "\t")) != NULL) {
		unsigned long long x;
		if (parse_u64(tok, 0, ULLONG_MAX, &x) != 0)
			return -1;
		if (n < max)
			out[n++] = x;
		else
			out[max - 1] = x;	/* keep the last one */
		(*total)++;
	}
	return n;
}

static int
parse_hex64(const char *s, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i, n = strlen(s);

	if (n == 0 || n > 16)
		return -1;
	for (i = 0; i < n; i++) {
		char ch = s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' :
		    ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	return 0;
}

/* One line, its newline already cut. Only the fields below are looked
 * at; the others (most of the file) are passed on their first letter. */
static int
status_line(struct proc_status *ps, char *line)
{
	char *colon, *v;
	unsigned long long f[4];
	int total, n;

	if (strchr("NPUSTC", line[0]) == NULL || line[0] == '\0')
		return 0;
	if ((colon = strchr(line, ':')) == NULL)
		return 0;	/* not a field line: ignored */
	*colon = '\0';
	v = colon + 1;
	if (*v == '\t')
		v++;
	if (strcmp(line, "Name") == 0) {
		if (str_fmt(ps->name, sizeof(ps->name), "%s", v) != STR_OK)
			return -1;
	} else if (strcmp(line, "PPid") == 0) {
		if (parse_fields(v, f, 1, &total) != 1 || total != 1)
			return -1;
		ps->ppid = (long long)f[0];
	} else if (strcmp(line, "Uid") == 0) {
		n = parse_fields(v, ps->uid, 4, &total);
		if (n != 4 || total != 4)
			return -1;
		ps->nuid = 4;
	} else if (strcmp(line, "NSpid") == 0) {
		n = parse_fields(v, f, 1, &total);
		if (n != 1)
			return -1;
		ps->nnspid = total;
		ps->nspid_last = f[0];
	} else if (strcmp(line, "Seccomp") == 0 ||
	    strcmp(line, "NoNewPrivs") == 0 || strcmp(line, "Threads") == 0) {
		if (parse_fields(v, f, 1, &total) != 1 || total != 1 ||
		    f[0] > INT_MAX)
			return -1;
		if (line[0] == 'S')
			ps->seccomp = (int)f[0];
		else if (line[0] == 'N')
			ps->nnp = (int)f[0];
		else
			ps->threads = (int)f[0];
	} else if (strcmp(line, "CapEff") == 0 || strcmp(line, "CapPrm") == 0 ||
	    strcmp(line, "CapAmb") == 0) {
		unsigned long long x;
		if (parse_hex64(v, &x) != 0)
			return -1;
		if (line[3] == 'E')
			ps->capeff = x;
		else if (line[3] == 'P')
			ps->capprm = x;
		else
			ps->capamb = x;
		ps->have_caps++;
	}
	return 0;
}

int
proc_status_readat(int dirfd, const char *path, struct proc_status *ps)
{
	char buf[PROC_STATUS_MAX + 1], *line, *nl;
	ssize_t n;
	int fd, bad = 0;

	memset(ps, 0, sizeof(*ps));
	ps->ppid = -1;
	ps->seccomp = ps->nnp = ps->threads = -1;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -1;
	do {
		n = read(fd, buf, PROC_STATUS_MAX);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	/* Whole lines only: a line the read cut is never taken for a field
	 * (see host/proc.h); a NUL inside ends the text. */
	for (line = buf; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		if (status_line(ps, line) != 0)
			bad = 1;
	}
	if (bad || ps->nuid != 4) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
proc_status_read(const char *path, struct proc_status *ps)
{
	return proc_status_readat(AT_FDCWD, path, ps);
}
