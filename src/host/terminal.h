/* The terminal checks (docs/isolation.md, "The terminal conditions"): the
 * terminal is a real terminal (echo can be switched off) owned by the
 * console account, not open to an agent's groups, not relayed by a program
 * named in system.toml (a multiplexer is allowed when it runs as the
 * console account), and not an X11 terminal when system.toml says x11 =
 * "refuse". The console runs them at start and doctor reports them; the
 * store's loosening prompt runs them on its own terminal. */
#ifndef LOCKFILE_HOST_TERMINAL_H
#define LOCKFILE_HOST_TERMINAL_H

#include "host/agents.h"
#include "host/report.h"

/* Every terminal condition for the terminal open at ttyfd (-1: none), in
 * order. Returns 0 when all pass, -1 otherwise. */
/* As isolation_terminal_report, but the master's holder (relay.h) is asked
 * only when master_now is set; otherwise it counts as seen before (the
 * caller's start-time check, term/human.h). */
int isolation_terminal_report_as(int ttyfd, const struct iso_agents *a,
    int master_now, struct iso_report *r);
int isolation_terminal_report(int ttyfd, const struct iso_agents *a,
    struct iso_report *r);

#endif
