/* The answer ledger's files (ledger.h, docs/ledger.md, "The file"): the
 * ledger and its key, each checked (this account's, one name, 0600),
 * written whole or not at all (a new name, fsync, rename, the directory
 * fsync'd), compaction, and the opens: the console's (locked, migrating
 * format 1), the audit's (read only) and the repair's. */
#include "console/ledger_int.h"
#include "lib/buf.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

/* ---- files ---- */

enum ledger_err
lg_io_problem(struct ledger_problem *p, const char *what)
{
	if (p != NULL)
		p->sys_errno = errno;
	lg_problem(p, LEDGER_E_IO, "%s: %s", what, strerror(errno));
	return LEDGER_E_IO;
}

/* A regular file of this account with one name; 0600 made so. */
static enum ledger_err
check_file(int fd, int fix, struct ledger_problem *p)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return lg_io_problem(p, "the ledger cannot be examined");
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		lg_problem(p, LEDGER_E_UNSAFE, "the ledger is not a regular file of "
		    "this account with one name");
		return LEDGER_E_UNSAFE;
	}
	if (fix && (st.st_mode & 0777) != 0600 && fchmod(fd, 0600) != 0)
		return lg_io_problem(p, "the ledger cannot be made 0600");
	if ((unsigned long long)st.st_size > LEDGER_MAX_BYTES) {
		lg_problem(p, LEDGER_E_FULL, "the ledger is larger than %llu bytes",
		    LEDGER_MAX_BYTES);
		return LEDGER_E_FULL;
	}
	return LEDGER_OK;
}

static enum ledger_err
read_file(int fd, uint8_t **data, size_t *len, struct ledger_problem *p)
{
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0)
		return lg_io_problem(p, "the ledger cannot be examined");
	*len = (size_t)st.st_size;
	*data = xmalloc(*len + 1);
	n = pread(fd, *data, *len, 0);
	if (n < 0 || (size_t)n != *len) {
		free(*data);
		*data = NULL;
		if (n >= 0)
			errno = EIO;
		return lg_io_problem(p, "the ledger cannot be read");
	}
	return LEDGER_OK;
}

/* ---- the digests' key (LEDGER_SECRET_FILE) ---- */

/* Read the key; a missing one is made in memory (secret_missing) and
 * written by save_secret only where a ledger is written. fix: a looser
 * mode is made 0600 (a writer's open). */
static enum ledger_err
load_secret(struct ledger *l, int dirfd, int fix, struct ledger_problem *p)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(dirfd, LEDGER_SECRET_FILE, O_RDONLY | O_NOFOLLOW |
	    O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		randombytes_buf(l->secret, sizeof(l->secret));
		l->secret_missing = 1;
		return LEDGER_OK;
	}
	if (fd < 0) {
		if (errno != ELOOP)
			return lg_io_problem(p, "the ledger's key cannot be opened");
		lg_problem(p, LEDGER_E_UNSAFE, "the ledger's key is a symbolic link");
		return LEDGER_E_UNSAFE;
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return lg_io_problem(p, "the ledger's key cannot be examined");
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		close(fd);
		lg_problem(p, LEDGER_E_UNSAFE, "the ledger's key (%s) is not a regular "
		    "file of this account with one name", LEDGER_SECRET_FILE);
		return LEDGER_E_UNSAFE;
	}
	if (fix && (st.st_mode & 0777) != 0600 && fchmod(fd, 0600) != 0) {
		close(fd);
		return lg_io_problem(p, "the ledger's key cannot be made 0600");
	}
	n = pread(fd, l->secret, sizeof(l->secret), 0);
	close(fd);
	if (n != (ssize_t)sizeof(l->secret) ||
	    st.st_size != (off_t)sizeof(l->secret)) {
		sodium_memzero(l->secret, sizeof(l->secret));
		lg_problem(p, LEDGER_E_KEY, "the ledger's key (%s) is not %d bytes",
		    LEDGER_SECRET_FILE, LEDGER_SECRET_LEN);
		return LEDGER_E_KEY;
	}
	return LEDGER_OK;
}

/* Write the key made in memory: a new name, fsync, renamed into place
 * (never over one), the directory fsync'd: whole or absent after a crash. */
static enum ledger_err
save_secret(struct ledger *l, int dirfd, struct ledger_problem *p)
{
	enum ledger_err e = LEDGER_OK;
	int fd;

	if (!l->secret_missing)
		return LEDGER_OK;
	(void)unlinkat(dirfd, LEDGER_SECRET_NEW, 0);
	fd = openat(dirfd, LEDGER_SECRET_NEW, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return lg_io_problem(p, "the ledger's key cannot be created");
	if (write_full(fd, l->secret, sizeof(l->secret)) != 0 || fsync(fd) != 0)
		e = lg_io_problem(p, "the ledger's key cannot be written");
	close(fd);
	if (e == LEDGER_OK && renameat2(dirfd, LEDGER_SECRET_NEW, dirfd,
	    LEDGER_SECRET_FILE, RENAME_NOREPLACE) != 0)
		e = lg_io_problem(p, "the ledger's key cannot be put in place");
	if (e == LEDGER_OK && fsync(dirfd) != 0)
		e = lg_io_problem(p, "the ledger's directory cannot be synced");
	if (e != LEDGER_OK) {
		(void)unlinkat(dirfd, LEDGER_SECRET_NEW, 0);
		return e;
	}
	l->secret_missing = 0;
	return LEDGER_OK;
}

/* A format-2 file is digests under the key: without it, nothing in it
 * can be matched again, and it is never silently replaced. */
static enum ledger_err
secret_needed(const struct ledger *l, struct ledger_problem *p)
{
	if (!l->secret_missing || l->version == 1)
		return LEDGER_OK;
	lg_problem(p, LEDGER_E_KEY, "the ledger's key (%s) is missing: the "
	    "ledger's entries cannot be matched without it", LEDGER_SECRET_FILE);
	return LEDGER_E_KEY;
}

static enum ledger_err
write_out(int fd, struct buf *b, struct ledger_problem *p)
{
	if (write_full(fd, buf_data(b), buf_len(b)) != 0)
		return lg_io_problem(p, "the ledger cannot be written");
	buf_reset(b);
	return LEDGER_OK;
}

/* The whole of memory as a new generation, into fd (a fresh file). */
static enum ledger_err
write_generation(struct ledger *l, int fd, struct writer *w,
    struct ledger_problem *p)
{
	enum ledger_err e = LEDGER_OK;
	long long t = lg_now(l);
	uint32_t id = 0;
	size_t i, j;
	char hex[CHAIN_HEX + 1];

	memset(w->chain, 0, sizeof(w->chain));
	w->lines = 0;
	w->out = buf_new(2 * WRITE_CHUNK);
	if (lg_emit(w, "L %s %d %lld", MAGIC, LEDGER_VERSION, t) != 0)
		goto toolong;
	for (i = 0; i < l->nkeys; i++) {
		struct lkey *k = l->keys[i];
		lg_fold_groups(l, k, t);
		if (k->ng == 0)
			continue;
		if (lg_emit_key(w, k, ++id) != 0)
			goto toolong;
		for (j = 0; j < k->ncids; j++) {
			hex_encode(k->cids[j], LEDGER_ID_LEN, hex);
			if (lg_emit(w, "S %u %s", id, hex) != 0)
				goto toolong;
		}
		for (j = 0; j < k->ng; j++)
			if (lg_emit(w, "G %u %llu %llu %lld %lld", id, k->g[j].answers,
			    k->g[j].plans, k->g[j].first, k->g[j].last) != 0)
				goto toolong;
		if (buf_len(w->out) >= WRITE_CHUNK &&
		    (e = write_out(fd, w->out, p)) != LEDGER_OK)
			goto out;
	}
	for (i = 0; i < l->ncontents; i++) {
		const struct lcontent *c = &l->contents[i];
		hex_encode(c->id, LEDGER_ID_LEN, hex);
		if (lg_emit(w, "C %u %s %llu %llu %lld %lld", (unsigned)c->uid, hex,
		    c->t.answers, c->t.plans, c->t.first, c->t.last) != 0)
			goto toolong;
		if (buf_len(w->out) >= WRITE_CHUNK &&
		    (e = write_out(fd, w->out, p)) != LEDGER_OK)
			goto out;
	}
	e = write_out(fd, w->out, p);
	if (e == LEDGER_OK && fsync(fd) != 0)
		e = lg_io_problem(p, "the ledger cannot be synced");
	goto out;
toolong:
	lg_problem(p, LEDGER_E_FULL, "a record does not fit the ledger's limits");
	e = LEDGER_E_FULL;
out:
	buf_free(w->out);
	w->out = NULL;
	return e;
}

/* After a generation was written: ids are its ids, the counters its. */
static void
adopt_generation(struct ledger *l, const struct writer *w, long long t,
    unsigned long long bytes)
{
	uint32_t id = 0;
	size_t i;

	l->nbyid = 0;
	for (i = 0; i < l->nkeys; i++) {
		struct lkey *k = l->keys[i];
		k->fileid = 0;
		if (k->ng == 0)
			continue;
		k->fileid = ++id;
		l->byid = lg_grow(l->byid, &l->capbyid, l->nbyid + 1,
		    sizeof(*l->byid));
		l->byid[l->nbyid++] = k;
	}
	memcpy(l->chain, w->chain, SHA256_LEN);
	l->seq = w->seq;
	l->records = w->lines;
	l->compacted = w->lines;
	l->appended = 0;
	l->bytes = bytes;
	l->created = t;
}

/* Write memory to LEDGER_NEW_FILE in dirfd and put it in place of
 * LF_LEDGER_FILE (noreplace: only where there is none). Returns the new
 * file's descriptor (append-only) or -1. */
static int
replace_file(struct ledger *l, int dirfd, int noreplace,
    struct ledger_problem *p, enum ledger_err *e)
{
	struct writer w;
	struct stat st;
	long long t = lg_now(l);
	int fd;

	memset(&w, 0, sizeof(w));
	w.seq = l->seq;
	(void)unlinkat(dirfd, LEDGER_NEW_FILE, 0);
	fd = openat(dirfd, LEDGER_NEW_FILE, O_WRONLY | O_APPEND | O_CREAT |
	    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		*e = lg_io_problem(p, "a new ledger cannot be created");
		return -1;
	}
	*e = write_generation(l, fd, &w, p);
	if (*e == LEDGER_OK && fstat(fd, &st) != 0)
		*e = lg_io_problem(p, "the new ledger cannot be examined");
	if (*e == LEDGER_OK && renameat2(dirfd, LEDGER_NEW_FILE, dirfd,
	    LF_LEDGER_FILE, noreplace ? RENAME_NOREPLACE : 0) != 0)
		*e = lg_io_problem(p, "the new ledger cannot be put in place");
	if (*e == LEDGER_OK && fsync(dirfd) != 0)
		*e = lg_io_problem(p, "the ledger's directory cannot be synced");
	if (*e != LEDGER_OK) {
		close(fd);
		(void)unlinkat(dirfd, LEDGER_NEW_FILE, 0);
		return -1;
	}
	adopt_generation(l, &w, t, (unsigned long long)st.st_size);
	return fd;
}

enum ledger_err
ledger_compact(struct ledger *l, struct ledger_problem *p)
{
	enum ledger_err e;
	int fd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	if (l->broken || l->fd < 0) {
		lg_problem(p, LEDGER_E_BROKEN, "the ledger is not open for writing");
		return LEDGER_E_BROKEN;
	}
	fd = replace_file(l, l->dirfd, 0, p, &e);
	if (fd < 0)
		return e;
	close(l->fd);
	l->fd = fd;
	return LEDGER_OK;
}

int
ledger_compact_due(const struct ledger *l)
{
	return l->appended > LEDGER_COMPACT_MIN &&
	    l->appended > l->compacted;
}

static enum ledger_err
open_existing(struct ledger *l, int fd, struct ledger_problem *p)
{
	uint8_t *data = NULL;
	size_t len = 0;
	enum ledger_err e;

	if ((e = check_file(fd, l->fd >= 0, p)) != LEDGER_OK ||
	    (e = read_file(fd, &data, &len, p)) != LEDGER_OK)
		return e;
	e = lg_parse_all(l, data, len, p);
	free(data);
	return e;
}

enum ledger_err
ledger_open(struct ledger **out, int dirfd, const struct ledger_clock *clk,
    unsigned long long window_s, int *created, struct ledger_problem *p)
{
	struct ledger *l = lg_new(clk, window_s);
	enum ledger_err e;
	int fd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	*out = NULL;
	*created = 0;
	/* An open file description of our own: the lock is on it. */
	l->dirfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->dirfd < 0) {
		e = lg_io_problem(p, "the ledger's directory");
		goto fail;
	}
	if (flock(l->dirfd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK) {
			lg_problem(p, LEDGER_E_BUSY, "another console holds the ledger");
			e = LEDGER_E_BUSY;
		} else {
			e = lg_io_problem(p, "the ledger cannot be locked");
		}
		goto fail;
	}
	/* A compaction that did not finish: the ledger it was to replace is
	 * the whole one. */
	if (unlinkat(l->dirfd, LEDGER_NEW_FILE, 0) != 0 && errno != ENOENT) {
		e = lg_io_problem(p, "an unfinished compaction cannot be removed");
		goto fail;
	}
	if ((e = load_secret(l, l->dirfd, 1, p)) != LEDGER_OK)
		goto fail;
	fd = openat(l->dirfd, LF_LEDGER_FILE, O_RDWR | O_APPEND | O_NOFOLLOW |
	    O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* A new ledger is a whole header in place, never an empty
		 * file (noreplace: a ledger that appeared meanwhile stays);
		 * its key first. */
		if ((e = save_secret(l, l->dirfd, p)) != LEDGER_OK)
			goto fail;
		l->fd = replace_file(l, l->dirfd, 1, p, &e);
		if (l->fd < 0)
			goto fail;
		*created = 1;
		*out = l;
		return LEDGER_OK;
	}
	if (fd < 0) {
		e = errno == ELOOP ? LEDGER_E_UNSAFE :
		    lg_io_problem(p, "the ledger cannot be opened");
		if (e == LEDGER_E_UNSAFE)
			lg_problem(p, e, "the ledger is a symbolic link");
		goto fail;
	}
	l->fd = fd;
	if ((e = open_existing(l, fd, p)) != LEDGER_OK ||
	    (e = secret_needed(l, p)) != LEDGER_OK)
		goto fail;
	if (l->version == 1) {
		/* Format 1 held keys and sha256s in the clear: rewritten now
		 * as digests (docs/ledger.md, "At rest"). */
		if ((e = save_secret(l, l->dirfd, p)) != LEDGER_OK ||
		    (e = ledger_compact(l, p)) != LEDGER_OK)
			goto fail;
		l->version = LEDGER_VERSION;
		*created = 2;
	} else if (ledger_compact_due(l) &&
	    (e = ledger_compact(l, p)) != LEDGER_OK) {
		goto fail;
	}
	*out = l;
	return LEDGER_OK;
fail:
	ledger_close(l);
	return e;
}

enum ledger_err
ledger_read(struct ledger **out, int dirfd, const struct ledger_clock *clk,
    unsigned long long window_s, struct ledger_problem *p)
{
	struct ledger *l = lg_new(clk, window_s);
	enum ledger_err e;
	int fd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	*out = l;
	fd = openat(dirfd, LF_LEDGER_FILE, O_RDONLY | O_NOFOLLOW | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP) {
			lg_problem(p, LEDGER_E_UNSAFE, "the ledger is a symbolic link");
			return LEDGER_E_UNSAFE;
		}
		return lg_io_problem(p, "the ledger cannot be opened");
	}
	if ((e = load_secret(l, dirfd, 0, p)) == LEDGER_OK) {
		e = open_existing(l, fd, p);
		if (e == LEDGER_OK)
			e = secret_needed(l, p);
	}
	close(fd);
	return e;
}

enum ledger_err
ledger_rewrite(struct ledger *l, int dirfd, char *aside, size_t asidelen,
    struct ledger_problem *p)
{
	enum ledger_err e;
	int fd, lockfd;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	if (str_fmt(aside, asidelen, "%s.damaged-%lld", LF_LEDGER_FILE,
	    lg_now(l)) != STR_OK) {
		lg_problem(p, LEDGER_E_FULL, "no room for the damaged file's name");
		return LEDGER_E_FULL;
	}
	lockfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lockfd < 0)
		return lg_io_problem(p, "the ledger's directory");
	if (flock(lockfd, LOCK_EX | LOCK_NB) != 0) {
		close(lockfd);
		lg_problem(p, LEDGER_E_BUSY, "a console holds the ledger: stop it "
		    "first");
		return LEDGER_E_BUSY;
	}
	if (renameat2(lockfd, LF_LEDGER_FILE, lockfd, aside, RENAME_NOREPLACE) !=
	    0 && errno != ENOENT) {
		e = lg_io_problem(p, "the damaged ledger cannot be moved aside");
		close(lockfd);
		return e;
	}
	/* a format-1 file read without a key: its digests' key is saved */
	if ((e = save_secret(l, lockfd, p)) != LEDGER_OK) {
		close(lockfd);
		return e;
	}
	fd = replace_file(l, lockfd, 1, p, &e);
	close(lockfd);		/* and its lock */
	if (fd < 0)
		return e;
	close(fd);
	return LEDGER_OK;
}

/* The write itself: one write and fdatasync, cut back on failure. */
enum ledger_err
lg_append(struct ledger *l, const struct buf *out, struct ledger_problem *p)
{
	enum ledger_err e;
	struct stat st;

	if (l->bytes + buf_len(out) > LEDGER_MAX_BYTES) {
		lg_problem(p, LEDGER_E_FULL, "the ledger would pass %llu bytes",
		    LEDGER_MAX_BYTES);
		return LEDGER_E_FULL;
	}
	if (write_full(l->fd, buf_data(out), buf_len(out)) == 0 &&
	    fdatasync(l->fd) == 0)
		return LEDGER_OK;
	e = lg_io_problem(p, "the ledger cannot be written");
	/* Cut back to the last whole record; if even that fails the file's
	 * tail is torn and the next start says so. */
	if (ftruncate(l->fd, (off_t)l->bytes) != 0 || fstat(l->fd, &st) != 0 ||
	    (unsigned long long)st.st_size != l->bytes)
		logit("the ledger could not be cut back to its last whole record");
	l->broken = 1;
	return e;
}
