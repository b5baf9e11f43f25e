/* "The human types here": the one check every prompt of the console
 * account runs on its terminal before it asks anything (docs/security.md,
 * "The agent cannot drive the console"): the console at start and before
 * each card, the store's loosening prompt, `lockfile policy approve`. A
 * prompt on a terminal an agent could drive, read or relay is no human's
 * answer. */
#ifndef LOCKFILE_TERM_HUMAN_H
#define LOCKFILE_TERM_HUMAN_H

#include <stddef.h>

#include "host/agents.h"
#include "term/term.h"

/* Every terminal condition (host/terminal.h) on t's terminal, for the agents
 * a; a NULL a counts every account but ours and root as an agent (the
 * prompts that do not read an approved policy, so cannot know who the
 * agents are: fail closed). 0, or -1 with "refusing this terminal:
 * CONDITION: DETAIL" in why.
 *
 * Who holds the pty's master (terminal.master) is asked the first time
 * only, and remembered in t->master_ok: once the console confines itself,
 * Landlock hides every process outside its domain from /proc, its own
 * tmux server included, and a holder cannot change behind a pty already
 * open (a master is passed only by the process that holds it). */
int term_human_here(struct term *t, const struct iso_agents *a,
    char *why, size_t whylen);

#endif
