/* The one builder of struct iso_agents (see host/agents.h): the console's
 * socket, its isolation checks and doctor all read the agents from here,
 * so the uids the socket lets in are the uids whose groups the checks
 * weigh (docs/isolation.md, "proc.hidepid-gid"). */
#include "host/agents.h"
#include "lib/num.h"

#include <string.h>

/* Once each; 0 is never an agent (root reaches a 0660 socket through
 * CAP_DAC_OVERRIDE and is refused there), nor the console's own uid (it
 * would share the kernel's per-uid task count with the plugins:
 * docs/security.md). -1 for those, or when there is no room. */
static int
add_uid(struct iso_agents *a, uid_t uid)
{
	size_t i;

	if (uid == 0 || uid == a->console_uid)
		return -1;
	for (i = 0; i < a->nallowed; i++)
		if (a->allowed[i] == uid)
			return 0;
	if (a->nallowed >= ISO_MAX_AGENTS)
		return -1;
	a->allowed[a->nallowed++] = uid;
	return 0;
}

/* A comma-separated list. Every field is a uid: an empty one ("1,,2",
 * ",1", "1,") is refused, not skipped (strtok would merge it away). */
static int
add_list(struct iso_agents *a, const char *s)
{
	char tmp[1024], *p, *comma;
	unsigned long long v;

	if (s == NULL || s[0] == '\0')
		return 0;
	if (strlen(s) >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, strlen(s) + 1);
	for (p = tmp; p != NULL; p = comma) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma++ = '\0';
		if (parse_u64(p, 1, 0x7ffffffe, &v) != 0 ||
		    add_uid(a, (uid_t)v) != 0)
			return -1;
	}
	return 0;
}

enum agents_err
agents_build(const struct agents_in *in, struct iso_agents *a)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	a->console_uid = in->console_uid;
	a->have_clients_gid = in->have_clients_gid;
	a->clients_gid = in->have_clients_gid ? in->clients_gid : 0;
	a->everyone = in->everyone;
	if (add_list(a, in->build_uids) != 0)
		return AGENTS_BAD_BUILD;
	for (i = 0; i < in->npolicy; i++)
		(void)add_uid(a, in->policy_uids[i]);
	if (add_list(a, in->cli_uids) != 0)
		return AGENTS_BAD_CLI;
	return AGENTS_OK;
}
