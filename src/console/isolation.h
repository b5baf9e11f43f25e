/* Isolation checks (SPEC section 11): no other account may see a plugin's
 * processes. Host mode: /proc mounted hidepid=invisible (or 2) with a gid=
 * no agent has. Container mode: see docs/isolation.md. Run at console
 * start, when a plan arrives and just before each plugin runs. */
#ifndef LOCKFILE_ISOLATION_H
#define LOCKFILE_ISOLATION_H

#include <stddef.h>

struct console;

/* 0 when plugin processes are hidden; -1 with a static reason naming the
 * failing condition (for the audit and doctor). */
int isolation_proc_hidden(const struct console *c, const char **why);

#endif
