/* The human types here (see term/human.h). */
#include "term/human.h"
#include "host/terminal.h"
#include "lib/log.h"
#include "lib/str.h"

#include <unistd.h>

int
term_human_here(struct term *t, const struct iso_agents *a,
    char *why, size_t whylen)
{
	const struct agents_in everyone = { .console_uid = getuid(),
	    .everyone = 1 };
	struct iso_agents all;
	struct iso_report r;
	char first[ISO_DETAIL_MAX + 64];

	if (a == NULL) {
		/* No uid list, so nothing to refuse. */
		ASSERT(agents_build(&everyone, &all) == AGENTS_OK);
		a = &all;
	}
	if (isolation_terminal_report_as(t->fd, a, !t->master_ok, &r) == 0) {
		t->master_ok = 1;
		return 0;
	}
	isolation_first_failure(&r, first, sizeof(first));
	str_msg(why, whylen, "refusing this terminal: %s", first);
	return -1;
}
