/* Container mode (container.c; docs/isolation.md, "Container mode"):
 * root's declaration /etc/lockfile/container.toml, then /proc is a procfs
 * of the console's own pid namespace that hides nothing from it; that
 * namespace is not the host's; every task listed runs as root or the
 * console account (all four uid fields); the console started under a
 * seccomp filter that refuses calls (not allow-all), with no_new_privs
 * and no capabilities. */
#ifndef LOCKFILE_HOST_CONTAINER_H
#define LOCKFILE_HOST_CONTAINER_H

#include <sys/types.h>

#include "host/report.h"
#include "host/snapshot.h"

/* The declaration: -1 when absent (host mode), 0 when present (r->container
 * is set and container.declaration added, passing or failing). */
int iso_container_declaration(struct iso_report *r);

/* Every other container condition, in order. */
void iso_container_checks(uid_t console_uid, const struct iso_snapshot *s,
    struct iso_report *r);

#endif
