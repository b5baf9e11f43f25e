/* A hub ticket's work behind the console's answers (see hub_job.h). */
#include "console/hub_job.h"
#include "console/scrub.h"
#include "hubwire/msg.h"
#include "lib/clock.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#define POST_MS		15000
/* A hub that answers "none yet" sooner than QUICK_MS is not long-polling:
 * the next poll waits, with jitter, from BACKOFF_MIN_MS doubling to
 * BACKOFF_MAX_MS (docs/hub.md, "The console's side"). */
#define QUICK_MS	1000
#define BACKOFF_MIN_MS	250
#define BACKOFF_MAX_MS	8000
#define STEP_MS		250	/* a back-off's sleep looks at stop this often */
/* A hub that cannot be reached is asked this many times in a row (with
 * the back-off) before the answer says so: behind a balancer a killed
 * instance costs a retry, not the run (docs/hub.md, "Operating several
 * hubs"); a hub that is down is still told within seconds. */
#define UNREACHABLE_TRIES 3

static void
lock(struct hub_job *j)
{
	if (pthread_mutex_lock(&j->mu) != 0)
		fatal("hub job: mutex");
}

static void
unlock(struct hub_job *j)
{
	(void)pthread_mutex_unlock(&j->mu);
}

static int
stopped(struct hub_job *j)
{
	int s;

	lock(j);
	s = j->stop;
	unlock(j);
	return s;
}

/* The first fetch: only its sha256 and size are kept, the bytes go to
 * /dev/null (no spool file, nothing to delete); the cap is the policy's
 * workspace cap, as for the run's fetch. */
static void
fetch(struct hub_job *j)
{
	struct fetch_result fr;
	int fd;

	memset(&fr, 0, sizeof(fr));
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		j->fc = FC_IO;
	else if (j->src == NULL)
		j->fc = FC_UNAVAILABLE;
	else
		j->fc = j->kind->fetch(j->src, j->key, fd, j->cap, &fr);
	if (fd >= 0)
		close(fd);
	if (fr.detail[0] != '\0')
		scrub_text(fr.detail, j->scrub, j->nscrub, j->detail,
		    sizeof(j->detail));
	if (j->fc == FC_OK) {
		j->size = fr.size;
		memcpy(j->sha256, fr.sha256, 32);
	}
	explicit_bzero(&fr, sizeof(fr));
}

/* Sleep until t, or until the job is told to stop or nudged. */
static void
nap_until(struct hub_job *j, long long t)
{
	while (!stopped(j)) {
		long long now = now_ms();
		int nudged;

		lock(j);
		nudged = j->nudge;
		j->nudge = 0;
		unlock(j);
		if (nudged || now >= t)
			return;
		sleep_until_ms(t - now > STEP_MS ? now + STEP_MS : t);
	}
}

/* Long-poll for the decision until the ticket's expiry; a hub that
 * answers "none yet" at once (no long-poll: broken or hostile) or is busy
 * is asked again only after a jittered, bounded back-off. */
static void
poll_decision(struct hub_job *j)
{
	long long backoff = BACKOFF_MIN_MS;
	int unreachable = 0;

	for (;;) {
		long long now = now_ms(), wait, t, nap;
		struct buf *b = NULL;
		enum hc_err e;

		if (stopped(j) || now >= j->expires_ms) {
			lock(j);
			j->poll = HC_NO_DATA;
			unlock(j);
			return;
		}
		wait = j->expires_ms - now;
		if (wait > j->poll_ms)
			wait = j->poll_ms;
		/* The hub's own long-poll deadline answers first (204). */
		/* a DECISIONLIST: a ticket's decisions, one per approver */
		e = hc_call(j->hc, "GET", j->path, NULL, 0, HW_MAX_DECLIST,
		    wait + 2000, &b, NULL);
		if (e == HC_OK) {
			lock(j);
			j->poll = HC_OK;
			j->decision = b;
			unlock(j);
			return;
		}
		buf_free(b);
		unreachable = e == HC_UNREACHABLE ? unreachable + 1 : 0;
		if (e != HC_NO_DATA && e != HC_BUSY &&
		    (e != HC_UNREACHABLE || unreachable >= UNREACHABLE_TRIES)) {
			lock(j);
			j->poll = e;
			unlock(j);
			return;
		}
		t = now_ms();
		if (e == HC_NO_DATA && t - now >= QUICK_MS) {
			backoff = BACKOFF_MIN_MS;
			continue;
		}
		nap = backoff / 2 + (long long)randombytes_uniform(
		    (uint32_t)(backoff / 2 + 1));
		nap_until(j, t + nap < j->expires_ms ? t + nap : j->expires_ms);
		backoff = backoff * 2 < BACKOFF_MAX_MS ? backoff * 2 :
		    BACKOFF_MAX_MS;
	}
}

/* Post the ticket (or its card). A busy hub, a balancer whose instance went away
 * (502, 504) or an unreachable one is asked again, signed afresh, with the
 * back-off, within POST_MS: the instance may have died after its commit,
 * so a 409 to a second attempt is our own ticket (card), taken (its id is ours,
 * random, and only our instance key may post it: docs/hub.md). */
static enum hc_err
post_retried(struct hub_job *j, const char *path, const struct buf *body)
{
	long long end = now_ms() + POST_MS, backoff = BACKOFF_MIN_MS;
	int tries = 0;

	for (;;) {
		long long now = now_ms(), nap;
		enum hc_err e = hc_call(j->hc, "POST", path, buf_data(body),
		    buf_len(body), 4096, end - now, NULL, NULL);

		tries++;
		if (e == HC_CONFLICT && tries > 1)
			return HC_OK;
		if ((e != HC_BUSY && e != HC_UNREACHABLE) ||
		    (e == HC_UNREACHABLE && tries >= UNREACHABLE_TRIES) ||
		    stopped(j))
			return e;
		now = now_ms();
		nap = backoff / 2 + (long long)randombytes_uniform(
		    (uint32_t)(backoff / 2 + 1));
		if (now + nap + 1000 >= end)
			return e;
		sleep_until_ms(now + nap);
		backoff = backoff * 2 < BACKOFF_MAX_MS ? backoff * 2 :
		    BACKOFF_MAX_MS;
	}
}

/* Free a job its thread no longer touches (joined, or its own thread at
 * its end when nobody reaps it). */
static void
job_free(struct hub_job *j)
{
	buf_free(j->body);
	buf_free(j->card);
	buf_free(j->decision);
	(void)pthread_cond_destroy(&j->cv);
	(void)pthread_mutex_destroy(&j->mu);
	sodium_memzero(j, sizeof(*j));
	free(j);
}

static void *
job_main(void *arg)
{
	struct hub_job *j = arg;
	int *live = j->live, orphan;

	if (j->sign != NULL) {
		enum hc_err post = HC_PROTOCOL;
		if (j->kind != NULL)
			fetch(j);
		if (j->sign(j) == 0)
			post = post_retried(j, "/v1/tickets", j->body);
		/* The page's card, after its ticket: the hub takes it only
		 * for a ticket it holds. */
		if (post == HC_OK && j->card != NULL)
			j->card_post = post_retried(j, j->card_path, j->card);
		lock(j);
		j->post = post;		/* seen with the phase, together */
		j->phase = HJ_POLLING;
		(void)pthread_cond_broadcast(&j->cv);
		unlock(j);
		if (post == HC_OK)
			poll_decision(j);
	} else {
		lock(j);
		j->phase = HJ_POLLING;
		(void)pthread_cond_broadcast(&j->cv);
		unlock(j);
		poll_decision(j);
	}
	lock(j);
	j->phase = HJ_DONE;
	orphan = j->orphan;
	(void)pthread_cond_broadcast(&j->cv);
	unlock(j);
	if (orphan)
		job_free(j);	/* nobody reaps it: it frees itself (detached) */
	__atomic_sub_fetch(live, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int
hub_job_start(struct hub_job *j, int *live)
{
	sigset_t all, old;
	int e;

	pthread_condattr_t ca;

	if (pthread_mutex_init(&j->mu, NULL) != 0)
		return -1;
	if (pthread_condattr_init(&ca) != 0 ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&j->cv, &ca) != 0) {
		(void)pthread_mutex_destroy(&j->mu);
		return -1;
	}
	(void)pthread_condattr_destroy(&ca);
	j->phase = HJ_PREPARING;
	j->post = j->poll = HC_NO_DATA;
	j->live = live;
	__atomic_add_fetch(live, 1, __ATOMIC_SEQ_CST);
	/* Signals stay with the serving thread (its signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&j->thread, NULL, job_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		__atomic_sub_fetch(live, 1, __ATOMIC_SEQ_CST);
		(void)pthread_cond_destroy(&j->cv);
		(void)pthread_mutex_destroy(&j->mu);
		return -1;
	}
	return 0;
}

enum hub_job_phase
hub_job_phase(struct hub_job *j)
{
	enum hub_job_phase p;

	lock(j);
	p = j->phase;
	unlock(j);
	return p;
}

enum hub_job_phase
hub_job_wait(struct hub_job *j, enum hub_job_phase want, long long until_ms)
{
	enum hub_job_phase p;

	lock(j);
	while (j->phase < want) {
		struct timespec ts;
		if (now_ms() >= until_ms)
			break;
		ts.tv_sec = (time_t)(until_ms / 1000);
		ts.tv_nsec = (long)(until_ms % 1000) * 1000000L;
		(void)pthread_cond_timedwait(&j->cv, &j->mu, &ts);
	}
	p = j->phase;
	unlock(j);
	return p;
}

void
hub_job_nudge(struct hub_job *j)
{
	lock(j);
	j->nudge = 1;
	unlock(j);
}

void
hub_job_release(struct hub_job *j)
{
	pthread_t th;
	int done;

	if (j == NULL)
		return;
	th = j->thread;
	lock(j);
	done = j->phase == HJ_DONE;
	if (!done)
		j->stop = j->orphan = 1;
	unlock(j);
	if (!done) {
		/* j may be freed by its thread from here on */
		(void)pthread_detach(th);
		return;
	}
	(void)pthread_join(j->thread, NULL);
	job_free(j);
}

int
hub_job_live(const int *live)
{
	return __atomic_load_n(live, __ATOMIC_SEQ_CST);
}

int
hub_job_wait_all(const int *live, long long ms)
{
	long long end = now_ms() + ms;

	while (hub_job_live(live) > 0 && now_ms() < end)
		sleep_until_ms(now_ms() + 20);
	return hub_job_live(live) == 0;
}
