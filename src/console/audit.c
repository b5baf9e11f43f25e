/* The audit log (see audit.h); `lockfile audit` is cmd_audit.c. */
#include "console/audit.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/paths.h"
#include "lib/render.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int
audit_open(struct audit *a, const char *home, const char **why)
{
	char dir[sizeof(a->path) - 16];
	struct stat st;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	if (str_fmt(dir, sizeof(dir), "%s/%s", home, LF_HOME_STATE_DIR) !=
	    STR_OK || str_fmt(a->path, sizeof(a->path), "%s/%s", home,
	    LF_HOME_AUDIT) != STR_OK) {
		*why = "the home path is too long";
		return -1;
	}
	if (mkdir_p(dir, 0700) != 0) {
		*why = "cannot create the state directory";
		return -1;
	}
	a->fd = open(a->path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (a->fd < 0 || fstat(a->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid()) {
		*why = "cannot open the audit log";
		return -1;
	}
	if ((st.st_mode & 0077) != 0 && fchmod(a->fd, 0600) != 0) {
		*why = "cannot make the audit log 0600";
		return -1;
	}
	return 0;
}

/* One line: the record with its "time", newline-ended (takes rec). */
static char *
audit_line(json_t *rec, size_t *len)
{
	char ts[32];
	struct timespec now;
	struct tm tm;
	char *line;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(rec, "time", json_string(ts));
	line = jsonx_dump_line(rec);
	json_decref(rec);
	if (line == NULL)
		return NULL;
	*len = strlen(line);
	line[(*len)++] = '\n';	/* replaces the NUL; written with its length */
	return line;
}

static int
write_sync(int fd, const char *p, size_t len)
{
	return fd >= 0 && write_full(fd, p, len) == 0 && fsync(fd) == 0 ? 0 : -1;
}

/* The writer: takes what is noted in one batch, writes it and fsyncs it
 * outside the lock (the serving thread goes on noting meanwhile). It
 * never dies on a failure: it marks it, and the serving thread stops the
 * console at its next record. */
static void *
writer_main(void *arg)
{
	struct audit *a = arg;
	struct audit_buf t;

	(void)pthread_mutex_lock(&a->mu);
	for (;;) {
		unsigned long long upto;
		int rc;

		while (a->q.len == 0 && !a->stop)
			(void)pthread_cond_wait(&a->work, &a->mu);
		if (a->q.len == 0 || a->failed)
			break;
		t = a->w;
		a->w = a->q;
		a->q = t;
		upto = a->queued;
		a->writing = 1;
		(void)pthread_mutex_unlock(&a->mu);
		rc = write_sync(a->fd, a->w.p, a->w.len);
		if (rc != 0)
			logit_errno("audit write failed");
		(void)pthread_mutex_lock(&a->mu);
		if (rc != 0 && !a->failed)
			/* The serving thread's signalfd wakes it wherever it
			 * waits; it stops the console (audit_has_failed). */
			(void)kill(getpid(), SIGTERM);
		a->writing = 0;
		a->w.len = 0;
		if (rc != 0)
			a->failed = 1;
		else
			a->synced = upto;
		(void)pthread_cond_broadcast(&a->done);
	}
	a->q.len = 0;	/* a failure: nothing more goes to the file */
	(void)pthread_cond_broadcast(&a->done);
	(void)pthread_mutex_unlock(&a->mu);
	return NULL;
}

int
audit_start_writer(struct audit *a, const char **why)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	sigset_t all, old;
	int e;

	/* Error-checking: the fatal cleanup, run by a thread that holds the
	 * lock, gets EDEADLK rather than hanging (audit_emergency). */
	if (pthread_mutexattr_init(&ma) != 0 ||
	    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK) != 0 ||
	    pthread_mutex_init(&a->mu, &ma) != 0 ||
	    pthread_condattr_init(&ca) != 0 ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&a->work, &ca) != 0 ||
	    pthread_cond_init(&a->done, &ca) != 0) {
		*why = "cannot set up the audit writer's lock";
		return -1;
	}
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	a->inited = 1;
	/* Signals stay with the serving thread (its signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&a->writer, NULL, writer_main, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		*why = "cannot start the audit writer thread";
		return -1;
	}
	a->running = 1;
	return 0;
}

/* Append a line to the queue (a->mu held). 0, or -1 out of memory. */
static int
enqueue(struct audit *a, const char *line, size_t len)
{
	if (a->q.cap - a->q.len < len) {
		size_t cap = a->q.cap ? a->q.cap : 4096;
		char *p;
		while (cap - a->q.len < len)
			cap *= 2;
		p = realloc(a->q.p, cap);
		if (p == NULL)
			return -1;
		a->q.p = p;
		a->q.cap = cap;
	}
	memcpy(a->q.p + a->q.len, line, len);
	a->q.len += len;
	a->queued++;
	(void)pthread_cond_signal(&a->work);
	return 0;
}

/* Hand a line to the writer; with durable, wait until it is fsync'd. */
static int
submit(struct audit *a, char *line, size_t len, int durable)
{
	unsigned long long mine;
	int ret;

	(void)pthread_mutex_lock(&a->mu);
	/* The bound on what waits: a flood faster than the disk waits for
	 * it here, never an ordinary answer. */
	while (!a->failed && a->q.len > 0 && a->q.len + len > AUDIT_QUEUE_MAX)
		(void)pthread_cond_wait(&a->done, &a->mu);
	if (a->failed || enqueue(a, line, len) != 0) {
		(void)pthread_mutex_unlock(&a->mu);
		return -1;
	}
	mine = a->queued;
	while (durable && !a->failed && a->synced < mine)
		(void)pthread_cond_wait(&a->done, &a->mu);
	ret = a->failed ? -1 : 0;
	(void)pthread_mutex_unlock(&a->mu);
	return ret;
}

static int
put(struct audit *a, json_t *rec, int durable)
{
	size_t len = 0;
	char *line = audit_line(rec, &len);
	int ret;

	if (line == NULL)
		ret = -1;
	else if (a->running)
		ret = submit(a, line, len, durable);
	else
		ret = write_sync(a->fd, line, len);
	if (ret != 0 && !a->running)
		logit_errno("audit write failed");
	free(line);
	return ret;
}

int
audit_has_failed(struct audit *a)
{
	int f;

	if (!a->running)
		return 0;
	(void)pthread_mutex_lock(&a->mu);
	f = a->failed;
	(void)pthread_mutex_unlock(&a->mu);
	return f;
}

int
audit_write(struct audit *a, json_t *rec)
{
	return put(a, rec, 1);
}

int
audit_note(struct audit *a, json_t *rec)
{
	return put(a, rec, 0);
}

void
audit_close(struct audit *a)
{
	if (a->running) {
		(void)pthread_mutex_lock(&a->mu);
		a->stop = 1;
		(void)pthread_cond_signal(&a->work);
		(void)pthread_mutex_unlock(&a->mu);
		(void)pthread_join(a->writer, NULL);	/* it drains first */
		a->running = 0;
	}
	free(a->q.p);
	free(a->w.p);
	memset(&a->q, 0, sizeof(a->q));
	memset(&a->w, 0, sizeof(a->w));
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}

void
audit_emergency(struct audit *a)
{
	struct timespec dl;
	int e;

	if (!a->running || a->fd < 0)
		return;
	/* Bounded: a writer stuck on the disk must not keep the held files
	 * from being deleted (the cleanup's first duty). */
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 2;
	e = pthread_mutex_timedlock(&a->mu, &dl);
	if (e != 0 && e != EDEADLK)
		return;
	a->stop = 1;
	(void)pthread_cond_signal(&a->work);
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += 2;
	while (e == 0 && (a->q.len > 0 || a->writing) && !a->failed)
		if (pthread_cond_timedwait(&a->done, &a->mu, &dl) != 0)
			break;
	/* What the writer could not take in time: written here, after its
	 * batch if it is still writing one (each line whole, O_APPEND). */
	if (a->q.len > 0 && !a->failed) {
		(void)write_sync(a->fd, a->q.p, a->q.len);
		a->q.len = 0;
	}
	if (e == 0)
		(void)pthread_mutex_unlock(&a->mu);
}

/* A string value that needs quotes to be read right: empty, or holding
 * anything but printable ASCII other than space, quote, backslash and '='
 * (a key "a.pdf " and a key "a.pdf" differ on screen). */
static int
needs_quotes(const char *s)
{
	if (*s == '\0')
		return 1;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f ||
		    *s == '"' || *s == '\\' || *s == '=')
			return 1;
	return 0;
}

/* Print one record readably: key=value pairs, every name and value
 * rendered for the terminal (lib/render.h), strings quoted when they
 * need it; other values as compact JSON. */
void
audit_print_record(const json_t *rec)
{
	const char *k;
	json_t *v;
	char safe[8192], name[256];
	unsigned flags = render_locale_flags();
	int first = 1;

	json_object_foreach((json_t *)rec, k, v) {
		char *txt = json_is_string(v) ? NULL :
		    json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		const char *s = json_is_string(v) ? json_string_value(v) : txt;
		size_t n = json_is_string(v) ? json_string_length(v) :
		    (s != NULL ? strlen(s) : 0);

		if (s == NULL)
			s = "";
		render_text(k, strlen(k), flags, 0, name, sizeof(name), NULL);
		render_text(s, n, flags | (json_is_string(v) &&
		    (needs_quotes(s) || strlen(s) != n) ? RENDER_QUOTE : 0), 0,
		    safe, sizeof(safe), NULL);
		printf("%s%s=%s", first ? "" : " ", name, safe);
		first = 0;
		free(txt);
	}
	printf("\n");
}
