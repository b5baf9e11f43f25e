/* The stall watchdog (see stall.h). Setting it up can fail (-1, the fetch
 * fails); a mutex refusing its own initialised object is a broken
 * invariant, fatal (the console's cleanup still runs: lib/log.h). */
#include "sources/stall.h"
#include "lib/clock.h"
#include "lib/log.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static void *
watch(void *arg)
{
	struct stall *w = arg;

	if (pthread_mutex_lock(&w->mu) != 0)
		fatal("stall: mutex");
	while (!w->stop) {
		long long last = __atomic_load_n(&w->last_ms, __ATOMIC_RELAXED);
		long long now = now_ms(), until = last + w->stall_ms;
		struct timespec ts;

		if (until > w->deadline_ms)
			until = w->deadline_ms;
		if (now >= until) {
			__atomic_store_n(&w->fired, 1, __ATOMIC_RELAXED);
			(void)shutdown(w->fd, SHUT_RDWR);
			break;
		}
		if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
			fatal_errno("clock_gettime");
		until = until - now > 250 ? now + 250 : until;
		ts.tv_sec += (until - now) / 1000;
		ts.tv_nsec += ((until - now) % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&w->cv, &w->mu, &ts);
	}
	(void)pthread_mutex_unlock(&w->mu);
	return NULL;
}

int
stall_start(struct stall *w, int fd, long long stall_ms, long long total_ms)
{
	pthread_condattr_t ca;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->stall_ms = stall_ms;
	w->last_ms = now_ms();
	w->deadline_ms = w->last_ms + total_ms;
	if (pthread_mutex_init(&w->mu, NULL) != 0)
		return -1;
	if (pthread_condattr_init(&ca) != 0 ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&w->cv, &ca) != 0) {
		(void)pthread_mutex_destroy(&w->mu);
		return -1;
	}
	(void)pthread_condattr_destroy(&ca);
	if (pthread_create(&w->thread, NULL, watch, w) != 0) {
		(void)pthread_cond_destroy(&w->cv);
		(void)pthread_mutex_destroy(&w->mu);
		return -1;
	}
	w->running = 1;
	return 0;
}

void
stall_progress(struct stall *w)
{
	__atomic_store_n(&w->last_ms, now_ms(), __ATOMIC_RELAXED);
}

int
stall_stop(struct stall *w)
{
	if (!w->running)
		return 0;
	if (pthread_mutex_lock(&w->mu) != 0)
		fatal("stall: mutex");
	w->stop = 1;
	(void)pthread_cond_signal(&w->cv);
	(void)pthread_mutex_unlock(&w->mu);
	if (pthread_join(w->thread, NULL) != 0)
		fatal("stall: join");
	(void)pthread_cond_destroy(&w->cv);
	(void)pthread_mutex_destroy(&w->mu);
	w->running = 0;
	return __atomic_load_n(&w->fired, __ATOMIC_RELAXED);
}
