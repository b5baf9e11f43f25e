/* Who the isolation checks protect against (docs/isolation.md,
 * "proc.hidepid-gid"): the agents, built once by agents_build (agents.c)
 * from what the console reads and doctor repeats, and which groups they
 * may have (groups.c, from the password and group databases). */
#ifndef LOCKFILE_HOST_AGENTS_H
#define LOCKFILE_HOST_AGENTS_H

#include <stddef.h>
#include <sys/types.h>

/* The console's socket holds at most this many allowed uids
 * (console/listener.h's LISTENER_MAX_ALLOWED is the same number). */
#define ISO_MAX_AGENTS 128

/* Who the checks protect against: every account allowed on the socket
 * except the console account itself (root is always refused there). A
 * value of its own (no pointers), built once by agents_build and read by
 * every check. */
struct iso_agents {
	uid_t console_uid;
	int have_clients_gid;
	gid_t clients_gid;
	uid_t allowed[ISO_MAX_AGENTS];	/* distinct, never 0, in the order
					 * agents_build added them */
	size_t nallowed;
	int everyone;		/* every account but console_uid and root
				 * counts as an agent: the store's prompts,
				 * which do not read the policy, so cannot
				 * know who is allowed (fail closed) */
};

/* What the agents are built from, as the console reads it (console.c)
 * and doctor repeats it (doctor.c): one builder, so the two cannot
 * disagree (docs/isolation.md, "proc.hidepid-gid"). */
struct agents_in {
	uid_t console_uid;	/* getuid() */
	int have_clients_gid;	/* the socket's group exists */
	gid_t clients_gid;
	const char *build_uids;	/* build-time ALLOWED_UIDS (config.h), or
				 * NULL */
	const uid_t *policy_uids;	/* the approved policy's allowed_uids */
	size_t npolicy;
	const char *cli_uids;	/* --allowed-uids, or NULL */
	int everyone;		/* see struct iso_agents */
};

enum agents_err {
	AGENTS_OK = 0,
	AGENTS_BAD_BUILD,	/* build_uids does not parse or overflows */
	AGENTS_BAD_CLI,		/* cli_uids does not parse or overflows */
};

/* Fill a from in: the build-time uids, then the policy's, then the
 * command line's, each added once. A list is comma-separated uids from 1
 * to 0x7ffffffe, every field one (an empty field is refused), shorter
 * than 1024 bytes; a list that breaks this, or would take the allowed
 * uids past ISO_MAX_AGENTS, or names console_uid (never an agent: it
 * would share the plugins' per-uid task count), is refused with its code
 * (the build-time list first). The policy's uids are checked by the policy
 * parser; one that is 0, console_uid or finds no room is skipped, as the
 * console's socket always skipped it. A refusal leaves a partly filled. */
enum agents_err agents_build(const struct agents_in *in,
    struct iso_agents *a);

/* 1 when some allowed agent (with everyone: some account other than the
 * console account and root) may have group g (primary or supplementary),
 * 0 when none has, and 1 with who saying why when it cannot be known
 * (fail closed). */
int iso_agent_has_gid(const struct iso_agents *a, gid_t g, char *who,
    size_t wholen);

#endif
