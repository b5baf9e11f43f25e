/* The two ways a file.plan goes on after its refusals before the card
 * (plan.c): the console's terminal decides (plan_local.c) or lockhub does
 * (plan_hub.c). Neither calls the other; both end in plan_tail(). */
#ifndef LOCKFILE_CONSOLE_PLAN_ENTRY_H
#define LOCKFILE_CONSOLE_PLAN_ENTRY_H

#include "console/plan_steps.h"

/* The card, the decision and typed values on the console's terminal, then
 * the tail; the answer at the quantum. *recorded: the audit record was
 * written inside the quantum. */
char *plan_local(struct plan *pl, const char *planid, int *recorded);
/* The ticket made (its fetch, signing and post behind the answer) and the
 * pending answer at the quantum. */
char *plan_hub_ask(struct plan *pl, const char *planid);

#endif
