/* The mount table of a mount namespace (/proc/PID/mountinfo) and the
 * options of its procfs mounts (mountinfo.c), read by host mode's checks
 * (hidepid.c), the host declaration (declared.c) and container mode's
 * (container.c). */
#ifndef LOCKFILE_HOST_MOUNTINFO_H
#define LOCKFILE_HOST_MOUNTINFO_H

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

/* Parse a procfs mount's super options (opts is split in place). */
void iso_parse_proc_opts(char *opts, struct proc_mount *m);

/* Find the mount that /proc is (by its mount id, so an over-mount or a
 * mount below /proc cannot be mistaken for it) and read its options. 0, or
 * -1 when it cannot be found or read. */
int iso_proc_mount_read(struct proc_mount *m);

/* 1 when /proc is a procfs (statfs). */
int iso_is_procfs(void);

#endif
