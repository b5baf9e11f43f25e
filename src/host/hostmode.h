/* Host mode's /proc conditions (hidepid.c; docs/isolation.md, "Host
 * mode"): proc.procfs, proc.hidepid and proc.hidepid-gid, then the host
 * declaration's proc.mounts and proc.host (host/declare.h). */
#ifndef LOCKFILE_HOST_HOSTMODE_H
#define LOCKFILE_HOST_HOSTMODE_H

#include "host/agents.h"
#include "host/report.h"

void iso_check_hidepid(const struct iso_agents *a, struct iso_report *r);

#endif
