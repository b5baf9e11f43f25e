/* Store write side (see stage.h). */
#include "store/stage.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/paths.h"
#include "lib/rmtree.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static void
sweep(int storefd)
{
	struct dirent *de;
	DIR *d;
	int fd = dup(storefd);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)) == 0 &&
		    rm_tree_at(storefd, de->d_name) != 0)
			logit("cannot remove a stale staging directory");
	closedir(d);
}

int
stage_lock(struct stage *s, const char *storedir, char *why, size_t whylen)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->storefd = -1;
	if (mkdir_p(storedir, 0700) != 0) {
		str_msg(why, whylen, "cannot create the store directory: %s",
		    strerror(errno));
		return -1;
	}
	s->storefd = open(storedir, DIR_FLAGS);
	if (s->storefd < 0 || fstat(s->storefd, &st) != 0 ||
	    st.st_uid != getuid() || (st.st_mode & 0022)) {
		str_msg(why, whylen, "the store directory is not the account's "
		    "own, closed to writes by others");
		goto fail;
	}
	/* One plugin command at a time; the console only reads. */
	if (flock(s->storefd, LOCK_EX | LOCK_NB) != 0) {
		str_msg(why, whylen, errno == EWOULDBLOCK ? "another plugin "
		    "command is running" : "cannot lock the store");
		goto fail;
	}
	sweep(s->storefd);
	return 0;
fail:
	if (s->storefd >= 0)
		close(s->storefd);
	s->storefd = -1;
	return -1;
}

int
stage_begin(struct stage *s, char *why, size_t whylen)
{
	if (s->fd >= 0)
		return 0;
	random_id(STAGE_PREFIX, s->name, sizeof(s->name));
	if (mkdirat(s->storefd, s->name, 0700) != 0 ||
	    (s->fd = openat(s->storefd, s->name, DIR_FLAGS)) < 0) {
		str_msg(why, whylen, "cannot create a staging directory: %s",
		    strerror(errno));
		s->name[0] = '\0';
		return -1;
	}
	return 0;
}

static int
staged_name(const char *name, const char *version, char *out, size_t outlen)
{
	return str_fmt(out, outlen, "%s@%s", name, version) == STR_OK ? 0 : -1;
}

int
stage_plugin_dir(struct stage *s, const char *name, const char *version,
    char *why, size_t whylen)
{
	char sub[80];
	int fd;

	if (stage_begin(s, why, whylen) != 0)
		return -1;
	if (staged_name(name, version, sub, sizeof(sub)) != 0 ||
	    mkdirat(s->fd, sub, 0700) != 0 ||
	    (fd = openat(s->fd, sub, DIR_FLAGS)) < 0) {
		str_msg(why, whylen, "cannot create a staging directory: %s",
		    strerror(errno));
		return -1;
	}
	return fd;
}

static int
open_or_make(int parent, const char *name)
{
	int fd = openat(parent, name, DIR_FLAGS);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (mkdirat(parent, name, 0700) != 0 && errno != EEXIST)
		return -1;
	return openat(parent, name, DIR_FLAGS);
}

int
stage_commit(struct stage *s, const char *name, const char *version,
    char *why, size_t whylen)
{
	char sub[80];
	int plugfd = -1, namefd = -1, ret = -1;

	ASSERT(s->fd >= 0);
	if (staged_name(name, version, sub, sizeof(sub)) != 0)
		goto out;
	plugfd = open_or_make(s->storefd, LF_STORE_PLUGINS);
	namefd = plugfd < 0 ? -1 : open_or_make(plugfd, name);
	if (namefd < 0)
		goto out;
	if (rm_tree_at(namefd, version) != 0 ||
	    renameat(s->fd, sub, namefd, version) != 0 ||
	    fsync(namefd) != 0 || fsync(plugfd) != 0)
		goto out;
	ret = 0;
out:
	if (ret != 0)
		str_msg(why, whylen, "cannot move the verified plugin into "
		    "place: %s", strerror(errno));
	if (namefd >= 0)
		close(namefd);
	if (plugfd >= 0)
		close(plugfd);
	return ret;
}

int
stage_open_installed(const struct stage *s, const char *name,
    const char *version)
{
	int plugfd, namefd, fd = -1;

	plugfd = openat(s->storefd, LF_STORE_PLUGINS, DIR_FLAGS);
	if (plugfd < 0)
		return -1;
	namefd = openat(plugfd, name, DIR_FLAGS);
	if (namefd >= 0) {
		fd = openat(namefd, version, DIR_FLAGS);
		close(namefd);
	}
	close(plugfd);
	return fd;
}

int
stage_remove_version(struct stage *s, const char *name, const char *version)
{
	int plugfd, namefd, ret = -1;

	plugfd = openat(s->storefd, LF_STORE_PLUGINS, DIR_FLAGS);
	if (plugfd < 0)
		return errno == ENOENT ? 0 : -1;
	namefd = openat(plugfd, name, DIR_FLAGS);
	if (namefd < 0) {
		ret = errno == ENOENT ? 0 : -1;
		goto out;
	}
	ret = rm_tree_at(namefd, version);
	close(namefd);
	/* Fails harmlessly while other versions are left. */
	(void)unlinkat(plugfd, name, AT_REMOVEDIR);
	(void)fsync(plugfd);
out:
	close(plugfd);
	return ret;
}

void
stage_end(struct stage *s)
{
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
	if (s->storefd >= 0) {
		if (s->name[0] != '\0' && rm_tree_at(s->storefd, s->name) != 0)
			logit("cannot remove the staging directory");
		close(s->storefd);	/* releases the flock */
		s->storefd = -1;
	}
}
