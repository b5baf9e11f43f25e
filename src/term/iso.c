/* The helpers shared by the isolation checks (see term/iso.h): the
 * report builder, the strict reader of /proc/<pid>/status, and which
 * groups the allowed agents have (from the password and group databases;
 * an agent whose groups cannot be known counts as having every group). */
#include "term/iso.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ENUM 100000		/* password entries walked */

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

/* Tab-separated decimal fields of a status value. Returns the number
 * parsed (at most max; past it the last slot keeps the last field), or -1
 * when a field is not a strict decimal. */
static int
parse_fields(char *v, unsigned long long *out, int max, int *total)
{
	char *cur = v, *tok;
	int n = 0;

	*total = 0;
	while ((tok = iso_tok_next(&cur, '\t')) != NULL) {
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

static int
status_line(struct proc_status *ps, char *line)
{
	char *colon = strchr(line, ':'), *v;
	unsigned long long f[4];
	int total, n;

	if (colon == NULL)
		return 0;	/* not a field line: ignored */
	*colon = '\0';
	v = colon + 1;
	if (*v == '\t')
		v++;
	v[strcspn(v, "\n")] = '\0';
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
proc_status_read(const char *path, struct proc_status *ps)
{
	char line[512];
	int cont = 0, bad = 0;
	FILE *f;

	memset(ps, 0, sizeof(*ps));
	ps->ppid = -1;
	ps->seccomp = ps->nnp = ps->threads = -1;
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	/* Lines are read in bounded chunks; the tail of a long line (a large
	 * Groups: list) is skipped, never taken for a field. */
	while (fgets(line, sizeof(line), f) != NULL) {
		int whole = strchr(line, '\n') != NULL;
		if (!cont && status_line(ps, line) != 0)
			bad = 1;
		cont = !whole;
	}
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		errno = e;
		return -1;
	}
	fclose(f);
	if (bad || ps->nuid != 4) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* ---- agents and their groups ---- */

static int
user_has_gid(const char *name, gid_t primary, gid_t g)
{
	gid_t small[64], *groups = small;
	int n = 64, i, found = 0;

	if (primary == g)
		return 1;
	if (getgrouplist(name, primary, groups, &n) < 0) {
		if (n <= 64 || n > 65536)
			return 1;	/* cannot list: fail closed */
		groups = calloc((size_t)n, sizeof(gid_t));
		if (groups == NULL)
			fatal("out of memory");
		if (getgrouplist(name, primary, groups, &n) < 0) {
			free(groups);
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		if (groups[i] == g)
			found = 1;
	if (groups != small)
		free(groups);
	return found;
}

static int
uid_has_gid(const struct iso_agents *a, uid_t uid, gid_t g, char *who,
    size_t wholen)
{
	struct passwd *pw;

	if (uid == a->console_uid || uid == 0)
		return 0;
	pw = getpwuid(uid);
	if (pw == NULL) {
		str_msg(who, wholen, "allowed uid %u has no account, so its "
		    "groups cannot be known", (unsigned)uid);
		return 1;
	}
	if (user_has_gid(pw->pw_name, pw->pw_gid, g)) {
		str_msg(who, wholen, "agent uid %u has group %u", (unsigned)uid,
		    (unsigned)g);
		return 1;
	}
	return 0;
}

/* Every account but the console account and root: a listed member of g,
 * or an account with g as its primary or supplementary group. */
static int
anyone_has_gid(const struct iso_agents *a, gid_t g, char *who, size_t wholen)
{
	struct passwd *con = getpwuid(a->console_uid);
	char conname[256] = "";
	struct group *gr;
	struct passwd *pw;
	size_t n = 0;
	int found = 0;
	char **m;

	if (con != NULL && str_fmt(conname, sizeof(conname), "%s",
	    con->pw_name) != STR_OK) {
		str_msg(who, wholen, "the console account's name is too long "
		    "to compare");
		return 1;
	}
	gr = getgrgid(g);
	for (m = gr != NULL ? gr->gr_mem : NULL; m != NULL && *m != NULL; m++)
		if (strcmp(*m, conname) != 0 && strcmp(*m, "root") != 0) {
			str_msg(who, wholen, "group %u has members other than "
			    "the console account", (unsigned)g);
			return 1;
		}
	setpwent();
	while (!found && (pw = getpwent()) != NULL && n++ < MAX_ENUM)
		if (pw->pw_uid != a->console_uid && pw->pw_uid != 0 &&
		    user_has_gid(pw->pw_name, pw->pw_gid, g)) {
			str_msg(who, wholen, "uid %u has group %u",
			    (unsigned)pw->pw_uid, (unsigned)g);
			found = 1;
		}
	endpwent();
	if (n >= MAX_ENUM) {
		str_msg(who, wholen, "too many accounts to check");
		return 1;
	}
	return found;
}

int
iso_agent_has_gid(const struct iso_agents *a, gid_t g, char *who,
    size_t wholen)
{
	size_t i, n = 0;
	struct passwd *pw;
	struct group *gr;
	int found = 0;

	if (a->everyone)
		return anyone_has_gid(a, g, who, wholen);
	for (i = 0; i < a->nallowed; i++)
		if (uid_has_gid(a, a->allowed[i], g, who, wholen))
			return 1;
	if (!a->have_clients_gid)
		return 0;
	if (g == a->clients_gid) {
		str_msg(who, wholen, "group %u is the clients group", (unsigned)g);
		return 1;
	}
	/* Members of the clients group: listed in it, or with it as their
	 * primary group. */
	gr = getgrgid(a->clients_gid);
	if (gr != NULL) {
		char **names, **m;
		size_t k = 0;
		for (m = gr->gr_mem; m != NULL && *m != NULL; m++)
			k++;
		/* getpwnam below reuses NSS buffers: copy the names first. */
		names = calloc(k + 1, sizeof(char *));
		if (names == NULL)
			fatal("out of memory");
		for (i = 0; i < k; i++)
			if ((names[i] = strdup(gr->gr_mem[i])) == NULL)
				fatal("out of memory");
		for (i = 0; i < k && !found; i++) {
			pw = getpwnam(names[i]);
			if (pw != NULL)
				found = uid_has_gid(a, pw->pw_uid, g, who, wholen);
		}
		for (i = 0; i < k; i++)
			free(names[i]);
		free(names);
		if (found)
			return 1;
	}
	setpwent();
	while (!found && (pw = getpwent()) != NULL && n++ < MAX_ENUM)
		if (pw->pw_gid == a->clients_gid && pw->pw_uid != a->console_uid &&
		    pw->pw_uid != 0 &&
		    user_has_gid(pw->pw_name, pw->pw_gid, g)) {
			str_msg(who, wholen, "agent uid %u has group %u",
			    (unsigned)pw->pw_uid, (unsigned)g);
			found = 1;
		}
	endpwent();
	if (n >= MAX_ENUM) {
		str_msg(who, wholen, "too many accounts to check");
		return 1;
	}
	return found;
}

