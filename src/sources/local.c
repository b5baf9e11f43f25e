/* The local-directory source. Boundary: a key never leaves the profile's
 * directory: it is opened with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
 * | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV) from the directory opened at
 * start, on top of the key cleaning done before. And no other account can
 * read what it serves (local.h): the whole tree is checked when the
 * profile is opened, and every step of a key again before its fetch. */
#include "sources/local.h"
#include "sources/source.h"
#include "sources/sink.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>


struct source {
	int dirfd;
	char path[4096];
};

static int
local_validate(const json_t *t, const char **why)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)t, k, v) {
		if (strcmp(k, "path") != 0) {
			*why = "local profile: unknown key (only path)";
			return -1;
		}
	}
	v = json_object_get(t, "path");
	if (!json_is_string(v) || json_string_value(v)[0] != '/' ||
	    json_string_length(v) >= 4096 ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		*why = "local profile: path must be an absolute path";
		return -1;
	}
	return 0;
}

static int
local_check(const json_t *t, char *why, size_t whylen)
{
	size_t checked;

	return local_check_tree(json_string_value(json_object_get(t, "path")),
	    getuid(), why, whylen, &checked);
}

static int
local_open(const json_t *t, const char *home, struct source **out,
    const char **why)
{
	/* For the human: the path and the mode refused (start-up line). */
	static char reason[1200];
	struct source *s = calloc(1, sizeof(*s));
	struct stat st;

	if (s == NULL) {
		*why = "local profile: out of memory";
		return -1;
	}
	if (str_fmt(s->path, sizeof(s->path), "%s",
	    json_string_value(json_object_get(t, "path"))) != STR_OK) {
		*why = "local profile: path must be an absolute path";
		free(s);
		return -1;
	}
	if (local_check(t, reason, sizeof(reason)) != 0) {
		*why = reason;
		free(s);
		return -1;
	}
	s->dirfd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0 || fstat(s->dirfd, &st) != 0) {
		*why = "local profile: directory cannot be opened";
		if (s->dirfd >= 0)
			close(s->dirfd);
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

static enum fetch_cause
errno_cause(int e)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		return FC_MISSING;
	case EACCES:
	case EPERM:
		return FC_DENIED;
	case ELOOP:
	case EXDEV:
		return FC_NOT_REGULAR;
	default:
		return FC_IO;
	}
}

/* One step of a key's path, opened (fd) and checked: 0, or FC_EXPOSED
 * with the audit detail naming which step and its mode. */
static enum fetch_cause
step_ok(int fd, const char *what, struct fetch_result *res)
{
	struct stat st;
	char why[256];

	if (fstat(fd, &st) != 0)
		return FC_IO;
	if (local_perm_fd(fd, &st, getuid(), why, sizeof(why)) == LOCAL_PERM_OK)
		return FC_OK;
	/* The audit detail is short: the step and its mode come first. */
	str_msg(res->detail, sizeof(res->detail), "%s %s", what, why);
	return FC_EXPOSED;
}

/* Walk the key's directories from the profile's, each opened beneath the
 * last (no symlink, no mount crossed) and checked. Returns the fd of the
 * key's parent directory (the caller closes it when it is not dirfd) and
 * the last component in *leaf, or -1 with *cause set. */
static int
walk_parents(struct source *s, const char *key, const char **leaf,
    enum fetch_cause *cause, struct fetch_result *res)
{
	/* RESOLVE_NO_SYMLINKS refuses a symlink step with ELOOP (not-regular,
	 * as a whole-path lookup answers); O_NOFOLLOW would turn it into
	 * ENOTDIR. */
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	const char *p = key, *slash;
	char comp[256], what[64];
	int cur = s->dirfd, depth = 0;

	*cause = step_ok(s->dirfd, "the profile directory", res);
	if (*cause != FC_OK)
		return -1;
	while ((slash = strchr(p, '/')) != NULL) {
		size_t n = (size_t)(slash - p);
		int fd;

		if (n == 0 || n >= sizeof(comp)) {
			*cause = FC_MISSING;
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		fd = (int)syscall(SYS_openat2, cur, comp, &how, sizeof(how));
		if (fd < 0) {
			*cause = errno_cause(errno);
			str_msg(res->detail, sizeof(res->detail), "open: %s",
			    strerror(errno));
			goto fail;
		}
		if (cur != s->dirfd)
			close(cur);
		cur = fd;
		str_msg(what, sizeof(what), "directory %d of the key", ++depth);
		*cause = step_ok(cur, what, res);
		if (*cause != FC_OK)
			goto fail;
		p = slash + 1;
	}
	*leaf = p;
	return cur;
fail:
	if (cur != s->dirfd)
		close(cur);
	return -1;
}

static enum fetch_cause
local_fetch(struct source *s, const char *key, int outfd,
    unsigned long long cap, struct fetch_result *res)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct sink sk;
	enum fetch_cause c = FC_IO;
	struct stat st, st2;
	const char *leaf = key;
	int fd, pfd, parent;

	memset(res, 0, sizeof(*res));
	if (s == NULL) {
		str_msg(res->detail, sizeof(res->detail), "the profile could not "
		    "be opened at console start (see its start-up warning)");
		return FC_UNAVAILABLE;
	}
	parent = walk_parents(s, key, &leaf, &c, res);
	if (parent < 0)
		return c;
	/* The lookup with O_PATH: nothing is opened yet, so a FIFO cannot
	 * stall us and a device node's driver is never called; only a
	 * regular file is then opened for reading, through the same inode. */
	pfd = (int)syscall(SYS_openat2, parent, leaf, &how, sizeof(how));
	if (parent != s->dirfd)
		close(parent);
	if (pfd < 0) {
		c = errno_cause(errno);
		str_msg(res->detail, sizeof(res->detail), "open: %s",
		    strerror(errno));
		return c;
	}
	if (fstat(pfd, &st) != 0) {
		close(pfd);
		return FC_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		close(pfd);
		return FC_NOT_REGULAR;
	}
	fd = fd_reopen(pfd, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	c = fd < 0 ? errno_cause(errno) : FC_OK;
	if (fd < 0)
		str_msg(res->detail, sizeof(res->detail), "open: %s",
		    strerror(errno));
	close(pfd);
	if (fd < 0)
		return c;
	if (fstat(fd, &st2) != 0 || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino || !S_ISREG(st2.st_mode)) {
		close(fd);
		return FC_IO;
	}
	if ((c = step_ok(fd, "the file", res)) != FC_OK) {
		close(fd);
		return c;
	}
	/* the inode read, whichever of its names was asked for */
	if (str_fmt(res->object, sizeof(res->object), "local:%llu:%llu",
	    (unsigned long long)st2.st_dev, (unsigned long long)st2.st_ino) !=
	    STR_OK)
		res->object[0] = '\0';
	if ((unsigned long long)st.st_size > cap) {
		close(fd);
		return FC_TOO_BIG;
	}
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if ((c = sink_init(&sk, outfd, cap)) != FC_OK) {
		str_msg(res->detail, sizeof(res->detail), "spool: cannot be set "
		    "up");
		goto out;
	}
	/* Read straight into the sink's ring: it hashes on its own thread
	 * while this one reads and writes. The file may grow while read: the
	 * cap holds regardless. */
	for (;;) {
		size_t room;
		uint8_t *buf = sink_buffer(&sk, &room);
		ssize_t n = read(fd, buf, room);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			str_msg(res->detail, sizeof(res->detail), "read: %s",
			    strerror(errno));
			c = FC_IO;
			goto out;
		}
		if (n == 0)
			break;
		c = sink_commit(&sk, (size_t)n);
		if (c != FC_OK)
			goto done;
	}
	c = sink_finish(&sk, res);
done:
	if (c == FC_IO)
		str_msg(res->detail, sizeof(res->detail), "spool: %s",
		    strerror(sk.write_errno));
out:
	sink_free(&sk);
	close(fd);
	return c;
}

static size_t
local_words(const struct source *s, const char **words, size_t max)
{
	if (max < 1)
		return 0;
	words[0] = s->path;
	return 1;
}

static size_t
local_read_paths(const json_t *t, struct source_read_path *out, size_t max)
{
	const char *path = json_string_value(json_object_get(t, "path"));

	if (max < 1 || path == NULL)
		return 0;
	out[0].key = "path";
	out[0].path = path;
	return 1;
}

static void
local_close(struct source *s)
{
	if (s == NULL)
		return;
	close(s->dirfd);
	free(s);
}

const struct source_kind source_local = {
	.name = "local",
	.read_paths = local_read_paths,
	.validate = local_validate,
	.check = local_check,
	.open = local_open,
	.fetch = local_fetch,
	.location_words = local_words,
	.close = local_close,
};
