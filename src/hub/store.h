/* lockhub's state behind one interface (docs/hub.md, "The hub's state"):
 * enrolled keys, the nonces of signed requests, tickets and decisions. A
 * second engine (PostgreSQL with LISTEN/NOTIFY for several hub processes)
 * implements the same operations; store_sqlite.c is the default. Every
 * operation is atomic on its own: one decision per (ticket, approver) is
 * kept, and a nonce is used once, across processes sharing the database. */
#ifndef LOCKFILE_HUB_STORE_H
#define LOCKFILE_HUB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "hubwire/keys.h"
#include "hubwire/msg.h"
#include "lib/buf.h"

enum hs_status {
	HS_OK = 0,
	HS_EXISTS,		/* the ticket, the decision, the name is there */
	HS_NOT_FOUND,
	HS_REPLAY,		/* this nonce was used */
	HS_FULL,		/* a limit of the store (pending tickets) */
	HS_ERR,			/* the engine failed (logged) */
};

struct hs_key {
	enum hw_role role;
	char name[HW_MAX_NAME + 1];
	uint8_t pk[HW_KEY_LEN];
};

struct hs_ticket {
	uint64_t seq;
	char instance[HW_MAX_NAME + 1];
	struct buf *body;		/* the signed TICKET, as received */
	int decided;			/* by the device get_ticket asked for */
};

/* A ticket's decisions, in arrival order (one per approver, at most the
 * 16 a ticket may name). */
struct hs_decisions {
	size_t n;
	struct buf *body[HW_MAX_DECLIST_ITEMS];
};

struct hs_pending {
	uint64_t newest;		/* the newest seq this device may see */
	size_t n;
	uint64_t seq[HW_MAX_LIST_ITEMS];
	struct buf *body[HW_MAX_LIST_ITEMS];
};

struct hub_store;

struct hub_store_ops {
	const char *name;
	enum hs_status (*enroll)(struct hub_store *, const struct hs_key *);
	enum hs_status (*revoke)(struct hub_store *, enum hw_role,
	    const char *name);
	/* At most max keys into out; *n says how many. */
	enum hs_status (*keys)(struct hub_store *, struct hs_key *out,
	    size_t max, size_t *n);
	enum hs_status (*lookup)(struct hub_store *, const uint8_t pk[32],
	    struct hs_key *out);
	/* Record (pk, nonce) at now_ms unless recorded: HS_REPLAY. Nonces
	 * older than keep_ms are forgotten by purge(). */
	enum hs_status (*nonce_use)(struct hub_store *, const uint8_t pk[32],
	    const uint8_t nonce[HW_REQ_NONCE_LEN], long long now_ms);
	/* A new ticket (HS_EXISTS when its id is known) with the device
	 * keys it names; kept until keep_until_ms on the hub's clock. */
	enum hs_status (*put_ticket)(struct hub_store *, const char *id,
	    const char *instance, const uint8_t *body, size_t len,
	    const uint8_t (*approvers)[32], size_t napprovers,
	    long long now_ms, long long keep_until_ms, uint64_t *seq);
	/* decided says whether device pk (NULL: any device) decided it. */
	enum hs_status (*get_ticket)(struct hub_store *, const char *id,
	    const uint8_t *pk, struct hs_ticket *out);
	/* Tickets that name device pk and it has not decided, seq > after, oldest
	 * first, at most HW_MAX_LIST_ITEMS and max_bytes of bodies; newest
	 * is the newest seq of the tickets naming pk. */
	enum hs_status (*pending)(struct hub_store *, const uint8_t pk[32],
	    uint64_t after, size_t max_bytes, struct hs_pending *out);
	/* Device pk's decision on a known ticket: one per (ticket, device),
	 * HS_EXISTS when that device decided it already (others' decisions
	 * do not stop it), HS_NOT_FOUND for an unknown ticket. */
	enum hs_status (*put_decision)(struct hub_store *, const char *id,
	    const uint8_t pk[32], const uint8_t *body, size_t len,
	    long long now_ms);
	/* The ticket's decisions in arrival order, from the skip-th on (the
	 * first is 0): an empty list when there are no more. */
	enum hs_status (*decisions)(struct hub_store *, const char *id,
	    size_t skip, struct hs_decisions *out);
	/* Forget tickets and decisions past their time, nonces past keep. */
	void (*purge)(struct hub_store *, long long now_ms,
	    long long nonce_keep_ms);
	void (*close)(struct hub_store *);
};

struct hub_store {
	const struct hub_store_ops *ops;
	void *impl;
};

/* The SQLite engine: path is created (0600) when missing. 0, or -1 with
 * *why set. */
int hub_store_sqlite_open(struct hub_store *s, const char *path,
    const char **why);

void hs_ticket_free(struct hs_ticket *t);
void hs_pending_free(struct hs_pending *p);
void hs_decisions_free(struct hs_decisions *d);

#endif
