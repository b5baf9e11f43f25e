/* The console socket (see listener.h). */
#include "console/listener.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int
listener_check_dir(const char *dir, uid_t console, int have_gid, gid_t gid,
    char *why, size_t whylen)
{
	char e[256];
	struct stat st;

	escape_text(dir, strlen(dir), e, sizeof(e));
	if (lstat(dir, &st) != 0) {
		str_msg(why, whylen, "%s %s (create it: install -d -o <console "
		    "account> -g <clients group> -m 2750 %s, or the tmpfiles.d line "
		    "of docs/host.md)", e, errno == ENOENT ? "does not exist" :
		    "cannot be inspected", e);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		str_msg(why, whylen, "%s is not a directory", e);
		return -1;
	}
	/* Not root's: the console creates and removes the socket in it. */
	if (st.st_uid != console) {
		str_msg(why, whylen, "%s belongs to uid %u; the console account "
		    "(uid %u) must own it, since it creates the socket there "
		    "(chown it)", e, (unsigned)st.st_uid, (unsigned)console);
		return -1;
	}
	if (have_gid && st.st_gid != gid) {
		str_msg(why, whylen, "%s has group %u, not the clients group "
		    "(gid %u: chgrp it)", e, (unsigned)st.st_gid, (unsigned)gid);
		return -1;
	}
	/* setgid: the socket has the clients group from the moment it is
	 * bound, never the console account's own group. */
	if ((st.st_mode & 07777) != 02750) {
		str_msg(why, whylen, "%s has mode %04o (want 2750: setgid, so the "
		    "socket belongs to the clients group from its creation, and "
		    "closed to others: chmod 2750 it)", e,
		    (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int
listener_open(struct listener *l, const char *sockpath,
    const char *clients_group, const char **why)
{
	struct sockaddr_un sa;
	char dir[sizeof(sa.sun_path)];
	struct group *gr;
	mode_t old;
	int fd = -1;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->console_uid = getuid();
	gr = getgrnam(clients_group);
	if (gr != NULL) {
		l->clients_gid = gr->gr_gid;
		l->have_clients_gid = 1;
	}
	if (strlen(sockpath) >= sizeof(sa.sun_path) ||
	    strlen(sockpath) >= sizeof(l->path) ||
	    str_dirname(sockpath, dir, sizeof(dir)) != STR_OK) {
		*why = "socket path too long or without a directory";
		return -1;
	}
	if (str_fmt(l->path, sizeof(l->path), "%s", sockpath) != STR_OK) {
		*why = "socket path too long or without a directory";
		return -1;
	}

	/* Made here when missing and the parent lets us (a socket beside a
	 * test or in a home); under /run the tmpfiles.d line makes it, and a
	 * directory we cannot make is reported by the check below. */
	if (mkdir(dir, 02750) == 0) {
		/* mkdir applies the umask: set the mode exactly. */
		if ((l->have_clients_gid && chown(dir, (uid_t)-1,
		    l->clients_gid) != 0) || chmod(dir, 02750) != 0) {
			*why = "cannot set the socket directory's group and mode";
			return -1;
		}
	}
	if (listener_check_dir(dir, l->console_uid, l->have_clients_gid,
	    l->clients_gid, l->why, sizeof(l->why)) != 0) {
		*why = l->why;
		return -1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sockpath, strlen(sockpath));

	/* A stale socket (console died) is replaced; a live one is not. */
	{
		struct stat st;
		if (lstat(sockpath, &st) == 0) {
			int probe;
			if (!S_ISSOCK(st.st_mode) || st.st_uid != l->console_uid) {
				*why = "socket path exists and is not our socket";
				return -1;
			}
			probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (probe >= 0 && connect(probe, (struct sockaddr *)&sa,
			    sizeof(sa)) == 0) {
				close(probe);
				*why = "another console is already serving this socket";
				return -1;
			}
			if (probe >= 0)
				close(probe);
			if (unlink(sockpath) != 0) {
				*why = "cannot remove the stale socket";
				return -1;
			}
		}
	}

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*why = "socket() failed";
		return -1;
	}
	old = umask(0117);	/* socket 0660 from the start: no window */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		umask(old);
		close(fd);
		*why = "cannot bind the socket";
		return -1;
	}
	umask(old);
	if ((l->have_clients_gid && chown(sockpath, (uid_t)-1,
	    l->clients_gid) != 0) || chmod(sockpath, 0660) != 0 ||
	    listen(fd, 128) != 0) {
		close(fd);
		(void)unlink(sockpath);
		*why = "cannot set up the socket";
		return -1;
	}
	l->fd = fd;
	return 0;
}

void
listener_close(struct listener *l)
{
	if (l->fd >= 0) {
		close(l->fd);
		(void)unlink(l->path);
	}
	l->fd = -1;
}

int
listener_allow_uid(struct listener *l, uid_t uid)
{
	size_t i;

	if (uid == 0 || uid == l->console_uid)
		return -1;
	for (i = 0; i < l->nallowed; i++)
		if (l->allowed[i] == uid)
			return 0;
	if (l->nallowed >= LISTENER_MAX_ALLOWED)
		return -1;
	l->allowed[l->nallowed++] = uid;
	return 0;
}

int
listener_accept(struct listener *l)
{
	return accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
}

int
listener_peer_allowed(const struct listener *l, int fd, struct peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t groups[256];
	socklen_t glen = sizeof(groups);
	size_t i, ng;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    len != sizeof(cred))
		return 0;
	p->uid = cred.uid;
	p->gid = cred.gid;
	p->pid = cred.pid;
	p->fd = fd;
	/* Neither root nor the console's own uid is ever an agent
	 * (listener.h). */
	if (cred.uid == 0 || cred.uid == l->console_uid)
		return 0;
	for (i = 0; i < l->nallowed; i++)
		if (l->allowed[i] == cred.uid)
			return 1;
	if (!l->have_clients_gid)
		return 0;
	if (cred.gid == l->clients_gid)
		return 1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) != 0)
		return 0;	/* too many groups to list: refuse */
	ng = glen / sizeof(gid_t);
	for (i = 0; i < ng; i++)
		if (groups[i] == l->clients_gid)
			return 1;
	return 0;
}
