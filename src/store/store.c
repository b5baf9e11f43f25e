/* Store read side (see store.h). */
#include "store/store.h"
#include "lib/fdutil.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
store_open(struct store *s, const char *home, const char **why)
{
	memset(s, 0, sizeof(*s));
	if (snprintf(s->root, sizeof(s->root), "%s/.local/share/lockfile/plugins",
	    home) >= (int)sizeof(s->root) ||
	    snprintf(s->lockpath, sizeof(s->lockpath),
	    "%s/.local/share/lockfile/plugins.lock", home) >=
	    (int)sizeof(s->lockpath)) {
		*why = "store path too long";
		return -1;
	}
	return lockdb_load(s->lockpath, &s->db, why);
}

int
store_reload(struct store *s, const char **why)
{
	return lockdb_load(s->lockpath, &s->db, why);
}

int
store_plugin_dir(const struct store *s, const char *name, const char *version,
    char *out, size_t outlen)
{
	if (snprintf(out, outlen, "%s/%s/%s", s->root, name, version) >=
	    (int)outlen)
		return -1;
	return 0;
}

/* Open a file of the store without following symlinks anywhere in the
 * path below the store root, regular and not writable by others. */
static int
open_store_file(const char *dir, const char *file)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path))
		return -1;
	fd = open(path, OPEN_RO_SAFE);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

enum store_status
store_open_plugin(const struct store *s, const char *name,
    const char *version, struct opened_plugin *out, const char **why)
{
	const struct lock_entry *e = lockdb_find_const(&s->db, name);
	char dir[PATH_MAX], mbuf[MANIFEST_MAX_BYTES];
	uint8_t h[SHA256_LEN];
	ssize_t n;
	int mfd = -1;
	enum store_status st = STORE_TAMPERED;

	memset(out, 0, sizeof(*out));
	out->binfd = -1;
	if (e == NULL || (version != NULL && version[0] != '\0' &&
	    strcmp(version, e->version) != 0)) {
		*why = "not recorded in plugins.lock";
		return STORE_NOT_INSTALLED;
	}
	if (e->yanked) {
		*why = "recorded as yanked";
		return STORE_YANKED;
	}
	if (store_plugin_dir(s, e->name, e->version, dir, sizeof(dir)) != 0) {
		*why = "store path too long";
		return STORE_NOT_INSTALLED;
	}
	mfd = open_store_file(dir, "manifest.json");
	if (mfd < 0) {
		*why = errno == ENOENT ? "manifest missing" : "manifest unsafe";
		return errno == ENOENT ? STORE_NOT_INSTALLED : STORE_TAMPERED;
	}
	n = read_full(mfd, mbuf, sizeof(mbuf));
	close(mfd);
	if (n < 0 || (size_t)n >= sizeof(mbuf)) {
		*why = "manifest unreadable or too large";
		goto out;
	}
	sha256_mem(mbuf, (size_t)n, h);
	if (!ct_equal(h, e->manifest_sha256, SHA256_LEN)) {
		*why = "manifest hash differs from plugins.lock";
		goto out;
	}
	if (manifest_parse(mbuf, (size_t)n, &out->m, why) != 0)
		goto out;
	if (strcmp(out->m.name, e->name) != 0 ||
	    strcmp(out->m.version, e->version) != 0 ||
	    !ct_equal(out->m.binary_sha256, e->binary_sha256, SHA256_LEN)) {
		*why = "manifest does not match its plugins.lock record";
		goto out;
	}
	out->binfd = open_store_file(dir, "plugin");
	if (out->binfd < 0) {
		*why = "plugin binary missing or unsafe";
		goto out;
	}
	if (sha256_fd_pread(out->binfd, h) != 0 ||
	    !ct_equal(h, e->binary_sha256, SHA256_LEN)) {
		*why = "binary hash differs from plugins.lock";
		goto out;
	}
	out->entry = *e;
	*why = NULL;
	st = STORE_OK;
out:
	if (st != STORE_OK && out->binfd >= 0) {
		close(out->binfd);
		out->binfd = -1;
	}
	return st;
}
