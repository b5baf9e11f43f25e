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
 * runs; docs/isolation.md lists every condition and its residuals. Host
 * mode: hidepid.c and declared.c (host/hostmode.h, host/declare.h), the
 * kernel log (host/kernel.h); container mode: container.c
 * (host/container.h). The terminal's conditions are host/terminal.h's. */
#ifndef LOCKFILE_HOST_ISOLATION_H
#define LOCKFILE_HOST_ISOLATION_H

#include "host/agents.h"
#include "host/report.h"
#include "host/snapshot.h"

/* The console's isolation state (a member of struct console). */
struct isolation {
	struct iso_snapshot snap;
	char why[320];		/* the last failing condition, for the audit */
};

/* Every /proc condition of the mode in effect, in order; a condition that
 * could not be evaluated fails. s NULL or not taken: a fresh snapshot.
 * Returns 0 when all pass, -1 otherwise. */
int isolation_proc_report(const struct iso_agents *a,
    const struct iso_snapshot *s, struct iso_report *r);

/* The console's checks, on the agents console.c built (agents_build,
 * host/agents.h) and its isolation state: never struct console
 * (docs/hacking.md, "Layers"). */

/* 0 when plugin processes are hidden; -1 with *why naming the failing
 * condition (points into iso->why, valid until the next call; the caller
 * copies it into the audit). */
int isolation_proc_hidden(const struct iso_agents *a, struct isolation *iso,
    const char **why);

#endif
