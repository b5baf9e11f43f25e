/* The installed layout and its records (see state.h). */
#include "update/state.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/str.h"
#include "lib/sysconf.h"
#include "store/trust.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static const char *const by_names[] = {
	[UPD_BY_UPDATE] = "update",
	[UPD_BY_INSTALL_SH] = "install.sh",
};

const char *
upd_by_name(enum upd_by by)
{
	return by_names[by];
}

/* Root's directory, closed to writes by group and others. */
static int
dir_safe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	    !(st.st_mode & (S_IWGRP | S_IWOTH));
}

enum upd_files_status
upd_subdir(int parent, const char *name, int create, int *out)
{
	int fd;

	*out = -1;
	fd = openat(parent, name, DIR_FLAGS);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(parent, name, 0755) != 0 && errno != EEXIST)
			return UPD_FILES_IO;
		fd = openat(parent, name, DIR_FLAGS);
		if (fd >= 0 && (fchown(fd, 0, 0) != 0 ||
		    fchmod(fd, 0755) != 0)) {
			close(fd);
			return UPD_FILES_IO;
		}
	}
	if (fd < 0)
		return errno == ENOENT ? UPD_FILES_MISSING :
		    errno == ELOOP || errno == ENOTDIR ? UPD_FILES_UNSAFE :
		    UPD_FILES_IO;
	if (!dir_safe(fd)) {
		close(fd);
		return UPD_FILES_UNSAFE;
	}
	*out = fd;
	return UPD_FILES_OK;
}

void
upd_dirs_close(struct upd_dirs *d)
{
	int *fds[] = { &d->prefix, &d->bin, &d->share, &d->lib };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

enum upd_files_status
upd_dirs_open(const char *prefix, int create, struct upd_dirs *d)
{
	enum upd_files_status st;
	int mid = -1;

	d->prefix = d->bin = d->share = d->lib = -1;
	if (prefix[0] != '/')
		return UPD_FILES_UNSAFE;
	if (sysconf_root_owned_chain(prefix) != 0)
		return errno == ENOENT ? UPD_FILES_MISSING : UPD_FILES_UNSAFE;
	d->prefix = open(prefix, DIR_FLAGS);
	if (d->prefix < 0)
		return UPD_FILES_IO;
	if (!dir_safe(d->prefix)) {
		st = UPD_FILES_UNSAFE;
		goto fail;
	}
	if ((st = upd_subdir(d->prefix, "bin", create, &d->bin)) != UPD_FILES_OK)
		goto fail;
	if ((st = upd_subdir(d->prefix, "share", create, &mid)) != UPD_FILES_OK)
		goto fail;
	st = upd_subdir(mid, "lockfile", create, &d->share);
	close(mid);
	if (st != UPD_FILES_OK)
		goto fail;
	if ((st = upd_subdir(d->prefix, "lib", create, &mid)) != UPD_FILES_OK)
		goto fail;
	st = upd_subdir(mid, "lockfile", create, &d->lib);
	close(mid);
	if (st != UPD_FILES_OK)
		goto fail;
	return UPD_FILES_OK;
fail:
	upd_dirs_close(d);
	return st;
}

int
upd_dir_for(const struct upd_dirs *d, const struct relart *a)
{
	return a->kind == RELART_BIN ? d->bin : d->share;
}

enum upd_files_status
upd_read_at(int dirfd, const char *name, size_t max, char **data,
    size_t *len)
{
	struct stat st;
	char *p;
	ssize_t n;
	int fd;

	*data = NULL;
	*len = 0;
	fd = openat(dirfd, name, OPEN_RO_SAFE | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? UPD_FILES_MISSING :
		    errno == ELOOP ? UPD_FILES_UNSAFE : UPD_FILES_IO;
	if (check_fd_owner_mode(fd, 0, 1) != 0 || fstat(fd, &st) != 0 ||
	    st.st_size < 0 || (unsigned long long)st.st_size > max) {
		close(fd);
		return UPD_FILES_UNSAFE;
	}
	p = malloc((size_t)st.st_size + 1);
	if (p == NULL) {
		close(fd);
		return UPD_FILES_IO;
	}
	n = read_full(fd, p, (size_t)st.st_size);
	close(fd);
	if (n != (ssize_t)st.st_size) {
		free(p);
		return UPD_FILES_IO;
	}
	p[n] = '\0';
	*data = p;
	*len = (size_t)n;
	return UPD_FILES_OK;
}

int
upd_tmp_open(int dirfd, const char *name, char *tmp, size_t tmplen)
{
	uint8_t r[8];
	char hex[17];

	random_bytes(r, sizeof(r));
	hex_encode(r, sizeof(r), hex);
	if (str_fmt(tmp, tmplen, "%s%s.%s", UPD_TMP_PREFIX, name, hex) !=
	    STR_OK) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
}

enum upd_files_status
upd_write_at(int dirfd, const char *name, const void *data, size_t len,
    mode_t mode)
{
	char tmp[160];
	int fd = upd_tmp_open(dirfd, name, tmp, sizeof(tmp));

	if (fd < 0)
		return UPD_FILES_IO;
	if (write_full(fd, data, len) != 0 || fchown(fd, 0, 0) != 0 ||
	    fchmod(fd, mode) != 0 || fsync(fd) != 0 ||
	    renameat(dirfd, tmp, dirfd, name) != 0) {
		close(fd);
		(void)unlinkat(dirfd, tmp, 0);
		return UPD_FILES_IO;
	}
	close(fd);
	return fsync(dirfd) == 0 ? UPD_FILES_OK : UPD_FILES_IO;
}

int
upd_copy_to_tmp(int srcdir, const char *name, int dstdir, char *tmp,
    size_t tmplen)
{
	char chunk[65536];
	ssize_t n;
	int in, out;

	in = openat(srcdir, name, OPEN_RO_SAFE | O_NONBLOCK);
	if (in < 0)
		return -1;
	if (check_fd_owner_mode(in, 0, 1) != 0) {
		close(in);
		errno = EPERM;
		return -1;
	}
	out = upd_tmp_open(dstdir, name, tmp, tmplen);
	if (out < 0) {
		close(in);
		return -1;
	}
	for (;;) {
		n = read(in, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || write_full(out, chunk, (size_t)n) != 0)
			break;
	}
	close(in);
	if (n != 0) {
		close(out);
		(void)unlinkat(dstdir, tmp, 0);
		return -1;
	}
	return out;
}

static void
rm_tree(int parent, const char *name, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *dd;
	int fd;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		(void)unlinkat(parent, name, 0);
		return;
	}
	if (depth <= 0)
		return;
	fd = openat(parent, name, DIR_FLAGS);
	if (fd < 0)
		return;
	dd = fdopendir(fd);
	if (dd == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(dd)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rm_tree(dirfd(dd), de->d_name, depth - 1);
	closedir(dd);
	(void)unlinkat(parent, name, AT_REMOVEDIR);
}

void
upd_rm_tree(int dirfd, const char *name)
{
	rm_tree(dirfd, name, 4);
}

void
upd_sweep(int dirfd)
{
	struct dirent *de;
	struct stat st;
	DIR *dd;
	int fd = dup(dirfd);

	if (fd < 0)
		return;
	dd = fdopendir(fd);
	if (dd == NULL) {
		close(fd);
		return;
	}
	rewinddir(dd);
	while ((de = readdir(dd)) != NULL)
		if (strncmp(de->d_name, UPD_TMP_PREFIX,
		    strlen(UPD_TMP_PREFIX)) == 0 &&
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode))
			(void)unlinkat(dirfd, de->d_name, 0);
	closedir(dd);
}

void
upd_record_free(struct upd_record *r)
{
	free(r->manifest);
	free(r->bundle);
	memset(r, 0, sizeof(*r));
}

enum upd_files_status
upd_record_load(int libfd, const char *dirname, struct upd_record *r,
    const char **why)
{
	enum upd_files_status st;
	char *by = NULL;
	size_t bylen;
	int dfd;

	memset(r, 0, sizeof(*r));
	*why = NULL;
	st = upd_subdir(libfd, dirname, 0, &dfd);
	if (st == UPD_FILES_MISSING)
		return UPD_FILES_OK;
	if (st != UPD_FILES_OK) {
		*why = "its directory is not root's or is writable by others";
		return st;
	}
	st = upd_read_at(dfd, RELMAN_FILE, RELMAN_MAX_BYTES, &r->manifest,
	    &r->mlen);
	if (st == UPD_FILES_MISSING) {
		close(dfd);
		return UPD_FILES_OK;
	}
	*why = "release.json, its bundle or installed-by is missing, not "
	    "root's or writable by others";
	if (st != UPD_FILES_OK ||
	    (st = upd_read_at(dfd, UPD_BUNDLE_FILE, UPD_BUNDLE_MAX, &r->bundle,
	    &r->blen)) != UPD_FILES_OK ||
	    (st = upd_read_at(dfd, UPD_BY_FILE, 64, &by, &bylen)) !=
	    UPD_FILES_OK)
		goto fail;
	st = UPD_FILES_INVALID;
	*why = "installed-by is neither update nor install.sh";
	if (strcmp(by, "update\n") == 0)
		r->by = UPD_BY_UPDATE;
	else if (strcmp(by, "install.sh\n") == 0)
		r->by = UPD_BY_INSTALL_SH;
	else
		goto fail;
	if (relman_parse(r->manifest, r->mlen, &r->m, why) != RELMAN_OK)
		goto fail;
	free(by);
	close(dfd);
	r->present = 1;
	*why = NULL;
	return UPD_FILES_OK;
fail:
	if (st == UPD_FILES_MISSING)
		st = UPD_FILES_INVALID;
	free(by);
	close(dfd);
	upd_record_free(r);
	return st;
}

enum upd_files_status
upd_record_write(int dirfd, const struct upd_record *r)
{
	char by[32];
	enum upd_files_status st;

	if (str_fmt(by, sizeof(by), "%s\n", upd_by_name(r->by)) != STR_OK)
		return UPD_FILES_INVALID;
	if ((st = upd_write_at(dirfd, UPD_BY_FILE, by, strlen(by), 0644)) !=
	    UPD_FILES_OK ||
	    (st = upd_write_at(dirfd, UPD_BUNDLE_FILE, r->bundle, r->blen,
	    0644)) != UPD_FILES_OK)
		return st;
	return upd_write_at(dirfd, RELMAN_FILE, r->manifest, r->mlen, 0644);
}

/* Boundary: "Plugins and releases are what their publisher built". A
 * repository name can change hands; the numeric ids (Fulcio .1.15, .1.17)
 * cannot, so without them nothing verifies (docs/releases.md). */
enum upd_verify_status
upd_verify(const struct trust *t, const char *tag,
    const uint8_t sha[SHA256_LEN], const uint8_t *bundle, size_t len,
    char *why, size_t whylen)
{
	struct market_conf m;

	if (t->release_repo_id[0] == '\0' || t->release_owner_id[0] == '\0') {
		str_msg(why, whylen, "trust.toml pins no release_repository_id "
		    "and release_owner_id (lockfile update --identity shows the "
		    "ones the release's signature carries)");
		return UPD_E_UNPINNED;
	}
	memset(&m, 0, sizeof(m));
	memcpy(m.name, "release", sizeof("release"));
	memcpy(m.repo, t->release_repo, sizeof(m.repo));
	memcpy(m.repo_id, t->release_repo_id, sizeof(m.repo_id));
	memcpy(m.owner_id, t->release_owner_id, sizeof(m.owner_id));
	return trust_verify(t, &m, tag, sha, bundle, len, why, whylen) == 0 ?
	    UPD_VERIFIED : UPD_E_SIGNATURE;
}
