/* The host declaration (declared.c; docs/isolation.md, "Host mode"):
 * root's record, LF_SYS_HOST (lib/paths.h) in the system configuration
 * directory, of which mount is the host's /proc, so that a console in a
 * mount namespace of its own cannot pass on a private hidepid /proc. */
#ifndef LOCKFILE_HOST_DECLARE_H
#define LOCKFILE_HOST_DECLARE_H

#include <stddef.h>

#include <jansson.h>

#include "host/agents.h"
#include "host/report.h"

/* A declaration in the system configuration directory (lib/sysconf.h):
 * name, at most max bytes, a TOML document that holds key and nothing
 * else (container.toml too, container.c). 0 with *val, a new reference to
 * key's value, or NULL when the document lacks key or holds another; -1
 * with why and errno (ENOENT: absent; EINVAL: not TOML). */
int iso_declaration_read(const char *name, size_t max, const char *key,
    json_t **val, char *why, size_t whylen);

/* proc.mounts (every procfs of this mount namespace hides, with no
 * agent's gid) and proc.host (this /proc is the mount declared), appended
 * to r. */
void iso_check_host_declared(const struct iso_agents *a, struct iso_report *r);

/* As root, for `lockfile doctor --declare-host`: pid 1's mount namespace
 * (the host's) has /proc mounted hidepid=invisible, and every procfs in
 * it hides, each with no agent's gid (host.proc, host.mounts). 0 with the
 * mount id of that /proc, or -1. */
int isolation_host_report(const struct iso_agents *a, struct iso_report *r,
    unsigned long long *proc_mount_id);

#endif
