/* Facts only observable before the console confines itself: its own
 * filter and no_new_privs would mask the container's (docs/isolation.md,
 * "container.seccomp"). A seccomp filter and no_new_privs cannot be
 * removed, so what is seen here holds for the process's life. Taken by
 * the console before it confines itself (console.c); doctor takes a fresh
 * one. */
#ifndef LOCKFILE_HOST_SNAPSHOT_H
#define LOCKFILE_HOST_SNAPSHOT_H

struct iso_snapshot {
	int taken;
	int seccomp_mode;	/* "Seccomp:" of /proc/self/status, -1 unknown */
	int filter_refuses;	/* a filter refused every probe (snapshot.c) */
	int probe_errno;	/* clone3's */
	const char *probe_passed;	/* the first probe the kernel answered */
	int nnp;		/* "NoNewPrivs:" */
};

/* Record the pre-confinement facts. */
void isolation_snapshot(struct iso_snapshot *s);

#endif
