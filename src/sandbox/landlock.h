/* Landlock: probe the running ABI once, then build rulesets masked to it.
 * Used for plugins (execute + read on their own binary only, no TCP,
 * signals and abstract sockets scoped) and by the console to confine
 * itself. Functions marked child-safe do no allocation. */
#ifndef LOCKFILE_LANDLOCK_H
#define LOCKFILE_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

struct landlock_caps {
	int abi;		/* 0 when Landlock is unavailable */
	uint64_t fs;		/* handled filesystem rights at this ABI */
	uint64_t net;		/* handled network rights (ABI >= 4) */
	uint64_t scoped;	/* scopes (ABI >= 6) */
	unsigned restrict_flags;/* logging flags (ABI >= 7) */
};

/* Probe the kernel. 0 when usable (caps filled), -1 with a static reason. */
int landlock_probe(struct landlock_caps *caps, const char **why);

/* Child-safe. Create a ruleset handling every right in caps; returns the
 * ruleset fd or -1. */
int landlock_ruleset_create(const struct landlock_caps *caps);
/* Child-safe. Allow rights on the file or directory open at fd (masked to
 * what caps handles and to what the kernel allows for a file). 0 or -1. */
int landlock_allow_fd(int ruleset, const struct landlock_caps *caps, int fd,
    uint64_t rights);
/* Allow TCP connect to one port (ABI >= 4). 0 or -1. */
int landlock_allow_connect_port(int ruleset, const struct landlock_caps *caps,
    unsigned port);
/* Child-safe. Enforce ruleset on the calling thread (no_new_privs must be
 * set), then close it. 0 or -1. */
int landlock_enforce(int ruleset, const struct landlock_caps *caps);

#endif
