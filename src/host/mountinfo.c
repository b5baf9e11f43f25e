/* The mount table of a mount namespace and the options of its procfs
 * mounts (see host/mountinfo.h). */
#include "host/mountinfo.h"
#include "host/report.h"
#include "lib/num.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#define MOUNTINFO_LINE (4 * PATH_MAX + 4096)

void
iso_parse_proc_opts(char *opts, struct proc_mount *m)
{
	char *cur = opts, *o;

	m->hidepid = 0;
	m->gid = 0;
	while ((o = iso_tok_next(&cur, ',')) != NULL) {
		if (strncmp(o, "hidepid=", 8) == 0) {
			const char *v = o + 8;
			if (strcmp(v, "invisible") == 0 || strcmp(v, "2") == 0)
				m->hidepid = 2;
			else if (strcmp(v, "noaccess") == 0 || strcmp(v, "1") == 0)
				m->hidepid = 1;
			else if (strcmp(v, "ptraceable") == 0 || strcmp(v, "4") == 0)
				m->hidepid = 4;
			else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
				m->hidepid = 0;
			else
				m->bad_opts = 1;
		} else if (strncmp(o, "gid=", 4) == 0) {
			if (parse_u64(o + 4, 0, 0xfffffffeULL, &m->gid) != 0)
				m->bad_opts = 1;
		}
	}
}

int
iso_mountinfo_each(const char *path,
    int (*fn)(struct mount_entry *e, void *arg), void *arg)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (f == NULL)
		return -1;
	while (ret == 0 && (len = getline(&line, &cap, f)) > 0) {
		/* id parent maj:min root mountpoint opts [tags...] - type src super */
		char *tok[64], *cur = line, *t;
		int n = 0, sep = -1, i;
		struct mount_entry e;

		/* A mount point is at most PATH_MAX bytes, four times that
		 * escaped; a line beyond is not one we can read: fail closed. */
		if (len > MOUNTINFO_LINE) {
			ret = -1;
			break;
		}
		line[strcspn(line, "\n")] = '\0';
		while (n < 64 && (t = iso_tok_next(&cur, ' ')) != NULL)
			tok[n++] = t;
		for (i = 6; i < n; i++)
			if (strcmp(tok[i], "-") == 0) {
				sep = i;
				break;
			}
		if (n < 7 || sep < 0 || sep + 3 >= n ||
		    parse_u64(tok[0], 0, ULLONG_MAX, &e.id) != 0 ||
		    parse_u64(tok[1], 0, ULLONG_MAX, &e.parent) != 0) {
			ret = -1;
			break;
		}
		e.mountpoint = tok[4];
		e.fstype = tok[sep + 1];
		e.super_opts = tok[sep + 3];
		ret = fn(&e, arg);
	}
	if (ferror(f))
		ret = -1;
	free(line);
	fclose(f);
	return ret;
}

struct find_mount {
	unsigned long long id;
	struct proc_mount *m;
};

static int
find_mount(struct mount_entry *e, void *arg)
{
	struct find_mount *fm = arg;

	if (e->id != fm->id)
		return 0;
	fm->m->found = 1;
	if (strcmp(e->fstype, "proc") != 0)
		fm->m->bad_opts = 1;
	else
		iso_parse_proc_opts(e->super_opts, fm->m);
	return 1;
}

int
iso_proc_mount_read(struct proc_mount *m)
{
	struct statx sx;
	struct find_mount fm = { .m = m };

	memset(m, 0, sizeof(*m));
	if (statx(AT_FDCWD, "/proc", AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) != 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return -1;
	fm.id = sx.stx_mnt_id;
	if (iso_mountinfo_each("/proc/self/mountinfo", find_mount, &fm) < 0)
		return -1;
	return m->found ? 0 : -1;
}

int
iso_is_procfs(void)
{
	struct statfs sf;

	return statfs("/proc", &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}
