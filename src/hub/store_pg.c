/* The PostgreSQL engine of the hub's state (see store.h; docs/hub.md,
 * "The store: PostgreSQL"): several lockhub processes share one database.
 *
 * Every statement goes through PQexecParams with binary parameters and
 * results: no SQL is ever built from input. The first decision wins
 * through the primary key of decisions and ON CONFLICT DO NOTHING; a
 * nonce is used once through the primary key of nonces; both hold across
 * processes because the database enforces them.
 *
 * The pending cursor (`after SEQ`): a BIGSERIAL would hand out sequence
 * values that commit out of order across connections (seq 6 visible
 * before seq 5), and a device that listed after 6 would never see 5.
 * Here a ticket takes its seq from a one-row counter updated inside the
 * ticket's own transaction: the row lock is held to the commit, so the
 * ticket transactions commit in seq order, and a snapshot that sees seq N
 * sees every seq below it (PostgreSQL makes a commit visible before it
 * releases its locks). The cost: ticket inserts are serialised across
 * instances for the length of one short transaction.
 *
 * A small pool of connections per process (PG_POOL, store_pg_conn.c):
 * an operation holds one from its first statement to its last, so
 * operations of several
 * requests run at once and their commits share PostgreSQL's fsyncs. A
 * failed connection makes the operation HS_ERR (logged); the next
 * operation connects again, so an instance outlives a PostgreSQL restart
 * (docs/hub.md, "The store: PostgreSQL"). Every
 * wait is bounded: connect_timeout, statement_timeout, lock_timeout,
 * tcp_user_timeout. */
#include "hub/store.h"
#include "hub/store_pg_int.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#define MIGRATE_LOCK	"7236823216741118976"	/* pg_advisory_xact_lock key */

/* The migrations, in the order and numbering of store_sqlite.c's:
 * migrations[i] takes the schema from version i to i + 1. The one-row
 * ticket_seq is the cursor's counter (above). Never edit a shipped
 * entry: add one. */
static const char *const migrations[HS_SCHEMA_VERSION] = {
"CREATE TABLE keys ("
"  pk bytea PRIMARY KEY CHECK (length(pk) = 32),"
"  role bigint NOT NULL CHECK (role IN (1, 2)),"
"  name text NOT NULL,"
"  UNIQUE (role, name));"
"CREATE TABLE nonces ("
"  pk bytea NOT NULL, nonce bytea NOT NULL, seen_ms bigint NOT NULL,"
"  PRIMARY KEY (pk, nonce));"
"CREATE INDEX nonces_seen ON nonces (seen_ms);"
"CREATE TABLE ticket_seq ("
"  one boolean PRIMARY KEY DEFAULT true CHECK (one),"
"  n bigint NOT NULL);"
"INSERT INTO ticket_seq (n) VALUES (0);"
"CREATE TABLE tickets ("
"  seq bigint PRIMARY KEY,"
"  id text NOT NULL UNIQUE,"
"  instance text NOT NULL,"
"  body bytea NOT NULL,"
"  received_ms bigint NOT NULL,"
"  keep_until_ms bigint NOT NULL);"
"CREATE INDEX tickets_keep ON tickets (keep_until_ms);"
"CREATE TABLE approvers ("
"  id text NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,"
"  pk bytea NOT NULL CHECK (length(pk) = 32),"
"  PRIMARY KEY (id, pk));"
"CREATE TABLE decisions ("
"  id text PRIMARY KEY REFERENCES tickets (id) ON DELETE CASCADE,"
"  body bytea NOT NULL,"
"  decided_ms bigint NOT NULL);",
/* 2: the pending listing looks tickets up by device key. */
"CREATE INDEX approvers_pk ON approvers (pk, id);",
/* 3: the phone page (docs/hub.md, "Approving from a phone"): passkeys,
 * the hashes of its codes, challenges and session cookies, the cards. */
"CREATE TABLE passkeys ("
"  name text PRIMARY KEY,"
"  id bytea NOT NULL UNIQUE CHECK (length(id) = 32),"
"  cose bytea NOT NULL,"
"  cred bytea NOT NULL UNIQUE);"
"CREATE TABLE tokens ("
"  kind bigint NOT NULL, hash bytea NOT NULL CHECK (length(hash) = 32),"
"  subject text NOT NULL, until_ms bigint NOT NULL,"
"  PRIMARY KEY (kind, hash));"
"CREATE TABLE cards ("
"  id text PRIMARY KEY REFERENCES tickets (id) ON DELETE CASCADE,"
"  body bytea NOT NULL);",
/* 4: one decision per (ticket, approver) (issue 29), numbered per ticket
 * from tickets.ndecisions under the ticket's row lock, so a ticket's
 * decisions commit in their order and the console's `skip` never passes
 * one still being written (the cursor's reasoning, above). */
"DROP TABLE decisions;"
"ALTER TABLE tickets ADD COLUMN ndecisions bigint NOT NULL DEFAULT 0;"
"CREATE TABLE decisions ("
"  id text NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,"
"  n bigint NOT NULL,"
"  pk bytea NOT NULL CHECK (length(pk) = 32),"
"  body bytea NOT NULL,"
"  decided_ms bigint NOT NULL,"
"  PRIMARY KEY (id, n),"
"  UNIQUE (id, pk));",
};

/* A row (pk, role, name) into k: -1 for a malformed one. */
static int
r_key(const PGresult *r, int row, struct hs_key *k)
{
	long long role = pgs_r_int(r, row, 1);
	int nlen = PQgetlength(r, row, 2);

	if (PQgetlength(r, row, 0) != 32 || nlen < 1 || nlen > HW_MAX_NAME ||
	    (role != HW_ROLE_INSTANCE && role != HW_ROLE_DEVICE))
		return -1;
	memcpy(k->pk, PQgetvalue(r, row, 0), 32);
	k->role = (enum hw_role)role;
	memcpy(k->name, PQgetvalue(r, row, 2), (size_t)nlen);
	k->name[nlen] = '\0';
	return strlen(k->name) == (size_t)nlen ? 0 : -1;
}

/* An INSERT ... ON CONFLICT DO NOTHING: HS_OK when it inserted, else
 * dup. */
static enum hs_status
insert(struct hub_store *s, const char *what, const char *sql,
    const struct params *pa, enum hs_status dup)
{
	enum hs_status ret;
	PGresult *r;

	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		ret = HS_ERR;
		goto out;
	}
	r = pgs_run(s, what, sql, pa, PGRES_COMMAND_OK);
	ret = r == NULL ? HS_ERR : pgs_affected(r) == 1 ? HS_OK : dup;
	PQclear(r);
out:
	pgs_unlock(s);
	return ret;
}

static enum hs_status
pg_enroll(struct hub_store *s, const struct hs_key *k)
{
	struct params pa = { 0 };

	pgs_bytes(&pa, k->pk, 32);
	pgs_int(&pa, (long long)k->role);
	pgs_text(&pa, k->name);
	return insert(s, "enroll", "INSERT INTO keys (pk, role, name) "
	    "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", &pa, HS_EXISTS);
}

static enum hs_status
pg_revoke(struct hub_store *s, enum hw_role role, const char *name)
{
	struct params pa = { 0 };

	pgs_int(&pa, (long long)role);
	pgs_text(&pa, name);
	return insert(s, "revoke", "DELETE FROM keys WHERE role = $1 AND "
	    "name = $2", &pa, HS_NOT_FOUND);
}

static enum hs_status
pg_nonce_use(struct hub_store *s, const uint8_t pk[32],
    const uint8_t nonce[HW_REQ_NONCE_LEN], long long now_ms)
{
	struct params pa = { 0 };

	pgs_bytes(&pa, pk, 32);
	pgs_bytes(&pa, nonce, HW_REQ_NONCE_LEN);
	pgs_int(&pa, now_ms);
	return insert(s, "nonce", "INSERT INTO nonces (pk, nonce, seen_ms) "
	    "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", &pa, HS_REPLAY);
}

static enum hs_status
pg_keys(struct hub_store *s, struct hs_key *out, size_t max, size_t *n)
{
	struct params pa = { 0 };
	enum hs_status ret = HS_OK;
	PGresult *r;
	int i;

	*n = 0;
	pgs_int(&pa, (long long)max);
	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		ret = HS_ERR;
		goto out;
	}
	r = pgs_run(s, "keys", "SELECT pk, role, name FROM keys ORDER BY role, "
	    "name LIMIT $1", &pa, PGRES_TUPLES_OK);
	if (r == NULL) {
		ret = HS_ERR;
		goto out;
	}
	for (i = 0; i < PQntuples(r) && *n < max; i++)
		if (r_key(r, i, &out[*n]) == 0)
			(*n)++;
	PQclear(r);
out:
	pgs_unlock(s);
	return ret;
}

static enum hs_status
pg_lookup(struct hub_store *s, const uint8_t pk[32], struct hs_key *out)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;

	pgs_bytes(&pa, pk, 32);
	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		ret = HS_ERR;
		goto out;
	}
	r = pgs_run(s, "lookup", "SELECT pk, role, name FROM keys WHERE pk = $1",
	    &pa, PGRES_TUPLES_OK);
	if (r == NULL)
		ret = HS_ERR;
	else if (PQntuples(r) == 0)
		ret = HS_NOT_FOUND;
	else
		ret = r_key(r, 0, out) == 0 ? HS_OK : HS_ERR;
	PQclear(r);
out:
	pgs_unlock(s);
	return ret;
}

/* The ticket, its seq from the counter (the cursor's order, above) and
 * the devices it names, in one transaction: a ticket is never visible
 * without its names. The approvers go as one bytea of 32-byte keys. */
static enum hs_status
pg_put_ticket(struct hub_store *s, const char *id, const char *instance,
    const uint8_t *body, size_t len, const uint8_t (*approvers)[32],
    size_t napprovers, long long now_ms, long long keep_until_ms,
    uint64_t *seq)
{
	struct params pa = { 0 }, pb = { 0 };
	enum hs_status ret;
	PGresult *r;

	if (napprovers > HW_MAX_APPROVERS)
		return HS_ERR;
	pgs_text(&pa, id);
	pgs_text(&pa, instance);
	pgs_bytes(&pa, body, len);
	pgs_int(&pa, now_ms);
	pgs_int(&pa, keep_until_ms);
	pgs_text(&pb, id);
	pgs_bytes(&pb, approvers, napprovers * 32);
	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		ret = HS_ERR;
		goto out;
	}
	if (pgs_cmd(s, "begin", "BEGIN") != 0) {
		ret = HS_ERR;
		goto out;
	}
	r = pgs_run(s, "put ticket", "WITH s AS (UPDATE ticket_seq SET n = n + 1 "
	    "RETURNING n) INSERT INTO tickets (seq, id, instance, body, "
	    "received_ms, keep_until_ms) SELECT s.n, $1, $2, $3, $4, $5 FROM s "
	    "ON CONFLICT (id) DO NOTHING RETURNING seq", &pa, PGRES_TUPLES_OK);
	if (r == NULL || PQntuples(r) != 1) {
		ret = r == NULL ? HS_ERR : HS_EXISTS;
		PQclear(r);
		goto rollback;
	}
	*seq = (uint64_t)pgs_r_int(r, 0, 0);
	PQclear(r);
	r = pgs_run(s, "put ticket", "INSERT INTO approvers (id, pk) SELECT $1, "
	    "substring($2 FROM i * 32 + 1 FOR 32) FROM generate_series(0, "
	    "length($2) / 32 - 1) AS i ON CONFLICT DO NOTHING", &pb,
	    PGRES_COMMAND_OK);
	if (r == NULL) {
		ret = HS_ERR;
		goto rollback;
	}
	PQclear(r);
	ret = pgs_cmd(s, "commit", "COMMIT") == 0 ? HS_OK : HS_ERR;
	goto out;
rollback:
	(void)pgs_cmd(s, "rollback", "ROLLBACK");
out:
	pgs_unlock(s);
	return ret;
}

static enum hs_status
pg_get_ticket(struct hub_store *s, const char *id, const uint8_t *pk,
    struct hs_ticket *out)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;
	int n;

	memset(out, 0, sizeof(*out));
	pgs_text(&pa, id);
	pgs_bytes(&pa, pk, pk != NULL ? 32 : 0);	/* NULL: SQL NULL */
	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		ret = HS_ERR;
		goto out;
	}
	r = pgs_run(s, "get ticket", "SELECT t.seq, t.instance, t.body, "
	    "CASE WHEN EXISTS (SELECT 1 FROM decisions d WHERE d.id = t.id "
	    "AND ($2::bytea IS NULL OR d.pk = $2)) THEN 1::int8 ELSE 0::int8 "
	    "END FROM tickets t WHERE t.id = $1", &pa, PGRES_TUPLES_OK);
	if (r == NULL) {
		ret = HS_ERR;
		goto out;
	}
	if (PQntuples(r) == 0) {
		ret = HS_NOT_FOUND;
		PQclear(r);
		goto out;
	}
	out->seq = (uint64_t)pgs_r_int(r, 0, 0);
	out->body = pgs_r_buf(r, 0, 2, HW_MAX_TICKET);
	out->decided = pgs_r_int(r, 0, 3) != 0;
	n = PQgetlength(r, 0, 1);
	ret = HS_ERR;
	if (out->body != NULL && n >= 0 && n <= HW_MAX_NAME) {
		memcpy(out->instance, PQgetvalue(r, 0, 1), (size_t)n);
		out->instance[n] = '\0';
		ret = HS_OK;
	}
	PQclear(r);
out:
	pgs_unlock(s);
	return ret;
}

static void
pending_rows(const PGresult *r, size_t max_bytes, struct hs_pending *out)
{
	size_t bytes = 0, n;
	int i;

	for (i = 0; i < PQntuples(r) && out->n < HW_MAX_LIST_ITEMS; i++) {
		n = (size_t)PQgetlength(r, i, 1);
		if (out->n > 0 && bytes + n > max_bytes) {
			/* The rest next time: the cursor stops here. */
			out->newest = out->seq[out->n - 1];
			return;
		}
		out->seq[out->n] = (uint64_t)pgs_r_int(r, i, 0);
		out->body[out->n] = pgs_r_buf(r, i, 1, HW_MAX_TICKET);
		if (out->body[out->n] == NULL)
			continue;
		bytes += n;
		out->n++;
	}
	/* A full page: the cursor is its last item, so nothing after it is
	 * skipped. */
	if (out->n == HW_MAX_LIST_ITEMS)
		out->newest = out->seq[out->n - 1];
}

/* Both queries in one snapshot: newest and the page agree. Only the
 * tickets that name this device (issue 26 item 1, as store_sqlite.c). */
static enum hs_status
pg_pending(struct hub_store *s, const uint8_t pk[32], uint64_t after,
    size_t max_bytes, struct hs_pending *out)
{
	struct params pa = { 0 }, pb = { 0 };
	enum hs_status ret = HS_ERR;
	PGresult *r;

	memset(out, 0, sizeof(*out));
	if (after > (uint64_t)INT64_MAX)
		after = (uint64_t)INT64_MAX;
	pgs_bytes(&pa, pk, 32);
	pgs_bytes(&pb, pk, 32);
	pgs_int(&pb, (long long)after);
	pgs_int(&pb, HW_MAX_LIST_ITEMS);
	pgs_lock(s);
	if (pgs_connected(s) != 0)
		goto out;
	if (pgs_cmd(s, "begin", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	    != 0)
		goto out;
	r = pgs_run(s, "pending", "SELECT coalesce(max(t.seq), 0) FROM tickets t "
	    "JOIN approvers a ON a.id = t.id AND a.pk = $1", &pa,
	    PGRES_TUPLES_OK);
	if (r == NULL || PQntuples(r) != 1) {
		PQclear(r);
		goto rollback;
	}
	out->newest = (uint64_t)pgs_r_int(r, 0, 0);
	PQclear(r);
	r = pgs_run(s, "pending", "SELECT t.seq, t.body FROM tickets t JOIN "
	    "approvers a ON a.id = t.id AND a.pk = $1 WHERE t.seq > $2 AND "
	    "NOT EXISTS (SELECT 1 FROM decisions d WHERE d.id = t.id AND "
	    "d.pk = $1) ORDER BY t.seq LIMIT $3", &pb, PGRES_TUPLES_OK);
	if (r == NULL)
		goto rollback;
	pending_rows(r, max_bytes, out);
	PQclear(r);
	ret = HS_OK;
rollback:
	(void)pgs_cmd(s, "end", "ROLLBACK");
out:
	pgs_unlock(s);
	return ret;
}

/* The ticket's counter bumped (its row locked to the commit: a ticket's
 * decisions commit in their order), then this device's decision unless it
 * has one: rolled back then, so the count keeps no gap. */
static enum hs_status
pg_put_decision(struct hub_store *s, const char *id, const uint8_t pk[32],
    const uint8_t *body, size_t len, long long now_ms)
{
	struct params pa = { 0 }, pb = { 0 };
	enum hs_status ret;
	PGresult *r;

	pgs_text(&pa, id);
	pgs_text(&pb, id);
	pgs_bytes(&pb, pk, 32);
	pgs_bytes(&pb, body, len);
	pgs_int(&pb, now_ms);
	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		ret = HS_ERR;
		goto out;
	}
	if (pgs_cmd(s, "begin", "BEGIN") != 0) {
		ret = HS_ERR;
		goto out;
	}
	r = pgs_run(s, "put decision", "UPDATE tickets SET ndecisions = "
	    "ndecisions + 1 WHERE id = $1 RETURNING ndecisions", &pa,
	    PGRES_TUPLES_OK);
	if (r == NULL || PQntuples(r) != 1) {
		ret = r == NULL ? HS_ERR : HS_NOT_FOUND;
		PQclear(r);
		goto rollback;
	}
	PQclear(r);
	r = pgs_run(s, "put decision", "INSERT INTO decisions (id, n, pk, body, "
	    "decided_ms) SELECT $1, ndecisions, $2, $3, $4 FROM tickets WHERE "
	    "id = $1 ON CONFLICT (id, pk) DO NOTHING", &pb, PGRES_COMMAND_OK);
	if (r == NULL || pgs_affected(r) != 1) {
		ret = r == NULL ? HS_ERR : HS_EXISTS;
		PQclear(r);
		goto rollback;
	}
	PQclear(r);
	ret = pgs_cmd(s, "commit", "COMMIT") == 0 ? HS_OK : HS_ERR;
	goto out;
rollback:
	(void)pgs_cmd(s, "rollback", "ROLLBACK");
out:
	pgs_unlock(s);
	return ret;
}

static enum hs_status
pg_decisions(struct hub_store *s, const char *id, size_t skip,
    struct hs_decisions *out)
{
	struct params pa = { 0 };
	enum hs_status ret = HS_OK;
	PGresult *r;
	int i;

	memset(out, 0, sizeof(*out));
	pgs_text(&pa, id);
	pgs_int(&pa, HW_MAX_DECLIST_ITEMS);
	pgs_int(&pa, (long long)(skip > HW_MAX_APPROVERS * 4 ? HW_MAX_APPROVERS *
	    4 : skip));
	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		ret = HS_ERR;
		goto out;
	}
	r = pgs_run(s, "decisions", "SELECT body FROM decisions WHERE id = $1 "
	    "ORDER BY n LIMIT $2 OFFSET $3", &pa, PGRES_TUPLES_OK);
	if (r == NULL) {
		ret = HS_ERR;
		goto out;
	}
	for (i = 0; i < PQntuples(r) && out->n < HW_MAX_DECLIST_ITEMS; i++) {
		out->body[out->n] = pgs_r_buf(r, i, 0, HW_MAX_DECISION);
		if (out->body[out->n] == NULL) {
			ret = HS_ERR;
			break;
		}
		out->n++;
	}
	PQclear(r);
	if (ret != HS_OK)
		hs_decisions_free(out);
out:
	pgs_unlock(s);
	return ret;
}

static void
pg_purge(struct hub_store *s, long long now_ms, long long nonce_keep_ms)
{
	struct params pa = { 0 }, pb = { 0 };

	pgs_int(&pa, now_ms);
	pgs_int(&pb, now_ms - nonce_keep_ms);
	pgs_lock(s);
	if (pgs_connected(s) == 0) {
		PQclear(pgs_run(s, "purge", "DELETE FROM tickets WHERE "
		    "keep_until_ms < $1", &pa, PGRES_COMMAND_OK));
		PQclear(pgs_run(s, "purge", "DELETE FROM nonces WHERE seen_ms < $1",
		    &pb, PGRES_COMMAND_OK));
	}
	pgs_unlock(s);
}

/* 0 when the table is missing (42P01): an empty database. */
static enum hs_status
read_version(struct hub_store *s, int *version)
{
	PGresult *r;
	const char *state;

	*version = 0;
	r = PQexecParams(pgs_conn(s), "SELECT coalesce(max(version), 0) FROM "
	    "schema_version", 0, NULL, NULL, NULL, NULL, 1);
	if (r != NULL && PQresultStatus(r) == PGRES_TUPLES_OK &&
	    PQntuples(r) == 1) {
		*version = (int)pgs_r_int(r, 0, 0);
		PQclear(r);
		return HS_OK;
	}
	state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	if (state != NULL && strcmp(state, "42P01") == 0) {
		PQclear(r);
		return HS_OK;
	}
	pgs_log("schema version", PQerrorMessage(pgs_conn(s)));
	PQclear(r);
	return HS_ERR;
}

static enum hs_status
pg_version(struct hub_store *s, int *version)
{
	enum hs_status ret = HS_ERR;

	pgs_lock(s);
	if (pgs_connected(s) == 0)
		ret = read_version(s, version);
	pgs_unlock(s);
	return ret;
}

/* One transaction per migration under a transaction-level advisory lock,
 * the version read under it: two lockhub migrate at once apply each step
 * once, and DDL is transactional in PostgreSQL. */
static enum hs_status
pg_migrate(struct hub_store *s, int *from, int *to)
{
	struct params pa = { 0 };
	enum hs_status ret = HS_OK;
	PGresult *r;
	int v = 0, first = 1;

	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		pgs_unlock(s);
		return HS_ERR;
	}
	for (;;) {
		if (pgs_cmd(s, "migrate", "BEGIN") != 0 || (r = pgs_run(s, "migrate",
		    "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", NULL,
		    PGRES_TUPLES_OK)) == NULL) {
			ret = HS_ERR;
			break;
		}
		PQclear(r);
		if (pgs_cmd(s, "migrate", "CREATE TABLE IF NOT EXISTS schema_version "
		    "(version bigint NOT NULL)") != 0 ||
		    read_version(s, &v) != HS_OK) {
			ret = HS_ERR;
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
		/* Constant text of this file, several statements: PQexec. */
		r = PQexec(pgs_conn(s), migrations[v]);
		if (r == NULL || PQresultStatus(r) != PGRES_COMMAND_OK) {
			pgs_log("migrate", PQerrorMessage(pgs_conn(s)));
			PQclear(r);
			ret = HS_ERR;
			break;
		}
		PQclear(r);
		pa.n = 0;
		pgs_int(&pa, v + 1);
		if (pgs_cmd(s, "migrate", "DELETE FROM schema_version") != 0 ||
		    (r = pgs_run(s, "migrate", "INSERT INTO schema_version VALUES "
		    "($1)", &pa, PGRES_COMMAND_OK)) == NULL) {
			ret = HS_ERR;
			break;
		}
		PQclear(r);
		if (pgs_cmd(s, "migrate", "COMMIT") != 0) {
			ret = HS_ERR;
			break;
		}
	}
	if (PQtransactionStatus(pgs_conn(s)) != PQTRANS_IDLE)
		(void)pgs_cmd(s, "migrate", "ROLLBACK");
	pgs_unlock(s);
	return ret;
}

static void
pg_close(struct hub_store *s)
{
	struct pg *p = PG(s);
	int i;

	if (p == NULL)
		return;
	pgs_unwatch(s);
	for (i = 0; i < PG_POOL; i++)
		if (p->conn[i] != NULL)
			PQfinish(p->conn[i]);
	if (p->url != NULL) {
		sodium_memzero(p->url, strlen(p->url));
		free(p->url);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->free);
	free(p);
	s->impl = NULL;
}

static const struct hub_store_ops pg_ops = {
	.name = "postgresql",
	.enroll = pg_enroll,
	.revoke = pg_revoke,
	.keys = pg_keys,
	.lookup = pg_lookup,
	.nonce_use = pg_nonce_use,
	.put_ticket = pg_put_ticket,
	.get_ticket = pg_get_ticket,
	.pending = pg_pending,
	.put_decision = pg_put_decision,
	.decisions = pg_decisions,
	.purge = pg_purge,
	.token_put = pgs_token_put,
	.token_use = pgs_token_use,
	.passkey_enroll = pgs_passkey_enroll,
	.passkey_get = pgs_passkey_get,
	.passkeys = pgs_passkeys,
	.passkey_revoke = pgs_passkey_revoke,
	.put_card = pgs_put_card,
	.get_card = pgs_get_card,
	.version = pg_version,
	.migrate = pg_migrate,
	.changed = pgs_changed,
	.watch = pgs_watch,
	.unreachable = pgs_unreachable,
	.close = pg_close,
};

int
hub_store_pg_open(struct hub_store *s, const char *url, const char **why)
{
	struct pg *p;

	/* A URL only: a conninfo string of keywords is not what --store
	 * documents (docs/hub.md). */
	if (strncmp(url, "postgresql://", 13) != 0 &&
	    strncmp(url, "postgres://", 11) != 0) {
		*why = "--store: a postgresql:// URL";
		return -1;
	}
	p = xcalloc(1, sizeof(*p));
	p->url = xstrdup(url);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->free, NULL);
	s->ops = &pg_ops;
	s->impl = p;
	pgs_lock(s);
	if (pgs_connected(s) != 0) {
		pgs_unlock(s);
		pg_close(s);
		*why = "the PostgreSQL database cannot be reached";
		return -1;
	}
	pgs_unlock(s);
	return 0;
}
