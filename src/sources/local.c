/* The local-directory source. Boundary: a key never leaves the profile's
 * directory: it is opened with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
 * | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV) from the directory opened at
 * start, on top of the key cleaning done before. */
#include "sources/source.h"
#include "sources/sink.h"
#include "lib/fdutil.h"
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
local_open(const json_t *t, const char *home, struct source **out,
    const char **why)
{
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
	int fd, pfd;

	memset(res, 0, sizeof(*res));
	if (s == NULL) {
		str_msg(res->detail, sizeof(res->detail), "the profile could not "
		    "be opened at console start (see its start-up warning)");
		return FC_UNAVAILABLE;
	}
	/* The lookup with O_PATH: nothing is opened yet, so a FIFO cannot
	 * stall us and a device node's driver is never called; only a
	 * regular file is then opened for reading, through the same inode. */
	pfd = (int)syscall(SYS_openat2, s->dirfd, key, &how, sizeof(how));
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
	.validate = local_validate,
	.open = local_open,
	.fetch = local_fetch,
	.location_words = local_words,
	.close = local_close,
};
