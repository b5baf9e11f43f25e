/* The audit: the one place file metadata exists. Append-only JSON lines in
 * ~/.local/state/lockfile/audit.log (0600): time, peer uid, method, plan,
 * profile, key, size, sha256, fetch cause, each plugin's precise outcome
 * and stderr byte count, the decision, placeholder names (never values).
 * Never file bytes.
 *
 * Durability (docs/console.md, "The audit's durability"): once the writer
 * thread runs, the serving thread never waits on the file system for a
 * record it only notes (audit_note: answers given at once, which must not
 * show the journal's load, issue 25); audit_write waits until its record,
 * and every one before it, is written and fsync'd (answers after an
 * approval, inside the quantum). One thread writes, so the file keeps the
 * order the records were made in. */
#ifndef LOCKFILE_AUDIT_H
#define LOCKFILE_AUDIT_H

#include <jansson.h>
#include <pthread.h>

/* Records noted and not yet on disk, at most (bytes): past it, a note
 * waits for the writer (only a flood faster than the disk reaches it). */
#define AUDIT_QUEUE_MAX	(1u << 20)

struct audit_buf {
	char *p;
	size_t len, cap;
};

struct audit {
	int fd;
	char path[4096];
	/* the writer thread (audit_start_writer), under mu */
	pthread_t writer;
	pthread_mutex_t mu;
	pthread_cond_t work, done;	/* to the writer; from it */
	struct audit_buf q, w;		/* noted; being written */
	unsigned long long queued, synced;	/* record counts */
	int inited, running, stop, writing, failed;
};

int audit_open(struct audit *a, const char *home, const char **why);
/* Start the writer thread (after the console's self-confinement, which
 * binds threads started later). 0 or -1 with a static reason. */
int audit_start_writer(struct audit *a, const char **why);
/* Write what is noted, stop the writer, close. */
void audit_close(struct audit *a);
/* The fatal cleanup's (lib/log.h): what is noted goes to the file, the
 * wait bounded (the writer may be what is stuck). Never fails. */
void audit_emergency(struct audit *a);
/* Adds "time" and writes one line; takes the reference to rec. Returns
 * once the record, and every record noted before it, is fsync'd. A write
 * failure is reported to the caller (the console refuses to go on without
 * its audit). 0 or -1. */
int audit_write(struct audit *a, json_t *rec);
/* 1 when the writer could not write a record: it also sent the process a
 * SIGTERM, and the console stops as when audit_write fails. */
int audit_has_failed(struct audit *a);
/* Adds "time" and hands the line to the writer; takes the reference.
 * Returns at once (no file system call) unless AUDIT_QUEUE_MAX bytes wait.
 * -1 when an earlier record could not be written: the console stops as
 * for audit_write. Without a writer, the same as audit_write. */
int audit_note(struct audit *a, json_t *rec);

/* One record as `lockfile audit` prints it: name=value pairs, every name
 * and value rendered as on the card (lib/render.h). */
void audit_print_record(const json_t *rec);

/* `lockfile audit --ledger` (audit_ledger.c): the answer ledger under
 * home, filtered by a key and a uid (either may be NULL); --repair keeps
 * a damaged ledger's whole records (docs/ledger.md). An exit status. */
int audit_ledger(const char *home, int json_out, const char *key,
    const char *uid, int repair);

#endif
