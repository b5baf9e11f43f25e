/* The workspace: fetched files under work_dir/<random>/ (0700), a total cap
 * reserved before streaming (reservations never exceed it together), at most
 * WS_MAX_FILES held or being fetched, handles with a TTL fixed at fetch.
 * Files are deleted on release, expiry, console exit, and swept at start.
 * Seed, "Data at rest". */
#ifndef LOCKFILE_WORKSPACE_H
#define LOCKFILE_WORKSPACE_H

#include <limits.h>
#include <stdint.h>

#include "lib/crypto.h"
#include "protocol/table.h"

#define WS_MAX_FILES 64

struct policy;
struct profile;

enum ws_slot_state { WS_FREE = 0, WS_FETCHING, WS_HELD };

struct ws_handle {
	enum ws_slot_state state;
	char id[40];			/* f_ + 32 hex */
	char dir[PATH_MAX];		/* work_dir/<random> */
	char file[PATH_MAX];		/* dir/data */
	unsigned long long reserved;	/* bytes of the cap held */
	unsigned long long size;
	uint8_t sha256[SHA256_LEN];
	long long expires_ms;		/* monotonic; fixed at fetch */
	unsigned answers_used;
	const struct profile *profile;
	char key[PROTO_MAX_KEY + 1];	/* cleaned */
};

struct workspace {
	char root[PATH_MAX / 2];	/* work_dir; its entries fit in PATH_MAX */
	unsigned long long cap;
	unsigned long long reserved;	/* sum over slots */
	struct ws_handle h[WS_MAX_FILES];
};

/* Create work_dir (0700) and sweep whatever a previous run left. */
int ws_open(struct workspace *ws, const char *work_dir,
    unsigned long long cap, const char **why);
/* Delete every file (console exit). */
void ws_close(struct workspace *ws);

/* Take a slot and reserve the rest of the cap for one fetch; creates the
 * directory and opens the spool file for writing (*fd). NULL when 64 files
 * are held or fetching, or no cap is left (cause in why). */
struct ws_handle *ws_begin_fetch(struct workspace *ws, int *fd,
    const char **why);
/* The fetch succeeded: keep size bytes of the reservation, fix the TTL. */
void ws_commit(struct workspace *ws, struct ws_handle *h,
    unsigned long long size, const uint8_t sha256[SHA256_LEN],
    long long ttl_ms);
/* Delete the file and free the slot (failed fetch, release, expiry). */
void ws_drop(struct workspace *ws, struct ws_handle *h);

struct ws_handle *ws_find(struct workspace *ws, const char *id);
/* Drop every handle whose TTL has passed; returns the earliest remaining
 * expiry (or 0 when none is held). */
long long ws_expire(struct workspace *ws, long long now);
/* Open the held file read-only for a plugin. -1 on error. */
int ws_open_input(const struct ws_handle *h);

#endif
