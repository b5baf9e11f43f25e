/* The SQLite engine of the hub's state (see store.h).
 *
 * WAL mode and a busy timeout, so several hub processes can share one
 * file; every read-then-write runs in BEGIN IMMEDIATE (a deferred
 * transaction that upgrades to a write lock gets SQLITE_BUSY past the
 * timeout). One decision per (ticket, device) through the unique key of
 * decisions and ON CONFLICT DO NOTHING, their arrival order the seq; a nonce is used once through the primary
 * key of nonces. One connection per process, behind a mutex: the HTTP
 * threads take turns. */
#include "hub/store.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

struct sq {
	sqlite3 *db;
	pthread_mutex_t mu;
};

static const char pragmas[] =
"PRAGMA journal_mode=WAL;"
"PRAGMA synchronous=FULL;"
"PRAGMA foreign_keys=ON;";

/* The migrations, in order: migrations[i] takes the schema from version i
 * to i + 1 (docs/hub.md, "Schema migrations"). Version 1 is the schema of
 * the databases made before schema_version existed, hence IF NOT EXISTS:
 * such a database (version 0) takes it as it is. store_pg.c keeps the
 * same list in its dialect. Never edit a shipped entry: add one. */
static const char *const migrations[HS_SCHEMA_VERSION] = {
"CREATE TABLE IF NOT EXISTS keys ("
"  pk BLOB PRIMARY KEY CHECK (length(pk) = 32),"
"  role INTEGER NOT NULL CHECK (role IN (1, 2)),"
"  name TEXT NOT NULL,"
"  UNIQUE (role, name));"
"CREATE TABLE IF NOT EXISTS nonces ("
"  pk BLOB NOT NULL, nonce BLOB NOT NULL, seen_ms INTEGER NOT NULL,"
"  PRIMARY KEY (pk, nonce));"
"CREATE INDEX IF NOT EXISTS nonces_seen ON nonces (seen_ms);"
"CREATE TABLE IF NOT EXISTS tickets ("
"  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
"  id TEXT NOT NULL UNIQUE,"
"  instance TEXT NOT NULL,"
"  body BLOB NOT NULL,"
"  received_ms INTEGER NOT NULL,"
"  keep_until_ms INTEGER NOT NULL);"
"CREATE TABLE IF NOT EXISTS approvers ("
"  id TEXT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,"
"  pk BLOB NOT NULL CHECK (length(pk) = 32),"
"  PRIMARY KEY (id, pk));"
"CREATE TABLE IF NOT EXISTS decisions ("
"  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
"  id TEXT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,"
"  pk BLOB NOT NULL CHECK (length(pk) = 32),"
"  body BLOB NOT NULL,"
"  decided_ms INTEGER NOT NULL);",
/* 2: the pending listing looks tickets up by device key. */
"CREATE INDEX IF NOT EXISTS approvers_pk ON approvers (pk, id);",
/* 3: the phone page (docs/hub.md, "Approving from a phone"): passkeys,
 * the hashes of its codes, challenges and session cookies, the cards. */
"CREATE TABLE passkeys ("
"  name TEXT PRIMARY KEY,"
"  id BLOB NOT NULL UNIQUE CHECK (length(id) = 32),"
"  cose BLOB NOT NULL,"
"  cred BLOB NOT NULL UNIQUE);"
"CREATE TABLE tokens ("
"  kind INTEGER NOT NULL, hash BLOB NOT NULL CHECK (length(hash) = 32),"
"  subject TEXT NOT NULL, until_ms INTEGER NOT NULL,"
"  PRIMARY KEY (kind, hash));"
"CREATE TABLE cards ("
"  id TEXT PRIMARY KEY REFERENCES tickets (id) ON DELETE CASCADE,"
"  body BLOB NOT NULL);",
/* 4: one decision per (ticket, approver) instead of the first winning
 * (docs/hub.md, "The hub's state"). The old table's decisions go: they
 * were for tickets of at most an hour, which their consoles renew. */
"DROP TABLE decisions;"
"CREATE TABLE decisions ("
"  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
"  id TEXT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,"
"  pk BLOB NOT NULL CHECK (length(pk) = 32),"
"  body BLOB NOT NULL,"
"  decided_ms INTEGER NOT NULL,"
"  UNIQUE (id, pk));",
};

#define HS_MAX_CARD	HW_MAX_CARD

#define SQ(s) ((struct sq *)(s)->impl)

static void
lock(struct hub_store *s)
{
	pthread_mutex_lock(&SQ(s)->mu);
}

static void
unlock(struct hub_store *s)
{
	pthread_mutex_unlock(&SQ(s)->mu);
}

static enum hs_status
fail(struct hub_store *s, const char *what)
{
	logit("hub store: %s: %s", what, sqlite3_errmsg(SQ(s)->db));
	return HS_ERR;
}

static int
exec(struct hub_store *s, const char *sql)
{
	return sqlite3_exec(SQ(s)->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0
	    : -1;
}

static sqlite3_stmt *
prep(struct hub_store *s, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(SQ(s)->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

static struct buf *
blob_buf(sqlite3_stmt *st, int col, size_t max)
{
	const void *d = sqlite3_column_blob(st, col);
	int n = sqlite3_column_bytes(st, col);
	struct buf *b;

	if (n < 0 || (size_t)n > max)
		return NULL;
	b = buf_new(max);
	if (n > 0 && buf_append(b, d, (size_t)n) != 0) {
		buf_free(b);
		return NULL;
	}
	return b;
}

static enum hs_status
sq_enroll(struct hub_store *s, const struct hs_key *k)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	lock(s);
	st = prep(s, "INSERT INTO keys (pk, role, name) VALUES (?, ?, ?) "
	    "ON CONFLICT DO NOTHING");
	if (st == NULL) {
		ret = fail(s, "enroll");
		goto out;
	}
	sqlite3_bind_blob(st, 1, k->pk, 32, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)k->role);
	sqlite3_bind_text(st, 3, k->name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		ret = fail(s, "enroll");
	else
		ret = sqlite3_changes(SQ(s)->db) == 1 ? HS_OK : HS_EXISTS;
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_revoke(struct hub_store *s, enum hw_role role, const char *name)
{
	sqlite3_stmt *st;
	enum hs_status ret;

	lock(s);
	st = prep(s, "DELETE FROM keys WHERE role = ? AND name = ?");
	if (st == NULL) {
		ret = fail(s, "revoke");
		goto out;
	}
	sqlite3_bind_int(st, 1, (int)role);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = fail(s, "revoke");
	else
		ret = sqlite3_changes(SQ(s)->db) == 1 ? HS_OK : HS_NOT_FOUND;
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static int
row_key(sqlite3_stmt *st, struct hs_key *k)
{
	const unsigned char *name = sqlite3_column_text(st, 2);
	int role = sqlite3_column_int(st, 1);

	if (sqlite3_column_bytes(st, 0) != 32 || name == NULL ||
	    strlen((const char *)name) > HW_MAX_NAME ||
	    (role != HW_ROLE_INSTANCE && role != HW_ROLE_DEVICE))
		return -1;
	memcpy(k->pk, sqlite3_column_blob(st, 0), 32);
	k->role = (enum hw_role)role;
	return str_fmt(k->name, sizeof(k->name), "%s", (const char *)name) ==
	    STR_OK ? 0 : -1;
}

static enum hs_status
sq_keys(struct hub_store *s, struct hs_key *out, size_t max, size_t *n)
{
	sqlite3_stmt *st;
	enum hs_status ret = HS_OK;
	int rc;

	*n = 0;
	lock(s);
	st = prep(s, "SELECT pk, role, name FROM keys ORDER BY role, name");
	if (st == NULL) {
		ret = fail(s, "keys");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
		if (row_key(st, &out[*n]) == 0)
			(*n)++;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = fail(s, "keys");
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_lookup(struct hub_store *s, const uint8_t pk[32], struct hs_key *out)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	lock(s);
	st = prep(s, "SELECT pk, role, name FROM keys WHERE pk = ?");
	if (st == NULL) {
		ret = fail(s, "lookup");
		goto out;
	}
	sqlite3_bind_blob(st, 1, pk, 32, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		ret = row_key(st, out) == 0 ? HS_OK : HS_ERR;
	else if (rc == SQLITE_DONE)
		ret = HS_NOT_FOUND;
	else
		ret = fail(s, "lookup");
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_nonce_use(struct hub_store *s, const uint8_t pk[32],
    const uint8_t nonce[HW_REQ_NONCE_LEN], long long now_ms)
{
	sqlite3_stmt *st;
	enum hs_status ret;

	lock(s);
	st = prep(s, "INSERT INTO nonces (pk, nonce, seen_ms) VALUES (?, ?, ?) "
	    "ON CONFLICT DO NOTHING");
	if (st == NULL) {
		ret = fail(s, "nonce");
		goto out;
	}
	sqlite3_bind_blob(st, 1, pk, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, nonce, HW_REQ_NONCE_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now_ms);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = fail(s, "nonce");
	else
		ret = sqlite3_changes(SQ(s)->db) == 1 ? HS_OK : HS_REPLAY;
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

/* The ticket and the devices it names (who may see and decide it), in
 * one transaction: a ticket is never visible without its names. */
static enum hs_status
sq_put_ticket(struct hub_store *s, const char *id, const char *instance,
    const uint8_t *body, size_t len, const uint8_t (*approvers)[32],
    size_t napprovers, long long now_ms, long long keep_until_ms,
    uint64_t *seq)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	size_t i;

	lock(s);
	if (exec(s, "BEGIN IMMEDIATE") != 0) {
		ret = fail(s, "begin");
		goto out;
	}
	st = prep(s, "INSERT INTO tickets (id, instance, body, received_ms, "
	    "keep_until_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
	if (st == NULL) {
		ret = fail(s, "put ticket");
		goto rollback;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, instance, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, body, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now_ms);
	sqlite3_bind_int64(st, 5, keep_until_ms);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		ret = fail(s, "put ticket");
		goto rollback;
	}
	sqlite3_finalize(st);
	if (sqlite3_changes(SQ(s)->db) != 1) {
		ret = HS_EXISTS;
		goto rollback;
	}
	*seq = (uint64_t)sqlite3_last_insert_rowid(SQ(s)->db);
	for (i = 0; i < napprovers; i++) {
		st = prep(s, "INSERT INTO approvers (id, pk) VALUES (?, ?) "
		    "ON CONFLICT DO NOTHING");
		if (st == NULL) {
			ret = fail(s, "put ticket");
			goto rollback;
		}
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 2, approvers[i], 32, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			ret = fail(s, "put ticket");
			goto rollback;
		}
		sqlite3_finalize(st);
	}
	if (exec(s, "COMMIT") != 0) {
		ret = fail(s, "commit");
		goto rollback;
	}
	ret = HS_OK;
	goto out;
rollback:
	(void)exec(s, "ROLLBACK");
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_get_ticket(struct hub_store *s, const char *id, const uint8_t *pk,
    struct hs_ticket *out)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	memset(out, 0, sizeof(*out));
	lock(s);
	st = prep(s, "SELECT t.seq, t.instance, t.body, EXISTS (SELECT 1 FROM "
	    "decisions d WHERE d.id = t.id AND (?2 IS NULL OR d.pk = ?2)) "
	    "FROM tickets t WHERE t.id = ?1");
	if (st == NULL) {
		ret = fail(s, "get ticket");
		goto out;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (pk != NULL)
		sqlite3_bind_blob(st, 2, pk, 32, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *inst = sqlite3_column_text(st, 1);
		out->seq = (uint64_t)sqlite3_column_int64(st, 0);
		out->body = blob_buf(st, 2, HW_MAX_TICKET);
		out->decided = sqlite3_column_int(st, 3);
		ret = out->body != NULL && inst != NULL &&
		    str_fmt(out->instance, sizeof(out->instance), "%s",
		    (const char *)inst) == STR_OK ? HS_OK : HS_ERR;
	} else {
		ret = rc == SQLITE_DONE ? HS_NOT_FOUND : fail(s, "get ticket");
	}
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_pending(struct hub_store *s, const uint8_t pk[32], uint64_t after,
    size_t max_bytes, struct hs_pending *out)
{
	sqlite3_stmt *st;
	enum hs_status ret = HS_OK;
	size_t bytes = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	lock(s);
	/* Only the tickets that name this device: the cursor is the newest
	 * of those, so a device learns nothing of other tickets, not even
	 * how many there are (issue 26 item 1). */
	st = prep(s, "SELECT coalesce(max(t.seq), 0) FROM tickets t JOIN "
	    "approvers a ON a.id = t.id AND a.pk = ?");
	if (st == NULL) {
		ret = fail(s, "pending");
		goto out;
	}
	sqlite3_bind_blob(st, 1, pk, 32, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		ret = fail(s, "pending");
		goto out;
	}
	out->newest = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	/* A ticket goes from a device's listing once that device decided it;
	 * the others it names still see it (their decisions count too). */
	st = prep(s, "SELECT t.seq, t.body FROM tickets t JOIN approvers a ON "
	    "a.id = t.id AND a.pk = ?1 WHERE t.seq > ?2 AND NOT EXISTS "
	    "(SELECT 1 FROM decisions d WHERE d.id = t.id AND d.pk = ?1) "
	    "ORDER BY t.seq LIMIT ?3");
	if (st == NULL) {
		ret = fail(s, "pending");
		goto out;
	}
	sqlite3_bind_blob(st, 1, pk, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)after);
	sqlite3_bind_int(st, 3, HW_MAX_LIST_ITEMS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 1);
		if (out->n > 0 && bytes + n > max_bytes) {
			/* The rest next time: the cursor stops here. */
			out->newest = out->seq[out->n - 1];
			break;
		}
		out->seq[out->n] = (uint64_t)sqlite3_column_int64(st, 0);
		out->body[out->n] = blob_buf(st, 1, HW_MAX_TICKET);
		if (out->body[out->n] == NULL)
			continue;
		bytes += n;
		out->n++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = fail(s, "pending");
	/* A full page: the cursor is its last item, so nothing after it is
	 * skipped. */
	if (out->n == HW_MAX_LIST_ITEMS)
		out->newest = out->seq[out->n - 1];
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_put_decision(struct hub_store *s, const char *id, const uint8_t pk[32],
    const uint8_t *body, size_t len, long long now_ms)
{
	sqlite3_stmt *st = NULL;
	enum hs_status ret;
	int rc;

	lock(s);
	/* Read-then-write: the write lock from the start. */
	if (exec(s, "BEGIN IMMEDIATE") != 0) {
		ret = fail(s, "begin");
		goto out;
	}
	st = prep(s, "SELECT 1 FROM tickets WHERE id = ?");
	if (st == NULL) {
		ret = fail(s, "put decision");
		goto rollback;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE) {
		ret = HS_NOT_FOUND;
		goto rollback;
	}
	if (rc != SQLITE_ROW) {
		ret = fail(s, "put decision");
		goto rollback;
	}
	st = prep(s, "INSERT INTO decisions (id, pk, body, decided_ms) "
	    "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
	if (st == NULL) {
		ret = fail(s, "put decision");
		goto rollback;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, pk, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, body, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now_ms);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		ret = fail(s, "put decision");
		goto rollback;
	}
	ret = sqlite3_changes(SQ(s)->db) == 1 ? HS_OK : HS_EXISTS;
	if (exec(s, "COMMIT") != 0) {
		ret = fail(s, "commit");
		goto rollback;
	}
	goto out;
rollback:
	(void)exec(s, "ROLLBACK");
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_decisions(struct hub_store *s, const char *id, size_t skip,
    struct hs_decisions *out)
{
	sqlite3_stmt *st;
	enum hs_status ret = HS_OK;
	int rc;

	memset(out, 0, sizeof(*out));
	lock(s);
	st = prep(s, "SELECT body FROM decisions WHERE id = ? ORDER BY seq "
	    "LIMIT ? OFFSET ?");
	if (st == NULL) {
		ret = fail(s, "decisions");
		goto out;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, HW_MAX_DECLIST_ITEMS);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)skip);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    out->n < HW_MAX_DECLIST_ITEMS) {
		out->body[out->n] = blob_buf(st, 0, HW_MAX_DECISION);
		if (out->body[out->n] == NULL) {
			ret = HS_ERR;
			break;
		}
		out->n++;
	}
	if (ret == HS_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = fail(s, "decisions");
	sqlite3_finalize(st);
	if (ret != HS_OK)
		hs_decisions_free(out);
out:
	unlock(s);
	return ret;
}

static void
sq_purge(struct hub_store *s, long long now_ms, long long nonce_keep_ms)
{
	sqlite3_stmt *st;

	lock(s);
	if (exec(s, "BEGIN IMMEDIATE") != 0) {
		(void)fail(s, "purge");
		goto out;
	}
	st = prep(s, "DELETE FROM tickets WHERE keep_until_ms < ?");
	if (st != NULL) {
		sqlite3_bind_int64(st, 1, now_ms);
		(void)sqlite3_step(st);
		sqlite3_finalize(st);
	}
	st = prep(s, "DELETE FROM tokens WHERE until_ms < ?");
	if (st != NULL) {
		sqlite3_bind_int64(st, 1, now_ms);
		(void)sqlite3_step(st);
		sqlite3_finalize(st);
	}
	st = prep(s, "DELETE FROM nonces WHERE seen_ms < ?");
	if (st != NULL) {
		sqlite3_bind_int64(st, 1, now_ms - nonce_keep_ms);
		(void)sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (exec(s, "COMMIT") != 0) {
		(void)fail(s, "purge");
		(void)exec(s, "ROLLBACK");
	}
out:
	unlock(s);
}

/* ---- the phone page (docs/hub.md, "Approving from a phone") ---- */

static enum hs_status
sq_token_put(struct hub_store *s, enum hs_token kind, const uint8_t hash[32],
    const char *subject, long long until_ms)
{
	sqlite3_stmt *st;
	enum hs_status ret;

	lock(s);
	st = prep(s, "INSERT INTO tokens (kind, hash, subject, until_ms) "
	    "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
	if (st == NULL) {
		ret = fail(s, "token put");
		goto out;
	}
	sqlite3_bind_int(st, 1, (int)kind);
	sqlite3_bind_blob(st, 2, hash, 32, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, subject, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, until_ms);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = fail(s, "token put");
	else
		ret = sqlite3_changes(SQ(s)->db) == 1 ? HS_OK : HS_EXISTS;
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

/* DELETE ... RETURNING: the read and the one use in one statement, so
 * two requests racing with one code or challenge cannot both have it. */
static enum hs_status
sq_token_use(struct hub_store *s, enum hs_token kind, const uint8_t hash[32],
    long long now_ms, int consume, char subject[HS_MAX_SUBJECT + 1])
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	subject[0] = '\0';
	lock(s);
	st = prep(s, consume ?
	    "DELETE FROM tokens WHERE kind = ? AND hash = ? "
	    "RETURNING subject, until_ms" :
	    "SELECT subject, until_ms FROM tokens WHERE kind = ? AND hash = ?");
	if (st == NULL) {
		ret = fail(s, "token use");
		goto out;
	}
	sqlite3_bind_int(st, 1, (int)kind);
	sqlite3_bind_blob(st, 2, hash, 32, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *sub = sqlite3_column_text(st, 0);
		if (sqlite3_column_int64(st, 1) < now_ms)
			ret = HS_NOT_FOUND;
		else
			ret = sub != NULL && str_fmt(subject, HS_MAX_SUBJECT + 1,
			    "%s", (const char *)sub) == STR_OK ? HS_OK : HS_ERR;
		/* RETURNING: the row is gone once the statement is done */
		while (rc == SQLITE_ROW)
			rc = sqlite3_step(st);
	} else {
		ret = rc == SQLITE_DONE ? HS_NOT_FOUND : fail(s, "token use");
	}
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_passkey_enroll(struct hub_store *s, const struct hs_passkey *p)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	lock(s);
	st = prep(s, "INSERT INTO passkeys (name, id, cose, cred) "
	    "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
	if (st == NULL) {
		ret = fail(s, "passkey enroll");
		goto out;
	}
	sqlite3_bind_text(st, 1, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, p->id, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, p->cose, (int)p->cose_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 4, p->cred, (int)p->cred_len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		ret = fail(s, "passkey enroll");
	else
		ret = sqlite3_changes(SQ(s)->db) == 1 ? HS_OK : HS_EXISTS;
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

static int
row_passkey(sqlite3_stmt *st, struct hs_passkey *p)
{
	const unsigned char *name = sqlite3_column_text(st, 0);
	int ncose = sqlite3_column_bytes(st, 2), ncred = sqlite3_column_bytes(st, 3);

	memset(p, 0, sizeof(*p));
	if (name == NULL || sqlite3_column_bytes(st, 1) != 32 || ncose <= 0 ||
	    ncose > HS_MAX_COSE || ncred <= 0 || ncred > HS_MAX_CRED ||
	    str_fmt(p->name, sizeof(p->name), "%s", (const char *)name) !=
	    STR_OK)
		return -1;
	memcpy(p->id, sqlite3_column_blob(st, 1), 32);
	memcpy(p->cose, sqlite3_column_blob(st, 2), (size_t)ncose);
	p->cose_len = (size_t)ncose;
	memcpy(p->cred, sqlite3_column_blob(st, 3), (size_t)ncred);
	p->cred_len = (size_t)ncred;
	return 0;
}

static enum hs_status
sq_passkey_get(struct hub_store *s, const uint8_t *id, const uint8_t *cred,
    size_t cred_len, struct hs_passkey *out)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	lock(s);
	st = prep(s, id != NULL ?
	    "SELECT name, id, cose, cred FROM passkeys WHERE id = ?" :
	    "SELECT name, id, cose, cred FROM passkeys WHERE cred = ?");
	if (st == NULL) {
		ret = fail(s, "passkey get");
		goto out;
	}
	if (id != NULL)
		sqlite3_bind_blob(st, 1, id, 32, SQLITE_STATIC);
	else
		sqlite3_bind_blob(st, 1, cred, (int)cred_len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		ret = row_passkey(st, out) == 0 ? HS_OK : HS_ERR;
	else
		ret = rc == SQLITE_DONE ? HS_NOT_FOUND : fail(s, "passkey get");
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

/* 0 when the table is missing: a database from before migrations. */
static enum hs_status
read_version(struct hub_store *s, int *version)
{
	sqlite3_stmt *st;
	int rc;

	*version = 0;
	st = prep(s, "SELECT max(version) FROM schema_version");
	if (st == NULL)
		return strstr(sqlite3_errmsg(SQ(s)->db), "no such table") != NULL
		    ? HS_OK : fail(s, "schema version");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? HS_OK : fail(s, "schema version");
}

static enum hs_status
sq_version(struct hub_store *s, int *version)
{
	enum hs_status ret;

	lock(s);
	ret = read_version(s, version);
	unlock(s);
	return ret;
}

static enum hs_status
sq_passkeys(struct hub_store *s, struct hs_passkey *out, size_t max,
    size_t *n)
{
	sqlite3_stmt *st;
	enum hs_status ret = HS_OK;
	int rc;

	*n = 0;
	lock(s);
	st = prep(s, "SELECT name, id, cose, cred FROM passkeys ORDER BY name");
	if (st == NULL) {
		ret = fail(s, "passkeys");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
		if (row_passkey(st, &out[*n]) == 0)
			(*n)++;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = fail(s, "passkeys");
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

/* The passkey and its sessions (their subject is its id in hex). */
static enum hs_status
sq_passkey_revoke(struct hub_store *s, const char *name)
{
	sqlite3_stmt *st;
	enum hs_status ret;

	lock(s);
	if (exec(s, "BEGIN IMMEDIATE") != 0) {
		ret = fail(s, "begin");
		goto out;
	}
	st = prep(s, "DELETE FROM tokens WHERE kind = ? AND subject = "
	    "(SELECT lower(hex(id)) FROM passkeys WHERE name = ?)");
	if (st == NULL) {
		ret = fail(s, "passkey revoke");
		goto rollback;
	}
	sqlite3_bind_int(st, 1, HS_TOK_SESSION);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		ret = fail(s, "passkey revoke");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = prep(s, "DELETE FROM passkeys WHERE name = ?");
	if (st == NULL) {
		ret = fail(s, "passkey revoke");
		goto rollback;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		ret = fail(s, "passkey revoke");
		goto rollback;
	}
	sqlite3_finalize(st);
	ret = sqlite3_changes(SQ(s)->db) == 1 ? HS_OK : HS_NOT_FOUND;
	if (exec(s, "COMMIT") != 0) {
		ret = fail(s, "commit");
		goto rollback;
	}
	goto out;
rollback:
	(void)exec(s, "ROLLBACK");
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_put_card(struct hub_store *s, const char *id, const uint8_t *body,
    size_t len)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	lock(s);
	/* The ticket must be there: the foreign key refuses it otherwise. */
	st = prep(s, "INSERT INTO cards (id, body) SELECT id, ? FROM tickets "
	    "WHERE id = ? ON CONFLICT DO NOTHING");
	if (st == NULL) {
		ret = fail(s, "put card");
		goto out;
	}
	sqlite3_bind_blob(st, 1, body, (int)len, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		ret = fail(s, "put card");
		goto out;
	}
	if (sqlite3_changes(SQ(s)->db) == 1) {
		ret = HS_OK;
		goto out;
	}
	st = prep(s, "SELECT 1 FROM cards WHERE id = ?");
	if (st == NULL) {
		ret = fail(s, "put card");
		goto out;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	ret = rc == SQLITE_ROW ? HS_EXISTS : rc == SQLITE_DONE ? HS_NOT_FOUND :
	    fail(s, "put card");
out:
	unlock(s);
	return ret;
}

static enum hs_status
sq_get_card(struct hub_store *s, const char *id, struct buf **body)
{
	sqlite3_stmt *st;
	enum hs_status ret;
	int rc;

	*body = NULL;
	lock(s);
	st = prep(s, "SELECT body FROM cards WHERE id = ?");
	if (st == NULL) {
		ret = fail(s, "get card");
		goto out;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*body = blob_buf(st, 0, HS_MAX_CARD);
		ret = *body != NULL ? HS_OK : HS_ERR;
	} else {
		ret = rc == SQLITE_DONE ? HS_NOT_FOUND : fail(s, "get card");
	}
	sqlite3_finalize(st);
out:
	unlock(s);
	return ret;
}

/* One transaction per migration, the version read under the write lock:
 * two lockhub migrate at once apply each step once. */
static enum hs_status
sq_migrate(struct hub_store *s, int *from, int *to)
{
	enum hs_status ret = HS_OK;
	sqlite3_stmt *st;
	int v = 0, first = 1;

	lock(s);
	for (;;) {
		if (exec(s, "BEGIN IMMEDIATE") != 0 || exec(s,
		    "CREATE TABLE IF NOT EXISTS schema_version "
		    "(version INTEGER NOT NULL)") != 0 ||
		    read_version(s, &v) != HS_OK) {
			ret = fail(s, "migrate");
			break;
		}
		if (first)
			*from = v;
		first = 0;
		*to = v;
		if (v >= HS_SCHEMA_VERSION) {
			ret = v > HS_SCHEMA_VERSION ? HS_EXISTS : HS_OK;
			break;
		}
		if (exec(s, migrations[v]) != 0 ||
		    exec(s, "DELETE FROM schema_version") != 0 ||
		    (st = prep(s, "INSERT INTO schema_version VALUES (?)")) ==
		    NULL) {
			ret = fail(s, "migrate");
			break;
		}
		sqlite3_bind_int(st, 1, v + 1);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			ret = fail(s, "migrate");
			break;
		}
		sqlite3_finalize(st);
		if (exec(s, "COMMIT") != 0) {
			ret = fail(s, "migrate");
			break;
		}
	}
	(void)exec(s, "ROLLBACK");
	unlock(s);
	return ret;
}

static void
sq_close(struct hub_store *s)
{
	if (s->impl == NULL)
		return;
	sqlite3_close(SQ(s)->db);
	pthread_mutex_destroy(&SQ(s)->mu);
	free(s->impl);
	s->impl = NULL;
}

static const struct hub_store_ops sqlite_ops = {
	.name = "sqlite",
	.enroll = sq_enroll,
	.revoke = sq_revoke,
	.keys = sq_keys,
	.lookup = sq_lookup,
	.nonce_use = sq_nonce_use,
	.put_ticket = sq_put_ticket,
	.get_ticket = sq_get_ticket,
	.pending = sq_pending,
	.put_decision = sq_put_decision,
	.decisions = sq_decisions,
	.purge = sq_purge,
	.token_put = sq_token_put,
	.token_use = sq_token_use,
	.passkey_enroll = sq_passkey_enroll,
	.passkey_get = sq_passkey_get,
	.passkeys = sq_passkeys,
	.passkey_revoke = sq_passkey_revoke,
	.put_card = sq_put_card,
	.get_card = sq_get_card,
	.version = sq_version,
	.migrate = sq_migrate,
	/* One file, no channel: other processes' long-polls see a commit by
	 * their recheck timer (docs/hub.md, "Operating several hubs"). */
	.changed = NULL,
	.watch = NULL,
	.close = sq_close,
};

int
hub_store_sqlite_open(struct hub_store *s, const char *path, const char **why)
{
	struct sq *q = xcalloc(1, sizeof(*q));
	int fd;

	s->ops = &sqlite_ops;
	s->impl = q;
	pthread_mutex_init(&q->mu, NULL);
	/* Created 0600 by us, not by SQLite's umask-dependent default; the
	 * -wal and -shm files take the database's mode. */
	if (strcmp(path, ":memory:") != 0) {
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			*why = "the database cannot be opened";
			sq_close(s);
			return -1;
		}
		close(fd);
	}
	if (sqlite3_open_v2(path, &q->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
	    NULL) != SQLITE_OK) {
		*why = "the database cannot be opened";
		sq_close(s);
		return -1;
	}
	sqlite3_busy_timeout(q->db, 5000);
	sqlite3_extended_result_codes(q->db, 1);
	if (exec(s, pragmas) != 0) {
		logit("hub store: %s", sqlite3_errmsg(q->db));
		*why = "the database cannot be set up";
		sq_close(s);
		return -1;
	}
	if (strcmp(path, ":memory:") == 0) {
		int from, to;
		if (sq_migrate(s, &from, &to) != HS_OK) {
			*why = "the database schema cannot be set up";
			sq_close(s);
			return -1;
		}
	}
	return 0;
}

int
hub_store_check_version(struct hub_store *s, const char **why)
{
	int v;

	if (s->ops->version(s, &v) != HS_OK) {
		*why = "the schema version cannot be read";
		return -1;
	}
	if (v < HS_SCHEMA_VERSION) {
		logit("the database's schema is version %d, this lockhub's %d",
		    v, HS_SCHEMA_VERSION);
		*why = "the database's schema is older: run lockhub migrate";
		return -1;
	}
	if (v > HS_SCHEMA_VERSION) {
		logit("the database's schema is version %d, this lockhub's %d",
		    v, HS_SCHEMA_VERSION);
		*why = "the database's schema is newer than this lockhub knows";
		return -1;
	}
	return 0;
}

void
hs_ticket_free(struct hs_ticket *t)
{
	buf_free(t->body);
	t->body = NULL;
}

void
hs_decisions_free(struct hs_decisions *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		buf_free(d->body[i]);
	d->n = 0;
}

void
hs_pending_free(struct hs_pending *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		buf_free(p->body[i]);
	p->n = 0;
}
