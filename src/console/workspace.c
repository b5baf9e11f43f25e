/* The workspace (see workspace.h). */
#include "console/workspace.h"
#include "lib/fdutil.h"
#include "lib/log.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Remove a directory tree below dirfd without following symlinks. */
static void
rm_tree_at(int parent, const char *name, int depth)
{
	int fd;
	DIR *d;
	struct dirent *de;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return;
	if (depth > 8)
		return;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rm_tree_at(dirfd(d), de->d_name, depth + 1);
	}
	closedir(d);
	if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		logit_errno("workspace: cannot remove an entry");
}

static void
sweep(const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rm_tree_at(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

int
ws_open(struct workspace *ws, const char *work_dir, unsigned long long cap,
    const char **why)
{
	struct stat st;

	memset(ws, 0, sizeof(*ws));
	if (strlen(work_dir) >= sizeof(ws->root)) {
		*why = "work_dir too long";
		return -1;
	}
	memcpy(ws->root, work_dir, strlen(work_dir) + 1);
	ws->cap = cap;
	if (mkdir_p(ws->root, 0700) != 0) {
		*why = "work_dir cannot be created";
		return -1;
	}
	if (lstat(ws->root, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != getuid()) {
		*why = "work_dir is not a directory of the console account";
		return -1;
	}
	if ((st.st_mode & 07777) != 0700 && chmod(ws->root, 0700) != 0) {
		*why = "work_dir mode cannot be set to 0700";
		return -1;
	}
	sweep(ws->root);
	return 0;
}

void
ws_close(struct workspace *ws)
{
	size_t i;

	for (i = 0; i < WS_MAX_FILES; i++)
		if (ws->h[i].state != WS_FREE)
			ws_drop(ws, &ws->h[i]);
	if (ws->root[0] != '\0')
		sweep(ws->root);
}

struct ws_handle *
ws_begin_fetch(struct workspace *ws, int *fd, const char **why)
{
	struct ws_handle *h = NULL;
	char rnd[40];
	size_t i;

	for (i = 0; i < WS_MAX_FILES; i++)
		if (ws->h[i].state == WS_FREE) {
			h = &ws->h[i];
			break;
		}
	if (h == NULL) {
		*why = "workspace holds 64 files already";
		return NULL;
	}
	if (ws->reserved >= ws->cap) {
		*why = "workspace cap reached";
		return NULL;
	}
	memset(h, 0, sizeof(*h));
	random_id("", rnd, sizeof(rnd));
	random_id("f_", h->id, sizeof(h->id));
	{
		char dir[PATH_MAX / 2 + 64];
		if (str_fmt(dir, sizeof(dir), "%s/%s", ws->root, rnd) != STR_OK ||
		    str_fmt(h->dir, sizeof(h->dir), "%s", dir) != STR_OK ||
		    str_fmt(h->file, sizeof(h->file), "%s/data", dir) != STR_OK) {
			*why = "work_dir is too long";
			return NULL;
		}
	}
	if (mkdir(h->dir, 0700) != 0) {
		*why = "cannot create the fetch directory";
		return NULL;
	}
	*fd = open(h->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (*fd < 0) {
		(void)rmdir(h->dir);
		*why = "cannot create the spool file";
		return NULL;
	}
	/* One fetch at a time is served, but the accounting holds for any
	 * number: this reservation is what remains of the cap. */
	h->reserved = ws->cap - ws->reserved;
	ws->reserved += h->reserved;
	h->state = WS_FETCHING;
	return h;
}

void
ws_commit(struct workspace *ws, struct ws_handle *h, unsigned long long size,
    const uint8_t sha256[SHA256_LEN], long long ttl_ms)
{
	ASSERT(h->state == WS_FETCHING && size <= h->reserved);
	ws->reserved -= h->reserved - size;
	h->reserved = size;
	h->size = size;
	memcpy(h->sha256, sha256, SHA256_LEN);
	h->expires_ms = now_ms() + ttl_ms;
	h->state = WS_HELD;
	(void)chmod(h->file, 0400);
}

void
ws_drop(struct workspace *ws, struct ws_handle *h)
{
	if (h->state == WS_FREE)
		return;
	if (unlink(h->file) != 0 && errno != ENOENT)
		logit_errno("workspace: cannot delete a file");
	if (rmdir(h->dir) != 0 && errno != ENOENT)
		logit_errno("workspace: cannot remove a directory");
	ASSERT(ws->reserved >= h->reserved);
	ws->reserved -= h->reserved;
	explicit_bzero(h, sizeof(*h));
	h->state = WS_FREE;
}

struct ws_handle *
ws_find(struct workspace *ws, const char *id)
{
	size_t i;

	for (i = 0; i < WS_MAX_FILES; i++)
		if (ws->h[i].state == WS_HELD &&
		    strlen(ws->h[i].id) == strlen(id) &&
		    ct_equal(ws->h[i].id, id, strlen(id)))
			return &ws->h[i];
	return NULL;
}

long long
ws_expire(struct workspace *ws, long long now)
{
	long long next = 0;
	size_t i;

	for (i = 0; i < WS_MAX_FILES; i++) {
		struct ws_handle *h = &ws->h[i];
		if (h->state != WS_HELD)
			continue;
		if (h->expires_ms <= now)
			ws_drop(ws, h);
		else if (next == 0 || h->expires_ms < next)
			next = h->expires_ms;
	}
	return next;
}

int
ws_open_input(const struct ws_handle *h)
{
	return open(h->file, OPEN_RO_SAFE);
}
