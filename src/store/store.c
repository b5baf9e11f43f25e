/* Store read side (see store.h). */
#include "store/store.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/str.h"

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
	if (str_fmt(s->root, sizeof(s->root), "%s/%s/%s", home,
	    LF_HOME_STORE_DIR, LF_STORE_PLUGINS) != STR_OK ||
	    str_fmt(s->lockpath, sizeof(s->lockpath), "%s/%s/%s", home,
	    LF_HOME_STORE_DIR, LF_STORE_LOCKDB) != STR_OK) {
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

/* One step of a walk below the store root: dfd's entry NAME, opened
 * without following a symlink, owned by the console account and not
 * writable by group or others (a directory of another account could be
 * swapped under us between the hash and the exec). */
static int
open_owned(int dfd, const char *name, int flags, mode_t type)
{
	struct stat st;
	int fd;

	if (name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		errno = EPERM;
		return -1;
	}
	fd = openat(dfd, name, flags | O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type ||
	    st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Open root/NAME/VERSION component by component: no symlink anywhere
 * below the root, every step the console account's own. The version's
 * files are then opened from it with open_owned(). */
static int
open_version_dir(const struct store *s, const char *name, const char *version)
{
	int root, nd, vd = -1, e;

	root = open(s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (root < 0)
		return -1;
	nd = open_owned(root, name, O_DIRECTORY, S_IFDIR);
	if (nd >= 0)
		vd = open_owned(nd, version, O_DIRECTORY, S_IFDIR);
	e = errno;
	if (nd >= 0)
		close(nd);
	close(root);
	errno = e;
	return vd;
}

static int
same_record(const struct lock_entry *a, const struct lock_entry *b)
{
	return strcmp(a->name, b->name) == 0 &&
	    strcmp(a->version, b->version) == 0 &&
	    memcmp(a->manifest_sha256, b->manifest_sha256, SHA256_LEN) == 0 &&
	    memcmp(a->binary_sha256, b->binary_sha256, SHA256_LEN) == 0 &&
	    strcmp(a->marketplace, b->marketplace) == 0 &&
	    !a->official == !b->official;
}

static int
same_file(const struct store_digest *d, const struct stat *st)
{
	return d->dev == st->st_dev && d->ino == st->st_ino &&
	    d->size == st->st_size &&
	    d->mtime.tv_sec == st->st_mtim.tv_sec &&
	    d->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	    d->ctime.tv_sec == st->st_ctim.tv_sec &&
	    d->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* 1 when the binary open on fd hashes to want. With a cache, a file whose
 * identity was hashed before is not read again: only the console account
 * can write the store's files, a write changes mtime and ctime, and
 * nothing can set ctime back. A digest is recorded only when the identity
 * did not move while the file was read. */
static int
binary_matches(int fd, const uint8_t want[SHA256_LEN], struct store *cache)
{
	struct stat before, after;
	uint8_t h[SHA256_LEN];
	size_t i;

	if (cache != NULL && fstat(fd, &before) == 0) {
		for (i = 0; i < cache->ndigests; i++)
			if (same_file(&cache->digests[i], &before))
				return ct_equal(cache->digests[i].sha256, want,
				    SHA256_LEN);
	}
	if (sha256_fd_pread(fd, h) != 0)
		return 0;
	if (cache != NULL && fstat(fd, &after) == 0) {
		struct store_digest d;

		memset(&d, 0, sizeof(d));
		d.dev = after.st_dev;
		d.ino = after.st_ino;
		d.size = after.st_size;
		d.mtime = after.st_mtim;
		d.ctime = after.st_ctim;
		memcpy(d.sha256, h, SHA256_LEN);
		if (same_file(&d, &before)) {
			cache->digests[cache->next_digest] = d;
			cache->next_digest = (cache->next_digest + 1) %
			    STORE_DIGESTS;
			if (cache->ndigests < STORE_DIGESTS)
				cache->ndigests++;
		}
	}
	return ct_equal(h, want, SHA256_LEN);
}

/* Open the version that record e names and check it against e: both
 * hashes on the opened files, the manifest naming e's name and version.
 * A missing version answers gone. The binary's hash comes from cache
 * when one is given (store_check_plugin), else is computed. */
static enum store_status
open_recorded(const struct store *s, const struct lock_entry *e,
    enum store_status gone, struct store *cache, struct opened_plugin *out,
    const char **why)
{
	char mbuf[MANIFEST_MAX_BYTES];
	uint8_t h[SHA256_LEN];
	ssize_t n;
	int vd, mfd;
	enum store_status st = STORE_TAMPERED;

	vd = open_version_dir(s, e->name, e->version);
	mfd = vd < 0 ? -1 : open_owned(vd, LF_PLUGIN_MANIFEST, 0, S_IFREG);
	if (mfd < 0) {
		int missing = errno == ENOENT;

		if (vd >= 0)
			close(vd);
		*why = missing ? "manifest missing" : "manifest unsafe";
		return missing ? gone : STORE_TAMPERED;
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
	out->binfd = open_owned(vd, LF_PLUGIN_BINARY, 0, S_IFREG);
	if (out->binfd < 0) {
		*why = "plugin binary missing or unsafe";
		goto out;
	}
	if (!binary_matches(out->binfd, e->binary_sha256, cache)) {
		*why = "binary hash differs from plugins.lock";
		goto out;
	}
	out->entry = *e;
	*why = NULL;
	st = STORE_OK;
out:
	close(vd);
	if (st != STORE_OK && out->binfd >= 0) {
		close(out->binfd);
		out->binfd = -1;
	}
	return st;
}

static enum store_status
open_current(const struct store *s, const char *name, const char *version,
    struct store *cache, struct opened_plugin *out, const char **why)
{
	const struct lock_entry *e = lockdb_find_const(&s->db, name);

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
	return open_recorded(s, e, STORE_NOT_INSTALLED, cache, out, why);
}

enum store_status
store_open_plugin(const struct store *s, const char *name,
    const char *version, struct opened_plugin *out, const char **why)
{
	return open_current(s, name, version, NULL, out, why);
}

enum store_status
store_check_plugin(struct store *s, const char *name, const char *version,
    struct opened_plugin *out, const char **why)
{
	return open_current(s, name, version, s, out, why);
}

enum store_status
store_open_pinned(const struct store *s, const struct lock_entry *pin,
    struct opened_plugin *out, const char **why)
{
	const struct lock_entry *e = lockdb_find_const(&s->db, pin->name);

	memset(out, 0, sizeof(*out));
	out->binfd = -1;
	/* Whatever moved since the pin was taken (removed, updated to another
	 * version, re-recorded with other hashes or another marketplace) is
	 * not what was approved: tampered, never "not installed". */
	if (e == NULL) {
		*why = "no longer recorded in plugins.lock";
		return STORE_TAMPERED;
	}
	if (e->yanked) {
		*why = "recorded as yanked since the approval";
		return STORE_YANKED;
	}
	if (!same_record(e, pin)) {
		*why = "plugins.lock changed since the approval";
		return STORE_TAMPERED;
	}
	return open_recorded(s, pin, STORE_TAMPERED, NULL, out, why);
}
