/* The mount table of a mount namespace (/proc/PID/mountinfo) and the
 * options of its procfs mounts, shared by the /proc checks of isolation.c
 * and the host declaration of isolation_host.c. Not a public face. */
#ifndef LOCKFILE_CONSOLE_MOUNTINFO_H
#define LOCKFILE_CONSOLE_MOUNTINFO_H

#include "term/iso.h"

/* One line of a mountinfo file: "id parent maj:min root mountpoint opts
 * [tags...] - type source super-opts". Fields point into the line (the
 * mountpoint still octal-escaped by the kernel, as "\040" for a space). */
struct mount_entry {
	unsigned long long id, parent;
	const char *mountpoint;
	const char *fstype;
	char *super_opts;	/* may be rewritten by the options parser */
};

/* Call fn for each entry of the mountinfo file at path until it returns
 * non-zero (which is returned). -1 when the file cannot be read or a line
 * does not parse (fail closed: an entry we cannot read may be the one). */
int iso_mountinfo_each(const char *path,
    int (*fn)(struct mount_entry *e, void *arg), void *arg);

/* The options of a procfs mount that matter here. */
struct proc_mount {
	int found;
	int hidepid;		/* 0 off, 1 noaccess, 2 invisible, 4 ptraceable */
	unsigned long long gid;	/* the exempt group; the kernel's default 0 */
	int bad_opts;
};

void iso_parse_proc_opts(char *opts, struct proc_mount *m);

/* The host-mode checks beyond the /proc mount itself (isolation_host.c):
 * proc.mounts (every procfs of this mount namespace hides) and proc.host
 * (this /proc is the mount root declared the host's in host.toml). */
void iso_check_host_declared(const struct iso_agents *a, struct iso_report *r);

#endif
