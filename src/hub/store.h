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

/* A passkey enrolled from the phone page (docs/hub.md, "Approving from a
 * phone"): its id is what tickets name; the COSE key and credential id as
 * the registration gave them (the contract's limits, PK_MAX_*). */
#define HS_MAX_COSE	160
#define HS_MAX_CRED	1023
struct hs_passkey {
	char name[HW_MAX_NAME + 1];
	uint8_t id[32];
	uint8_t cose[HS_MAX_COSE];
	size_t cose_len;
	uint8_t cred[HS_MAX_CRED];
	size_t cred_len;
};

/* One-use or timed secrets of the page, stored by their hash only. */
enum hs_token {
	HS_TOK_CODE = 1,	/* a registration code: subject = the name */
	HS_TOK_REG = 2,		/* a registration challenge: the name */
	HS_TOK_LOGIN = 3,	/* a login challenge: "" */
	HS_TOK_SESSION = 4,	/* a session cookie: the passkey id, hex */
};
#define HS_MAX_SUBJECT	64

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
	/* The phone page (docs/hub.md, "Approving from a phone"). */
	/* A token's hash with its subject, until until_ms. */
	enum hs_status (*token_put)(struct hub_store *, enum hs_token,
	    const uint8_t hash[32], const char *subject, long long until_ms);
	/* An unexpired token's subject (HS_NOT_FOUND otherwise); consume:
	 * it is deleted in the same step (one use). */
	enum hs_status (*token_use)(struct hub_store *, enum hs_token,
	    const uint8_t hash[32], long long now_ms, int consume,
	    char subject[HS_MAX_SUBJECT + 1]);
	/* HS_EXISTS when the name, the id or the credential is there. */
	enum hs_status (*passkey_enroll)(struct hub_store *,
	    const struct hs_passkey *);
	/* By id (cred NULL) or by credential id (id NULL). */
	enum hs_status (*passkey_get)(struct hub_store *, const uint8_t *id,
	    const uint8_t *cred, size_t cred_len, struct hs_passkey *out);
	/* At most max passkeys, by name, into out; *n says how many. */
	enum hs_status (*passkeys)(struct hub_store *, struct hs_passkey *out,
	    size_t max, size_t *n);
	/* The passkey and its sessions. */
	enum hs_status (*passkey_revoke)(struct hub_store *, const char *name);
	/* The console's CARD for a ticket: HS_EXISTS when one is there,
	 * HS_NOT_FOUND for an unknown ticket. */
	enum hs_status (*put_card)(struct hub_store *, const char *id,
	    const uint8_t *body, size_t len);
	enum hs_status (*get_card)(struct hub_store *, const char *id,
	    struct buf **body);
	/* The schema's version in the database: 0 before any migration
	 * (docs/hub.md, "Schema migrations"). */
	enum hs_status (*version)(struct hub_store *, int *version);
	/* Apply the migrations past the database's version up to
	 * HS_SCHEMA_VERSION, each in one transaction; *from and *to say
	 * which. HS_EXISTS when the database is newer than this build. */
	enum hs_status (*migrate)(struct hub_store *, int *from, int *to);
	/* Tell other hub processes that a ticket (kind 't', id) or a decision
	 * (kind 'd', id) was committed: called after the commit, never inside
	 * its transaction (docs/hub.md, "operating several hubs"). May be NULL. */
	void (*changed)(struct hub_store *, char kind, const char *id);
	/* Start delivering other processes' changed() calls to cb, from a
	 * thread of the store's own; NULL when the engine has none (SQLite):
	 * the long-polls' timer covers it. */
	int (*watch)(struct hub_store *, void (*cb)(void *arg, char kind,
	    const char *id), void *arg);
	/* Whether the calling thread's last operation failed because the
	 * engine could not be reached or went away under it (a restart, a
	 * fail-over): the client may ask again. May be NULL (SQLite, in
	 * this process: never). */
	int (*unreachable)(struct hub_store *);
	void (*close)(struct hub_store *);
};

/* The schema version this build reads and writes: both engines keep the
 * same numbered list of migrations (store_sqlite.c, store_pg.c). */
#define HS_SCHEMA_VERSION	4

struct hub_store {
	const struct hub_store_ops *ops;
	void *impl;
};

/* The SQLite engine: path is created (0600) when missing. 0, or -1 with
 * *why set. The schema is left to migrate(), except for ":memory:"
 * (one process's fresh database: migrated at once). */
int hub_store_sqlite_open(struct hub_store *s, const char *path,
    const char **why);

/* The PostgreSQL engine (libpq): url is a postgresql:// URL, kept to
 * reconnect after a failure (docs/hub.md, "The store: PostgreSQL"). 0, or
 * -1 with *why set; the URL is never logged. */
int hub_store_pg_open(struct hub_store *s, const char *url,
    const char **why);

/* The database's schema is the one this build knows: 0, or -1 with *why
 * set (older: run lockhub migrate; newer: a newer lockhub wrote it). */
int hub_store_check_version(struct hub_store *s, const char **why);

void hs_ticket_free(struct hs_ticket *t);
void hs_pending_free(struct hs_pending *p);
void hs_decisions_free(struct hs_decisions *d);

#endif
