/* Host mode's /proc (see host/hostmode.h, docs/isolation.md "Host
 * mode"): /proc is a procfs mounted hidepid=invisible whose exempt gid=
 * is no group an agent has, and, through the host declaration
 * (declared.c), the very /proc the agents see. */
#include "host/hostmode.h"
#include "host/declare.h"
#include "host/mountinfo.h"

#include <sys/types.h>

void
iso_check_hidepid(const struct iso_agents *a, struct iso_report *r)
{
	struct proc_mount m;
	char who[160];

	if (!iso_is_procfs()) {
		iso_add(r, "proc.procfs", 0, "/proc is not a procfs");
		return;
	}
	iso_add(r, "proc.procfs", 1, "/proc is a procfs");
	if (iso_proc_mount_read(&m) != 0 || m.bad_opts) {
		iso_add(r, "proc.hidepid", 0, "the mount options of /proc cannot "
		    "be read");
		return;
	}
	if (m.hidepid != 2) {
		/* no declaration: a host, so name the host's fix, not the
		 * container's file (docs/host.md, step 3; issue 32) */
		iso_add(r, "proc.hidepid", 0, "/proc is not mounted "
		    "hidepid=invisible (hidepid=%d): on a host, as root: mount -o "
		    "remount,hidepid=invisible /proc, and hidepid=invisible in its "
		    "fstab line (docs/host.md, step 3)", m.hidepid);
		return;
	}
	iso_add(r, "proc.hidepid", 1, "/proc is mounted hidepid=invisible");
	if (iso_agent_has_gid(a, (gid_t)m.gid, who, sizeof(who)))
		iso_add(r, "proc.hidepid-gid", 0, "gid=%llu sees every process "
		    "and %s", m.gid, who);
	else
		iso_add(r, "proc.hidepid-gid", 1, "gid=%llu is no agent's group",
		    m.gid);
	/* What the console sees hides; now whether the agents see the same:
	 * declared.c. */
	iso_check_host_declared(a, r);
}
