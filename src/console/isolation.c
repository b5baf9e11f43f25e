/* Isolation checks (see isolation.h). */
#include "console/isolation.h"
#include "console/console.h"

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

/* The mount options of the procfs mounted on /proc, from mountinfo
 * (super options are the last field). */
static int
proc_super_options(char *out, size_t outlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* id parent major:minor root mountpoint opts [tags] - fstype src
		 * superopts */
		char *dash = strstr(line, " - "), *p = line, *mnt, *fs, *sup;
		int i;

		if (dash == NULL)
			continue;
		*dash = '\0';
		for (i = 0; i < 4 && p != NULL; i++) {
			p = strchr(p, ' ');
			if (p != NULL)
				p++;
		}
		if (p == NULL)
			continue;
		mnt = p;
		p = strchr(mnt, ' ');
		if (p != NULL)
			*p = '\0';
		fs = dash + 3;
		p = strchr(fs, ' ');
		if (p == NULL)
			continue;
		*p++ = '\0';
		sup = strchr(p, ' ');
		if (sup == NULL)
			continue;
		sup++;
		sup[strcspn(sup, " \n")] = '\0';
		if (strcmp(mnt, "/proc") == 0 && strcmp(fs, "proc") == 0) {
			snprintf(out, outlen, "%s", sup);
			found = 0;	/* the last mount on /proc is the one seen */
		}
	}
	fclose(f);
	return found;
}

static int
has_opt(const char *opts, const char *want)
{
	size_t n = strlen(want);
	const char *p = opts;

	while ((p = strstr(p, want)) != NULL) {
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

int
isolation_proc_hidden(const struct console *c, const char **why)
{
	char opts[1024];
	struct statfs sf;
	const char *g;

	(void)c;
	if (statfs("/proc", &sf) != 0 || sf.f_type != PROC_SUPER_MAGIC) {
		*why = "/proc is not a procfs";
		return -1;
	}
	if (proc_super_options(opts, sizeof(opts)) != 0) {
		*why = "/proc mount options cannot be read";
		return -1;
	}
	if (!has_opt(opts, "hidepid=invisible") && !has_opt(opts, "hidepid=2")) {
		*why = "/proc is not mounted hidepid=invisible";
		return -1;
	}
	/* gid= lets one group see everything: it must not be a group an
	 * agent could be in (the clients group, or group 0). */
	g = strstr(opts, "gid=");
	if (g != NULL && (g == opts || g[-1] == ',')) {
		long gid = strtol(g + 4, NULL, 10);
		if (gid == 0 || (c->lis.have_clients_gid &&
		    (gid_t)gid == c->lis.clients_gid)) {
			*why = "/proc hidepid gid= is a group agents may have";
			return -1;
		}
	}
	return 0;
}
