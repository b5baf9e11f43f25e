/* The console's socket. Boundary (seed: "Only the clients group reaches the
 * console"): directory 2750 setgid group lockfile-clients, socket 0660, and
 * on every connection the kernel's peer credentials (SO_PEERCRED and
 * SO_PEERGROUPS) checked against the console account, the clients group
 * (primary or supplementary) and the allowed uids. uid 0 is refused always:
 * root in a container reaches a 0660 socket through CAP_DAC_OVERRIDE. So is
 * the console's own uid, from anywhere: an agent running as that uid would
 * share the kernel's per-uid task count with the plugins (docs/security.md),
 * and the confined console cannot tell its own pid namespace's processes
 * from a container's below it (docs/console.md, "Who connects"). */
#ifndef LOCKFILE_LISTENER_H
#define LOCKFILE_LISTENER_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define LISTENER_MAX_ALLOWED 128

struct listener {
	int fd;
	char path[108];
	uid_t console_uid;
	gid_t clients_gid;
	int have_clients_gid;
	size_t nallowed;
	uid_t allowed[LISTENER_MAX_ALLOWED];
	char why[512];		/* the last refusal of listener_open */
};

struct peer {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int fd;		/* the connection */
};

/* The socket directory rule, the one the console and doctor apply: the
 * console account's (it creates the socket there), group the clients
 * group (when that group exists), mode exactly 2750. 0, or -1 with why
 * naming the directory, what is wrong and what to run. */
int listener_check_dir(const char *dir, uid_t console, int have_gid,
    gid_t gid, char *why, size_t whylen);

/* Create the directory (when missing and its parent lets us) and the
 * socket; refuse a directory that fails listener_check_dir. 0, or -1 with
 * a reason (static, or l->why). */
int listener_open(struct listener *l, const char *sockpath,
    const char *clients_group, const char **why);
void listener_close(struct listener *l);
int listener_allow_uid(struct listener *l, uid_t uid);

/* Accept one connection (non-blocking listener; -1 with EAGAIN when none). */
int listener_accept(struct listener *l);

/* 1 when the peer on fd may talk to the console. Reads nothing. */
int listener_peer_allowed(const struct listener *l, int fd, struct peer *p);

#endif
