/* The kernel log conditions (kernel.c; docs/isolation.md, "The kernel
 * log"): no agent reads the kernel log nor its usual copies. */
#ifndef LOCKFILE_HOST_KERNEL_H
#define LOCKFILE_HOST_KERNEL_H

#include "host/agents.h"
#include "host/report.h"

/* Host mode's conditions, appended to r by isolation_proc_report:
 * kernel.dmesg-restrict and kernel.log-files. */
void isolation_kernel_host(const struct iso_agents *a, struct iso_report *r);
/* What doctor reports besides (r is reset): kernel.exception-trace and
 * kernel.core-pattern, and in container mode kernel.dmesg-restrict (the
 * host's log, whose readers no check sees). Never a plan's condition. */
void isolation_kernel_report(const struct iso_agents *a, int container,
    struct iso_report *r);

#endif
