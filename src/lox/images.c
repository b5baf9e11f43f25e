/* lox: the images by ID (docs/docker.md, "Images by ID").
 *
 * docker/build-images.sh records the IDs its build produced in a small
 * file (`console sha256:HEX` and `agent sha256:HEX`, one a line; default
 * /etc/lockfile/images, $LOX_IMAGES overrides). lox names images only by
 * such an ID: a tag can be moved to another image by anyone who can run
 * docker, an ID cannot, and with --pull never a missing ID is an error,
 * never a pull. */
#include "config.h"
#include "lox/lox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_MAX 4096
#define ID_HEX 64

static const char *
record_path(void)
{
	const char *p = getenv("LOX_IMAGES");

	return p != NULL && p[0] != '\0' ? p : LOX_IMAGES_DEFAULT;
}

int
lox_check_image(const char *image)
{
	size_t len = strlen(image);

	if (len != 7 + ID_HEX || strncmp(image, "sha256:", 7) != 0 ||
	    strspn(image + 7, "0123456789abcdef") != ID_HEX) {
		lox_err("not an image ID: %s (lox names images by the ID the "
		    "build recorded, sha256:..., never by a tag anyone can "
		    "move: lox image console)", image);
		return -1;
	}
	return 0;
}

/* The record's bytes: a regular file of at most RECORD_MAX bytes that
 * only its owner (root or the operator) can write. 0 or -1. */
static int
record_read(const char *path, char *buf)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		lox_err("no image recorded: %s: %s (docker/build-images.sh "
		    "--record %s, or make docker)", path, strerror(errno),
		    path);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > RECORD_MAX || (st.st_mode & 022) != 0 ||
	    (st.st_uid != 0 && st.st_uid != getuid())) {
		lox_err("the image record %s is not a small file only root or "
		    "you can write: refused", path);
		close(fd);
		return -1;
	}
	n = read(fd, buf, RECORD_MAX);
	close(fd);
	if (n < 0 || n != st.st_size) {
		lox_err("the image record %s could not be read", path);
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

/* The record, strictly: only lines "console ID", "agent ID" and "hub ID"
 * (build-images.sh --hub: the lockhub image), each role at most once, every line ended; anything else refuses the whole
 * record. */
int
lox_image(const char *role, char *out, size_t outlen)
{
	const char *path = record_path();
	char buf[RECORD_MAX + 1], *line, *nl, *sp;
	int seen[3] = { 0, 0, 0 }, found = 0, r;

	if (record_read(path, buf) != 0)
		return -1;
	for (line = buf; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		sp = strchr(line, ' ');
		if (nl == NULL || sp == NULL || sp > nl) {
			lox_err("the image record %s: each line is ROLE ID", path);
			return -1;
		}
		*nl = *sp = '\0';
		r = strcmp(line, "console") == 0 ? 0 :
		    strcmp(line, "agent") == 0 ? 1 :
		    strcmp(line, "hub") == 0 ? 2 : -1;
		if (r < 0 || seen[r]++ || lox_check_image(sp + 1) != 0) {
			lox_err("the image record %s: only one console, one "
			    "agent and one hub line, each with an image ID", path);
			return -1;
		}
		if (strcmp(line, role) == 0) {
			if (strlen(sp + 1) >= outlen)
				return -1;
			memcpy(out, sp + 1, strlen(sp + 1) + 1);
			found = 1;
		}
	}
	if (!found) {
		lox_err("the image record %s names no %s image", path, role);
		return -1;
	}
	return 0;
}

int
cmd_image(struct lox *l, int argc, char **argv)
{
	char id[LOX_IMAGE_ID_MAX];

	(void)l;
	if (argc != 2 || (strcmp(argv[1], "console") != 0 &&
	    strcmp(argv[1], "agent") != 0 && strcmp(argv[1], "hub") != 0)) {
		lox_err("lox image console|agent|hub");
		return LOX_EX_USAGE;
	}
	if (lox_image(argv[1], id, sizeof(id)) != 0)
		return LOX_EX_NOINPUT;
	printf("%s\n", id);
	return 0;
}
