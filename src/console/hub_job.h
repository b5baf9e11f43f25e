/* A hub ticket's work behind the console's answers (docs/hub.md, "The
 * console's side"): the plan-time fetch (its sha256 and size only: the
 * bytes go to /dev/null, so nothing is held), the ticket signed and
 * posted, then the decision long-polled with the jittered back-off. One
 * thread per ticket, started by hub.c on the serving thread, which never
 * waits for it: it reaps what the job found at the agent's next file.run.
 *
 * What the thread reads is the job's own copy, or the console's read-only
 * state (the source, the hub client and the instance key), which
 * console_hub_close keeps while a job still runs. The thread touches no
 * other console state: no audit, no window, no ticket table. */
#ifndef LOCKFILE_CONSOLE_HUB_JOB_H
#define LOCKFILE_CONSOLE_HUB_JOB_H

#include <pthread.h>

#include "hubclient/hubclient.h"
#include "lib/buf.h"
#include "protocol/table.h"
#include "sources/source.h"

enum hub_job_phase {
	HJ_PREPARING = 0,	/* fetching, signing, posting */
	HJ_POLLING,		/* the ticket is posted (or refused): waiting */
	HJ_DONE,		/* a decision, an error, the expiry or a stop */
};

struct hub_job {
	/* Set before the start, read-only after. */
	const struct source_kind *kind;	/* NULL: no fetch (known content) */
	struct source *src;		/* NULL: the profile is unavailable */
	char key[PROTO_MAX_KEY + 1];
	unsigned long long cap;		/* the policy's workspace cap */
	const char *const *scrub;	/* for the fetch detail */
	size_t nscrub;
	const struct hubclient *hc;
	char path[128];			/* GET .../decisions/after/N */
	long long poll_ms;		/* one long-poll's client timeout */
	long long ttl_ms;
	/* Called on the thread after the fetch: the signed TICKET into
	 * body (from the outcome below); 0, or -1 (nothing is posted). NULL:
	 * the ticket is posted already, only the decision is polled. */
	int (*sign)(struct hub_job *j);
	void *sign_ctx;
	/* The thread's until the phase leaves HJ_PREPARING. */
	enum fetch_cause fc;
	char detail[200];		/* scrubbed */
	unsigned long long size;
	uint8_t sha256[32];
	struct buf *body;
	/* NULL, or the CARD posted after the ticket (docs/hub.md,
	 * "Passkeys"), to card_path; card_post its outcome. */
	struct buf *card;
	char card_path[128];
	enum hc_err card_post;
	long long expires_ms;		/* the console's clock, from the signing */
	/* Under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* the phase moved */
	enum hub_job_phase phase;
	enum hc_err post;		/* HC_OK: the hub took the ticket */
	enum hc_err poll;		/* HC_OK with decision, or why none */
	struct buf *decision;
	int stop, orphan;
	int nudge;			/* poll now: an agent asked (file.run) */
	/* The serving thread's. */
	pthread_t thread;
	int *live;			/* the console's count of running jobs */
};

/* Start j's thread (j calloc'ed and filled by the caller, who gives it
 * up to the thread until hub_job_release). 0, or -1 (not started: the
 * caller frees it). live counts running jobs, under its own lock. */
int hub_job_start(struct hub_job *j, int *live);
/* The phase now, with what the job found copied under its lock. */
enum hub_job_phase hub_job_phase(struct hub_job *j);
/* Wait until j's phase is at least want, or until_ms (the monotonic
 * clock): the phase then. The serving thread waits only within a quantum
 * its answer is held to anyway. */
enum hub_job_phase hub_job_wait(struct hub_job *j, enum hub_job_phase want,
    long long until_ms);
/* An agent asked for the decision: a poll in its back-off goes now (at
 * most one a file.run, and those are held to the quantum). */
void hub_job_nudge(struct hub_job *j);
/* The serving thread is done with j: freed now when it is done, else
 * told to stop and freed by its thread when it ends. */
void hub_job_release(struct hub_job *j);
/* Running jobs (any thread). */
int hub_job_live(const int *live);
/* Wait up to ms for every job to end: 1 when none runs. */
int hub_job_wait_all(const int *live, long long ms);

#endif
