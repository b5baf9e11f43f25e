/* terminal.master (host/relay.c): the holder of the console's
 * pseudo-terminal's master, the relay the ancestry walk cannot see under
 * hidepid (docs/isolation.md, "The terminal conditions"). */
#ifndef LOCKFILE_HOST_RELAY_H
#define LOCKFILE_HOST_RELAY_H

#include "host/agents.h"
#include "host/report.h"

/* Add terminal.master to r for the terminal open at fd (a terminal, as
 * terminal.device found): it holds when fd is no pseudo-terminal, when a
 * process of the console account that /proc shows holds its master, or
 * when none is seen and unseen_ok (system.toml's unseen_relay = "allow")
 * or a container is declared (its runtime holds it from outside). A
 * visible holder of another account, or an unseen one on a host, fails. */
void check_master(int fd, const struct iso_agents *a, int unseen_ok,
    struct iso_report *r);

#endif
