/* The console socket (see listener.h). */
#include "console/listener.h"
#include "lib/fdutil.h"
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

static int
dir_of(const char *path, char *out, size_t outlen)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL || slash == path || (size_t)(slash - path) >= outlen)
		return -1;
	memcpy(out, path, (size_t)(slash - path));
	out[slash - path] = '\0';
	return 0;
}

static int
check_dir(const struct listener *l, const char *dir, const char **why)
{
	struct stat st;

	if (lstat(dir, &st) != 0) {
		*why = "socket directory cannot be inspected";
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = "socket directory is not a directory";
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != l->console_uid) {
		*why = "socket directory is owned by another account";
		return -1;
	}
	if (st.st_mode & (S_IWOTH | S_IWGRP)) {
		*why = "socket directory is writable by group or others";
		return -1;
	}
	if (l->have_clients_gid && st.st_gid != l->clients_gid) {
		*why = "socket directory's group is not the clients group";
		return -1;
	}
	if (st.st_mode & (S_IROTH | S_IXOTH)) {
		*why = "socket directory is open to others (want 2750)";
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
	    dir_of(sockpath, dir, sizeof(dir)) != 0) {
		*why = "socket path too long or without a directory";
		return -1;
	}
	if (str_fmt(l->path, sizeof(l->path), "%s", sockpath) != STR_OK) {
		*why = "socket path too long or without a directory";
		return -1;
	}

	if (mkdir(dir, 02750) == 0) {
		/* mkdir applies the umask: set the mode exactly. */
		if ((l->have_clients_gid && chown(dir, (uid_t)-1,
		    l->clients_gid) != 0) || chmod(dir, 02750) != 0) {
			*why = "cannot set the socket directory's group and mode";
			return -1;
		}
	} else if (errno != EEXIST) {
		*why = "cannot create the socket directory";
		return -1;
	}
	if (check_dir(l, dir, why) != 0)
		return -1;

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

	if (uid == 0)
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
	if (cred.uid == 0)
		return 0;
	if (cred.uid == l->console_uid)
		return 1;
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
