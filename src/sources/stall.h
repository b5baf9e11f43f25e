/* A stall watchdog for a blocking network transfer. libssh's SFTP calls
 * wait without a timeout once the session is up; this thread watches the
 * progress the transfer reports and, after stall_ms without any, shuts
 * the socket down (shutdown(2) wakes the blocked poll, and the library
 * call then fails). The same happens past an overall deadline, however
 * the transfer trickles. The fetch reports FC_TIMEOUT when it fired. */
#ifndef LOCKFILE_SOURCES_STALL_H
#define LOCKFILE_SOURCES_STALL_H

#include <pthread.h>

struct stall {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	long long stall_ms;
	long long deadline_ms;	/* now_ms() clock */
	long long last_ms;	/* atomic: the last progress */
	int stop;		/* under mu */
	int fired;		/* atomic */
	int running;
};

/* Start watching fd: no progress for stall_ms, or total_ms from now.
 * 0, or -1 if no thread can be started. */
int stall_start(struct stall *w, int fd, long long stall_ms,
    long long total_ms);
/* Progress was made: the stall clock starts again. */
void stall_progress(struct stall *w);
/* Stop and join; returns 1 when the watchdog fired. */
int stall_stop(struct stall *w);

#endif
