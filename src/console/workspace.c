/* The workspace (see workspace.h). */
#include "console/workspace.h"
#include "lib/clock.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/rmtree.h"
#include "lib/paths.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
		if (rm_tree_at(dirfd(d), de->d_name) != 0)
			logit_errno("workspace: cannot remove an entry");
	}
	closedir(d);
}

int
ws_open(struct workspace *ws, const char *work_dir, unsigned long long cap,
    const char **why)
{
	pthread_condattr_t ca;
	struct stat st;
	size_t i;

	memset(ws, 0, sizeof(*ws));
	for (i = 0; i < WS_MAX_FILES; i++)
		ws->h[i].keep = ws->h[i].wr = ws->h[i].pad_keep = -1;
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
	/* The deleter sleeps until the next TTL on the clock now_ms() reads. */
	if (pthread_condattr_init(&ca) != 0 ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&ws->cv, &ca) != 0 ||
	    pthread_mutex_init(&ws->mu, NULL) != 0) {
		*why = "workspace: cannot set up the deleter's lock";
		return -1;
	}
	pthread_condattr_destroy(&ca);
	ws->inited = 1;
	return 0;
}

static void
lock(struct workspace *ws)
{
	/* Only a corrupted mutex refuses: a broken invariant. The fatal
	 * cleanup takes no lock (ws_emergency). */
	if (pthread_mutex_lock(&ws->mu) != 0)
		fatal("workspace: mutex");
}

static void
unlock(struct workspace *ws)
{
	(void)pthread_mutex_unlock(&ws->mu);
}

/* The last close of *fd goes to the deleter (ws->mu held). */
static void
to_grave(struct workspace *ws, int *fd)
{
	if (*fd < 0)
		return;
	if (ws->running && ws->ngrave < 4 * WS_MAX_FILES) {
		ws->grave[ws->ngrave++] = *fd;
		(void)pthread_cond_signal(&ws->cv);
	} else {
		close(*fd);
	}
	*fd = -1;
}

/* A held file's names: its data, its pad (if any) and its directory. */
static void
remove_names(const char *file, const char *pad, const char *dir)
{
	if (unlink(file) != 0 && errno != ENOENT)
		logit_errno("workspace: cannot delete a file");
	if (pad[0] != '\0' && unlink(pad) != 0 && errno != ENOENT)
		logit_errno("workspace: cannot delete a pad file");
	if (rmdir(dir) != 0 && errno != ENOENT)
		logit_errno("workspace: cannot remove a directory");
}

/* h's descriptors to the deleter (ws->mu held, h unlinked). A run reading
 * the file keeps every byte: wr is closed instead (not the last reference)
 * and the run's input, the last, frees the file in one go inside the
 * quantum. No run starts once unlinked. */
static void
fds_to_grave(struct workspace *ws, struct ws_handle *h)
{
	to_grave(ws, &h->keep);
	to_grave(ws, &h->pad_keep);
	if (h->readers == 0) {
		to_grave(ws, &h->wr);
	} else if (h->wr >= 0) {
		close(h->wr);
		h->wr = -1;
	}
}

/* Remove h's names (ws->mu held). With h->keep open this only drops the
 * names, whatever the file's size: the blocks stay until keep's last
 * close, which goes to the deleter (the graveyard). Without a keep (it
 * could not be opened) the unlink frees them here, slower for a larger
 * file: said in the log. */
static void
unlink_names(struct workspace *ws, struct ws_handle *h)
{
	if (h->unlinked)
		return;
	if (h->keep < 0 && h->state == WS_HELD)
		h->keep = open(h->file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		    O_NOCTTY);
	if (h->keep < 0 && h->state == WS_HELD)
		logit_errno("workspace: deleting a file on the serving path");
	remove_names(h->file, h->pad, h->dir);
	h->unlinked = 1;
	fds_to_grave(ws, h);
}

static void
free_slot(struct workspace *ws, struct ws_handle *h)
{
	ASSERT(ws->reserved >= h->reserved);
	ws->reserved -= h->reserved;
	explicit_bzero(h, sizeof(*h));
	h->state = WS_FREE;
	h->keep = h->wr = h->pad_keep = -1;
}

/* One step of freeing a file before its last close: shrink it by
 * WS_SHRINK_STEP. Returns 1 while more is left, 0 when it is empty or is
 * not ours to shrink (a read-only fd: keep, a run's input). One close of a
 * large file is one long stretch in the kernel (ext4 freeing its extents:
 * about 200 ms for 512 MiB here), which a kernel built without preemption
 * does not interrupt for the serving thread whatever this thread's
 * priority; an agent timing round trips saw it, 15 ms at the worst. Small
 * steps with a pause between leave the CPU to others (docs/security.md,
 * "Side channels"). Only fds the console alone writes are shrunk (wr,
 * the pad), and wr only when no run reads the file. */
static int
shrink_step(int fd)
{
	struct stat st;
	off_t left;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || fstat(fd, &st) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_size <= 0)
		return 0;
	left = (unsigned long long)st.st_size > WS_SHRINK_STEP ?
	    st.st_size - (off_t)WS_SHRINK_STEP : 0;
	if (ftruncate(fd, left) != 0) {
		logit_errno("workspace: cannot shrink a file; its last close "
		    "frees it at once");
		return 0;
	}
	return left > 0;
}

/* Take a handle whose TTL has ended (ws->mu held): its names go now, its
 * fds to the graveyard, where they are freed a step at a time. */
static void
take_due(struct workspace *ws, struct ws_handle *due)
{
	char file[PATH_MAX], dir[PATH_MAX], pad[PATH_MAX];

	memcpy(file, due->file, sizeof(file));
	memcpy(dir, due->dir, sizeof(dir));
	memcpy(pad, due->pad, sizeof(pad));
	due->unlinked = 1;
	fds_to_grave(ws, due);
	/* Names only, outside the lock: the serving thread never waits. */
	unlock(ws);
	remove_names(file, pad, dir);
	lock(ws);
}

static void
wait_until(struct workspace *ws, long long when)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(when / 1000);
	ts.tv_nsec = (long)(when % 1000) * 1000000;
	(void)pthread_cond_timedwait(&ws->cv, &ws->mu, &ts);
}

/* The deleter: each file whose TTL has ended loses its names, and every
 * file's last close happens here, never in the thread that answers; a
 * file being freed step by step never holds up another's TTL. */
static void *
deleter_main(void *arg)
{
	struct workspace *ws = arg;
	int cur = -1;		/* the fd being freed */

	/* Freeing a file's blocks is CPU work in the kernel: at the lowest
	 * priority, and in steps (shrink_step). */
	(void)setpriority(PRIO_PROCESS, 0, 19);
	lock(ws);
	for (;;) {
		long long now = now_ms(), next = 0;
		struct ws_handle *due = NULL;
		size_t i;

		for (i = 0; i < WS_MAX_FILES && due == NULL; i++) {
			struct ws_handle *h = &ws->h[i];
			if (h->state != WS_HELD || h->unlinked)
				continue;
			if (h->expires_ms <= now)
				due = h;
			else if (next == 0 || h->expires_ms < next)
				next = h->expires_ms;
		}
		if (due != NULL) {
			take_due(ws, due);
			continue;
		}
		if (cur < 0 && ws->ngrave > 0)
			cur = ws->grave[--ws->ngrave];
		if (cur >= 0) {
			/* At shutdown the listener is closed: no one to spare. */
			int more = !ws->stop;

			unlock(ws);
			if (more)
				more = shrink_step(cur);
			if (!more) {
				close(cur);
				cur = -1;
			}
			lock(ws);
			if (!ws->stop)
				wait_until(ws, now_ms() + WS_SHRINK_PAUSE_MS);
			continue;
		}
		if (ws->stop)
			break;
		if (next == 0)
			(void)pthread_cond_wait(&ws->cv, &ws->mu);
		else
			wait_until(ws, next);
	}
	unlock(ws);
	return NULL;
}

int
ws_start_deleter(struct workspace *ws, const char **why)
{
	sigset_t all, old;
	int e;

	ASSERT(ws->inited && !ws->running);
	/* Signals stay with the serving thread (its signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&ws->deleter, NULL, deleter_main, ws);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		*why = "cannot start the deleter thread";
		return -1;
	}
	ws->running = 1;
	return 0;
}

void
ws_close(struct workspace *ws)
{
	size_t i;

	if (!ws->inited)
		return;
	if (ws->running) {
		lock(ws);
		ws->stop = 1;
		(void)pthread_cond_signal(&ws->cv);
		unlock(ws);
		(void)pthread_join(ws->deleter, NULL);
		ws->running = 0;
	}
	for (i = 0; i < WS_MAX_FILES; i++)
		if (ws->h[i].state != WS_FREE)
			ws_drop(ws, &ws->h[i]);
	if (ws->root[0] != '\0')
		sweep(ws->root);
}

void
ws_emergency(struct workspace *ws)
{
	size_t i;

	if (!ws->inited)
		return;
	for (i = 0; i < WS_MAX_FILES; i++)
		if (ws->h[i].state != WS_FREE) {
			(void)unlink(ws->h[i].file);
			if (ws->h[i].pad[0] != '\0')
				(void)unlink(ws->h[i].pad);
			(void)rmdir(ws->h[i].dir);
		}
	if (ws->root[0] != '\0')
		sweep(ws->root);
}

struct ws_handle *
ws_begin_fetch(struct workspace *ws, int *fd, const char **why)
{
	struct ws_handle *h = NULL;
	char rnd[40];
	size_t i;

	lock(ws);
	for (i = 0; i < WS_MAX_FILES; i++)
		if (ws->h[i].state == WS_FREE) {
			h = &ws->h[i];
			break;
		}
	if (h == NULL) {
		unlock(ws);
		*why = "workspace holds 64 files already";
		return NULL;
	}
	if (ws->reserved >= ws->cap) {
		unlock(ws);
		*why = "workspace cap reached";
		return NULL;
	}
	memset(h, 0, sizeof(*h));
	h->keep = h->wr = h->pad_keep = -1;
	random_id("", rnd, sizeof(rnd));
	random_id("f_", h->id, sizeof(h->id));
	{
		char dir[PATH_MAX / 2 + 64];
		if (str_fmt(dir, sizeof(dir), "%s/%s", ws->root, rnd) != STR_OK ||
		    str_fmt(h->dir, sizeof(h->dir), "%s", dir) != STR_OK ||
		    str_fmt(h->file, sizeof(h->file), "%s/%s", dir,
		    LF_WORK_FILE) != STR_OK) {
			*why = "work_dir is too long";
			return NULL;
		}
	}
	if (mkdir(h->dir, 0700) != 0) {
		unlock(ws);
		*why = "cannot create the fetch directory";
		return NULL;
	}
	*fd = open(h->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (*fd < 0) {
		(void)rmdir(h->dir);
		unlock(ws);
		*why = "cannot create the spool file";
		return NULL;
	}
	/* One fetch at a time is served, but the accounting holds for any
	 * number: this reservation is what remains of the cap. */
	h->reserved = ws->cap - ws->reserved;
	ws->reserved += h->reserved;
	h->state = WS_FETCHING;
	unlock(ws);
	return h;
}

unsigned long long
ws_class(unsigned long long size)
{
	unsigned long long c = WS_MIN_CLASS;

	while (c < size && c <= ULLONG_MAX / 2)
		c *= 2;
	return c < size ? size : c;
}

/* Write n bytes (zeros) to a new pad file in h's directory; its fd, kept
 * so that the last close frees it off the serving path, or -1. */
static int
write_pad(struct ws_handle *h, unsigned long long n)
{
	static const uint8_t zeros[64 * 1024];
	int fd;

	if (str_fmt(h->pad, sizeof(h->pad), "%s/%s", h->dir, WS_PAD_FILE) !=
	    STR_OK) {
		h->pad[0] = '\0';
		return -1;
	}
	fd = open(h->pad, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return -1;
	while (n > 0) {
		size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);
		if (write_full(fd, zeros, k) != 0) {
			close(fd);
			return -1;
		}
		n -= k;
	}
	return fd;
}

void
ws_commit(struct workspace *ws, struct ws_handle *h, unsigned long long size,
    const uint8_t sha256[SHA256_LEN], long long ttl_ms, uid_t uid)
{
	/* The reference whose last close frees the file: opened now, while
	 * descriptors are plenty, so that deleting never needs a new one. */
	int keep = open(h->file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	/* And the one that shrinks it before that close (shrink_step): opened
	 * before the chmod to 0400, never given to a plugin. */
	int wr = open(h->file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	unsigned long long footprint = ws_class(size);
	int pad = -1;

	/* The footprint is the class, or what this fetch reserved (the rest
	 * of the cap) when the class does not fit: then it tells only that
	 * the file took at least the rest of the cap. Written before the
	 * plugins run, inside the quantum (docs/security.md). */
	if (footprint > h->reserved)
		footprint = h->reserved;
	if (footprint > size) {
		pad = write_pad(h, footprint - size);
		if (pad < 0) {
			logit_errno("workspace: cannot write the pad file: this "
			    "file's size shows on host-wide counters");
			footprint = size;
		}
	}
	lock(ws);
	ASSERT(h->state == WS_FETCHING && size <= h->reserved);
	ws->reserved -= h->reserved - footprint;
	h->reserved = footprint;
	h->pad_keep = pad;
	h->size = size;
	memcpy(h->sha256, sha256, SHA256_LEN);
	h->uid = uid;
	h->keep = keep;
	h->wr = wr;
	h->readers = 0;
	h->expires_ms = now_ms() + ttl_ms;
	h->state = WS_HELD;
	(void)chmod(h->file, 0400);
	if (pad >= 0)
		(void)chmod(h->pad, 0400);
	(void)pthread_cond_signal(&ws->cv);	/* a new deadline */
	unlock(ws);
}

void
ws_drop(struct workspace *ws, struct ws_handle *h)
{
	lock(ws);
	if (h->state != WS_FREE) {
		unlink_names(ws, h);
		free_slot(ws, h);
	}
	unlock(ws);
}

struct ws_handle *
ws_find(struct workspace *ws, const char *id, uid_t uid)
{
	struct ws_handle *found = NULL;
	long long now = now_ms();
	size_t i;

	/* Every slot is compared, matching or not: the answer takes the same
	 * time for a wrong id, another peer's id and an expired one. */
	lock(ws);
	for (i = 0; i < WS_MAX_FILES; i++) {
		struct ws_handle *h = &ws->h[i];
		int ok = h->state == WS_HELD && !h->unlinked &&
		    h->expires_ms > now && h->uid == uid &&
		    strlen(h->id) == strlen(id) &&
		    ct_equal(h->id, id, strlen(id));
		if (ok)
			found = h;
	}
	unlock(ws);
	return found;
}

int
ws_alive(struct workspace *ws, const struct ws_handle *h, long long now)
{
	int ok;

	lock(ws);
	ok = h->state == WS_HELD && !h->unlinked && h->expires_ms > now;
	unlock(ws);
	return ok;
}

long long
ws_expire(struct workspace *ws, long long now)
{
	long long next = 0;
	size_t i;

	lock(ws);
	for (i = 0; i < WS_MAX_FILES; i++) {
		struct ws_handle *h = &ws->h[i];
		if (h->state != WS_HELD)
			continue;
		if (h->expires_ms <= now || h->unlinked) {
			unlink_names(ws, h);	/* constant time; usually done */
			free_slot(ws, h);
		} else if (next == 0 || h->expires_ms < next) {
			next = h->expires_ms;
		}
	}
	unlock(ws);
	return next;
}

int
ws_open_input(struct workspace *ws, struct ws_handle *h)
{
	int fd, e;

	lock(ws);
	if (h->state != WS_HELD || h->unlinked) {
		unlock(ws);
		errno = ENOENT;
		return -1;
	}
	/* A second reference to the same file: the deleter may take the
	 * names and keep meanwhile, this one stays readable. */
	fd = h->keep >= 0 ? fcntl(h->keep, F_DUPFD_CLOEXEC, 0)
	    : open(h->file, OPEN_RO_SAFE);
	e = errno;
	if (fd >= 0)
		h->readers++;
	unlock(ws);
	if (fd < 0)
		errno = e == ENOENT ? EIO : e;	/* ENOENT means gone, only that */
	return fd;
}

void
ws_close_input(struct workspace *ws, struct ws_handle *h, int fd)
{
	lock(ws);
	ASSERT(h->readers > 0);
	h->readers--;
	to_grave(ws, &fd);	/* perhaps the last reference: the deleter's */
	unlock(ws);
}
