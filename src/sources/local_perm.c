/* Who may read a local source (see local.h). */
#include "sources/local.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The kernel stores an access ACL only when it says more than the mode
 * bits (an ACL equivalent to the mode is dropped), so the attribute's
 * presence is the test. */
static int
has_xattr(int fd, const char *name)
{
	ssize_t n = fgetxattr(fd, name, NULL, 0);

	if (n >= 0)
		return 1;
	if (errno == ENODATA || errno == ENOTSUP || errno == EOPNOTSUPP)
		return 0;
	return -1;
}

enum local_perm
local_perm_fd(int fd, const struct stat *st, uid_t console, char *why,
    size_t whylen)
{
	int a = 0, d = 0;

	if (st->st_uid != console && st->st_uid != 0) {
		str_msg(why, whylen, "belongs to uid %u, which may open it to "
		    "anyone (want the console account, uid %u: chown)",
		    (unsigned)st->st_uid, (unsigned)console);
		return LOCAL_PERM_OWNER;
	}
	/* First: with an ACL the group bits show its mask, not a group. */
	if (fd >= 0) {
		a = has_xattr(fd, "system.posix_acl_access");
		if (a == 0 && S_ISDIR(st->st_mode))
			a = d = has_xattr(fd, "system.posix_acl_default");
	}
	if (a < 0) {
		str_msg(why, whylen, "its ACL cannot be read");
		return LOCAL_PERM_UNKNOWN;
	}
	if (a > 0) {
		str_msg(why, whylen, "has an ACL%s, which may let other accounts "
		    "in (remove it: setfacl -b)", d ? " (a default one)" : "");
		return LOCAL_PERM_ACL;
	}
	if (st->st_mode & 077) {
		str_msg(why, whylen, "has mode %04o: other accounts may %s it "
		    "(want %s: chmod go=)", (unsigned)(st->st_mode & 07777),
		    S_ISDIR(st->st_mode) ? "list or enter" : "read",
		    S_ISDIR(st->st_mode) ? "0700" : "0600 or 0400");
		return LOCAL_PERM_MODE;
	}
	return LOCAL_PERM_OK;
}

struct walk {
	uid_t console;
	dev_t dev;
	size_t checked;
	char path[4096];
	char *why;
	size_t whylen;
};

static int
refuse(struct walk *w, const char *what)
{
	char e[1024];

	escape_text(w->path, strlen(w->path), e, sizeof(e));
	str_msg(w->why, w->whylen, "%s %s", e, what);
	return -1;
}

static int
check_one(struct walk *w, int fd, const struct stat *st)
{
	char why[256];

	w->checked++;
	if (local_perm_fd(fd, st, w->console, why, sizeof(why)) != LOCAL_PERM_OK)
		return refuse(w, why);
	return 0;
}

/* The directory open at dfd (already checked) and what is below it; dfd
 * is closed. */
static int
walk_dir(struct walk *w, int dfd, int depth)
{
	size_t base = strlen(w->path);
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	if (depth > LOCAL_CHECK_MAX_DEPTH) {
		close(dfd);
		return refuse(w, "is nested too deep to check");
	}
	dir = fdopendir(dfd);
	if (dir == NULL) {
		close(dfd);
		return refuse(w, "cannot be listed");
	}
	while (ret == 0 && w->checked < LOCAL_CHECK_MAX_ENTRIES) {
		struct stat st, fst;
		int fd, flags;

		errno = 0;
		de = readdir(dir);
		if (de == NULL) {
			if (errno != 0)
				ret = refuse(w, "cannot be listed");
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (str_fmt(w->path + base, sizeof(w->path) - base, "/%s",
		    de->d_name) != STR_OK) {
			w->path[base] = '\0';
			ret = refuse(w, "holds a name too long to check");
			break;
		}
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT)
				ret = refuse(w, "cannot be inspected");
			w->path[base] = '\0';
			continue;
		}
		/* A fetch follows no symlink, crosses no mount and opens only
		 * regular files: nothing else is reached. */
		if (st.st_dev != w->dev || (!S_ISDIR(st.st_mode) &&
		    !S_ISREG(st.st_mode))) {
			w->path[base] = '\0';
			continue;
		}
		flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0);
		fd = openat(dirfd(dir), de->d_name, flags);
		if (fd < 0 || fstat(fd, &fst) != 0 || fst.st_ino != st.st_ino ||
		    fst.st_dev != st.st_dev) {
			/* An entry the console account cannot open is not one it
			 * serves; its mode still counts. */
			if (fd >= 0)
				close(fd);
			if (st.st_mode & 077 ||
			    (st.st_uid != w->console && st.st_uid != 0)) {
				char why[256];
				(void)local_perm_fd(-1, &st, w->console, why,
				    sizeof(why));
				ret = refuse(w, why);
			}
			w->checked++;
			w->path[base] = '\0';
			continue;
		}
		ret = check_one(w, fd, &fst);
		if (ret == 0 && S_ISDIR(fst.st_mode))
			ret = walk_dir(w, fd, depth + 1);
		else
			close(fd);
		if (ret == 0)
			w->path[base] = '\0';
	}
	closedir(dir);
	return ret;
}

int
local_check_tree(const char *path, uid_t console, char *why, size_t whylen,
    size_t *checked)
{
	struct walk *w = xcalloc(1, sizeof(*w));
	struct stat st;
	int fd, ret;

	w->console = console;
	w->why = why;
	w->whylen = whylen;
	if (str_fmt(w->path, sizeof(w->path), "%s", path) != STR_OK) {
		str_msg(why, whylen, "the profile's path is too long to check");
		free(w);
		*checked = 0;
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		char what[160];
		str_msg(what, sizeof(what), "cannot be opened (%s)",
		    errno == ENOTDIR ? "not a directory" : strerror(errno));
		ret = refuse(w, what);
	} else if (fstat(fd, &st) != 0) {
		close(fd);
		ret = refuse(w, "cannot be inspected");
	} else {
		w->dev = st.st_dev;
		ret = check_one(w, fd, &st);
		if (ret == 0)
			ret = walk_dir(w, fd, 0);
		else
			close(fd);
	}
	*checked = w->checked;
	free(w);
	return ret;
}
