/* The workspace: fetched files under work_dir/<random>/ (0700), a total cap
 * reserved before streaming (reservations never exceed it together), at most
 * WS_MAX_FILES held or being fetched, handles with a TTL fixed at fetch and
 * bound to the peer uid that fetched them. Files are deleted on release,
 * expiry, console exit, and swept at start (docs/console.md, "Fetched
 * files").
 *
 * Deleting is constant-time on every path an agent can time: unlinking a
 * name while the workspace still holds the file open only drops the name;
 * the blocks are freed by the last close, which the deleter thread does,
 * off the serving path. The deleter also removes each file when its TTL
 * ends, whatever the serving thread is doing (waiting for the human,
 * fetching, running a plugin). Deleting a larger file takes longer: no
 * response may wait for it (docs/security.md, "Side channels"). */
#ifndef LOCKFILE_WORKSPACE_H
#define LOCKFILE_WORKSPACE_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/crypto.h"
#include "protocol/table.h"
#include "sources/source.h"

#define WS_MAX_FILES 64
/* The deleter frees a file this much at a time, pausing in between
 * (docs/security.md, "Side channels"). */
#define WS_SHRINK_STEP (1ULL << 20)
#define WS_SHRINK_PAUSE_MS 2
/* The spool's footprint moves in size classes: each fetch is followed by
 * a pad file of written bytes up to the next power of two (at least
 * WS_MIN_CLASS), counted against the cap, so host-wide counters (bytes
 * written, pages cached, dirty pages) tell an agent the class, not the
 * size (docs/security.md, "Side channels"). */
#define WS_MIN_CLASS (64ULL * 1024)
#define WS_PAD_FILE "pad"

struct policy;
struct profile;

enum ws_slot_state { WS_FREE = 0, WS_FETCHING, WS_HELD };

struct ws_handle {
	enum ws_slot_state state;
	char id[40];			/* f_ + 32 hex */
	uid_t uid;			/* the peer that fetched it */
	char dir[PATH_MAX];		/* work_dir/<random> */
	char file[PATH_MAX];		/* dir/data */
	char pad[PATH_MAX];		/* dir/pad: the class's remainder */
	unsigned long long reserved;	/* bytes of the cap held */
	unsigned long long size;
	uint8_t sha256[SHA256_LEN];
	long long expires_ms;		/* monotonic; fixed at fetch */
	unsigned answers_used;
	const struct profile *profile;
	char key[PROTO_MAX_KEY + 1];	/* cleaned */
	char object[FETCH_OBJECT_MAX];	/* what the fetch opened (source.h) */
	/* Under the workspace's mutex (the deleter reads and sets them): */
	int keep;			/* O_RDONLY on the file, or -1 */
	int wr;				/* O_WRONLY on it, the console's
					 * alone: shrinks it before the last
					 * close (shrink_step), or -1 */
	int pad_keep;			/* the pad file, or -1 */
	unsigned readers;		/* runs holding ws_open_input's fd */
	int unlinked;			/* its names are gone (TTL or drop) */
};

struct workspace {
	char root[PATH_MAX / 2];	/* work_dir; its entries fit in PATH_MAX */
	unsigned long long cap;
	unsigned long long reserved;	/* sum over slots */
	struct ws_handle h[WS_MAX_FILES];
	/* The deleter thread and what it shares with the serving thread. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t deleter;
	int inited, running, stop;
	size_t ngrave;
	int grave[4 * WS_MAX_FILES];	/* fds whose last close frees a file
					 * (each slot's keep, wr and pad, and
					 * a run's input) */
};

/* Create work_dir (0700) and sweep whatever a previous run left. */
int ws_open(struct workspace *ws, const char *work_dir,
    unsigned long long cap, const char **why);
/* Start the deleter thread. Called once the console has confined itself
 * (Landlock and seccomp bind the threads created after them). 0 or -1. */
int ws_start_deleter(struct workspace *ws, const char **why);
/* Delete every file and stop the deleter (console exit: after the
 * listener is closed, so no agent times it). */
void ws_close(struct workspace *ws);
/* For a dying console (the fatal cleanup): remove every name now, take no
 * lock, free nothing; exit then closes what is held. */
void ws_emergency(struct workspace *ws);

/* Take a slot and reserve the rest of the cap for one fetch; creates the
 * directory and opens the spool file for writing (*fd). NULL when 64 files
 * are held or fetching, or no cap is left (cause in why). */
struct ws_handle *ws_begin_fetch(struct workspace *ws, int *fd,
    const char **why);
/* The fetch succeeded: write the pad file up to size's class (or what the
 * reservation holds, if less), keep that much of the reservation, fix the
 * TTL, bind the handle to the peer uid that asked for it. */
void ws_commit(struct workspace *ws, struct ws_handle *h,
    unsigned long long size, const uint8_t sha256[SHA256_LEN],
    long long ttl_ms, uid_t uid);
/* Delete the file and free the slot (failed fetch, release, expiry). */
void ws_drop(struct workspace *ws, struct ws_handle *h);

/* The held, unexpired handle id of peer uid. Another uid's handle is not
 * found: to that peer it is indistinguishable from an expired one. */
struct ws_handle *ws_find(struct workspace *ws, const char *id, uid_t uid);
/* Whether h is still held and its TTL not over at now. */
int ws_alive(struct workspace *ws, const struct ws_handle *h, long long now);
/* Free the slots whose TTL has passed (their files are deleted already,
 * or now, in constant time); returns the earliest remaining expiry (or 0
 * when none is held). */
long long ws_expire(struct workspace *ws, long long now);
/* A read-only fd of the held file for the plugins of one plan, valid even
 * if the TTL ends while they run. -1 with errno ENOENT when the file is
 * gone, another errno on failure. Given back with ws_close_input: while
 * a run holds it the file is never shrunk, and its last close is the
 * deleter's. */
int ws_open_input(struct workspace *ws, struct ws_handle *h);
void ws_close_input(struct workspace *ws, struct ws_handle *h, int fd);

/* The size class of a fetch of size bytes: the next power of two, at
 * least WS_MIN_CLASS. */
unsigned long long ws_class(unsigned long long size);

#endif
