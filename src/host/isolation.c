/* The /proc isolation checks of the mode in effect (see host/isolation.h).
 * Boundary (seed, "Preconditions"): no other account sees the plugins'
 * processes. Host mode relies on hidepid (hidepid.c, declared.c) and a
 * closed kernel log (kernel.c); container mode on the pid namespace being
 * the container's own (container.c). */
#include "host/isolation.h"
#include "host/container.h"
#include "host/hostmode.h"
#include "host/kernel.h"

#include <string.h>

int
isolation_proc_report(const struct iso_agents *a,
    const struct iso_snapshot *s, struct iso_report *r)
{
	struct iso_snapshot fresh;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (s == NULL || !s->taken) {
		isolation_snapshot(&fresh);
		s = &fresh;
	}
	if (iso_container_declaration(r) != 0) {
		iso_check_hidepid(a, r);
		isolation_kernel_host(a, r);
	} else {
		iso_container_checks(a->console_uid, s, r);
	}
	for (i = 0; i < r->n; i++)
		if (!r->c[i].ok)
			return -1;
	return 0;
}

int
isolation_proc_hidden(const struct iso_agents *a, struct isolation *iso,
    const char **why)
{
	struct iso_report r;

	if (isolation_proc_report(a, &iso->snap, &r) == 0)
		return 0;
	isolation_first_failure(&r, iso->why, sizeof(iso->why));
	*why = iso->why;
	return -1;
}
