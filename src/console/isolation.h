/* Isolation checks (docs/isolation.md): no other account
 * sees a plugin's processes, and the console's terminal is the human's.
 *
 * /proc, host mode (no container declaration): /proc is a procfs mounted
 * hidepid=invisible (or 2) whose gid= (default 0) is no group an allowed
 * agent has. Container mode (/etc/lockfile/container.toml, root-owned, not
 * writable by others): the declaration is valid; /proc is a procfs of the
 * console's own pid namespace that hides nothing from it; that namespace is
 * not the host's; every task listed runs as root or the console account
 * (all four uid fields); the console started under a seccomp filter that
 * refuses calls (not allow-all), with no_new_privs and no capabilities.
 * Run at console start, when a plan arrives and just before each plugin
 * runs; docs/isolation.md lists every condition and its residuals.
 *
 * Terminal (term/check.h, below the store, which runs them too): the
 * console's terminal is a real terminal (echo can be switched off) owned by
 * the console account, not open to an agent's groups, not relayed by a
 * program named in system.toml (a multiplexer is allowed when it runs as
 * the console account), and not an X11 terminal when system.toml says x11 =
 * "refuse". */
#ifndef LOCKFILE_ISOLATION_H
#define LOCKFILE_ISOLATION_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/paths.h"
#include "term/check.h"
#include "term/iso.h"

/* Facts only observable before the console confines itself: its own
 * filter and no_new_privs would mask the container's. A seccomp filter and
 * no_new_privs cannot be removed, so what is seen here holds for the
 * process's life. Taken by the console before it confines itself (console.c);
 * doctor takes a fresh one. */
struct iso_snapshot {
	int taken;
	int seccomp_mode;	/* "Seccomp:" of /proc/self/status, -1 unknown */
	int filter_refuses;	/* a filter refused every probe (isolation.c) */
	int probe_errno;	/* clone3's */
	const char *probe_passed;	/* the first probe the kernel answered */
	int nnp;		/* "NoNewPrivs:" */
};

/* The console's isolation state (a member of struct console). */
struct isolation {
	struct iso_snapshot snap;
	char why[320];		/* the last failing condition, for the audit */
};

/* Record the pre-confinement facts (see struct iso_snapshot). */
void isolation_snapshot(struct iso_snapshot *s);

/* Every /proc condition of the mode in effect, in order; a condition that
 * could not be evaluated fails. Returns 0 when all pass, -1 otherwise. */
int isolation_proc_report(const struct iso_agents *a,
    const struct iso_snapshot *s, struct iso_report *r);

/* The kernel log (isolation_kernel.c). Host mode's conditions, appended
 * to r by isolation_proc_report: kernel.dmesg-restrict and
 * kernel.log-files (no agent reads the kernel log nor its usual copies). */
void isolation_kernel_host(const struct iso_agents *a, struct iso_report *r);
/* What doctor reports besides (r is reset): kernel.exception-trace and
 * kernel.core-pattern, and in container mode kernel.dmesg-restrict (the
 * host's log, whose readers no check sees). Never a plan's condition. */
void isolation_kernel_report(const struct iso_agents *a, int container,
    struct iso_report *r);

/* Host mode: root's declaration of the host's /proc is LF_SYS_HOST
 * (lib/paths.h) in the system configuration directory
 * (isolation_host.c). */

/* As root, for `lockfile doctor --declare-host`: pid 1's mount namespace
 * (the host's) has /proc mounted hidepid=invisible, and every procfs in
 * it hides, each with no agent's gid (host.proc, host.mounts). 0 with the
 * mount id of that /proc, or -1. */
int isolation_host_report(const struct iso_agents *a, struct iso_report *r,
    unsigned long long *proc_mount_id);

/* The console's checks, on the agents console.c built (agents_build,
 * term/iso.h) and its isolation state: never struct console
 * (docs/hacking.md, "Layers"). */

/* 0 when plugin processes are hidden; -1 with *why naming the failing
 * condition (points into iso->why, valid until the next call; the caller
 * copies it into the audit). */
int isolation_proc_hidden(const struct iso_agents *a, struct isolation *iso,
    const char **why);

#endif
