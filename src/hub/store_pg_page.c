/* The phone page's state on PostgreSQL (docs/hub.md, "Approving from a
 * phone"; store.h): the same semantics as store_sqlite.c's, each operation
 * one statement, so each is its own transaction: a one-use token is
 * deleted by the statement that reads it (DELETE ... RETURNING), and a
 * revoked passkey takes its sessions with it (data-modifying CTEs). */
#include "hub/store_pg_int.h"
#include "hubwire/msg.h"

#include <string.h>

/* One statement on the store's connection: its result (NULL, logged, on
 * a failure). The result outlives the lock: libpq copies it. */
static PGresult *
once(struct hub_store *s, const char *what, const char *sql,
    const struct params *pa, ExecStatusType want)
{
	PGresult *r = NULL;

	pgs_lock(s);
	if (pgs_connected(s) == 0)
		r = pgs_run(s, what, sql, pa, want);
	pgs_unlock(s);
	return r;
}

enum hs_status
pgs_token_put(struct hub_store *s, enum hs_token kind, const uint8_t hash[32],
    const char *subject, long long until_ms)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;

	pgs_int(&pa, (long long)kind);
	pgs_bytes(&pa, hash, 32);
	pgs_text(&pa, subject);
	pgs_int(&pa, until_ms);
	r = once(s, "token put", "INSERT INTO tokens (kind, hash, subject, "
	    "until_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", &pa,
	    PGRES_COMMAND_OK);
	ret = r == NULL ? HS_ERR : pgs_affected(r) == 1 ? HS_OK : HS_EXISTS;
	PQclear(r);
	return ret;
}

/* consume: DELETE ... RETURNING, the read and the one use in one
 * statement, so two requests racing with one code or challenge cannot
 * both have it (the row lock makes the second find nothing). An expired
 * token is deleted all the same, and not found. */
enum hs_status
pgs_token_use(struct hub_store *s, enum hs_token kind, const uint8_t hash[32],
    long long now_ms, int consume, char subject[HS_MAX_SUBJECT + 1])
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;
	int n;

	subject[0] = '\0';
	pgs_int(&pa, (long long)kind);
	pgs_bytes(&pa, hash, 32);
	r = once(s, "token use", consume ?
	    "DELETE FROM tokens WHERE kind = $1 AND hash = $2 "
	    "RETURNING subject, until_ms" :
	    "SELECT subject, until_ms FROM tokens WHERE kind = $1 AND "
	    "hash = $2", &pa, PGRES_TUPLES_OK);
	if (r == NULL)
		return HS_ERR;
	if (PQntuples(r) != 1 || pgs_r_int(r, 0, 1) < now_ms) {
		PQclear(r);
		return HS_NOT_FOUND;
	}
	n = PQgetlength(r, 0, 0);
	ret = HS_ERR;
	if (!PQgetisnull(r, 0, 0) && n >= 0 && n <= HS_MAX_SUBJECT) {
		memcpy(subject, PQgetvalue(r, 0, 0), (size_t)n);
		subject[n] = '\0';
		ret = strlen(subject) == (size_t)n ? HS_OK : HS_ERR;
	}
	if (ret != HS_OK)
		subject[0] = '\0';
	PQclear(r);
	return ret;
}

enum hs_status
pgs_passkey_enroll(struct hub_store *s, const struct hs_passkey *p)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;

	pgs_text(&pa, p->name);
	pgs_bytes(&pa, p->id, 32);
	pgs_bytes(&pa, p->cose, p->cose_len);
	pgs_bytes(&pa, p->cred, p->cred_len);
	/* ON CONFLICT without a target: the name, the id or the credential. */
	r = once(s, "passkey enroll", "INSERT INTO passkeys (name, id, cose, "
	    "cred) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", &pa,
	    PGRES_COMMAND_OK);
	ret = r == NULL ? HS_ERR : pgs_affected(r) == 1 ? HS_OK : HS_EXISTS;
	PQclear(r);
	return ret;
}

/* A row (name, id, cose, cred) into p: -1 for a malformed one. */
static int
r_passkey(const PGresult *r, int row, struct hs_passkey *p)
{
	int nname = PQgetlength(r, row, 0), ncose = PQgetlength(r, row, 2);
	int ncred = PQgetlength(r, row, 3);

	memset(p, 0, sizeof(*p));
	if (nname < 1 || nname > HW_MAX_NAME || PQgetlength(r, row, 1) != 32 ||
	    ncose <= 0 || ncose > HS_MAX_COSE || ncred <= 0 ||
	    ncred > HS_MAX_CRED)
		return -1;
	memcpy(p->name, PQgetvalue(r, row, 0), (size_t)nname);
	p->name[nname] = '\0';
	if (strlen(p->name) != (size_t)nname)
		return -1;
	memcpy(p->id, PQgetvalue(r, row, 1), 32);
	memcpy(p->cose, PQgetvalue(r, row, 2), (size_t)ncose);
	p->cose_len = (size_t)ncose;
	memcpy(p->cred, PQgetvalue(r, row, 3), (size_t)ncred);
	p->cred_len = (size_t)ncred;
	return 0;
}

enum hs_status
pgs_passkey_get(struct hub_store *s, const uint8_t *id, const uint8_t *cred,
    size_t cred_len, struct hs_passkey *out)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;

	if (id != NULL)
		pgs_bytes(&pa, id, 32);
	else
		pgs_bytes(&pa, cred, cred_len);
	r = once(s, "passkey get", id != NULL ?
	    "SELECT name, id, cose, cred FROM passkeys WHERE id = $1" :
	    "SELECT name, id, cose, cred FROM passkeys WHERE cred = $1", &pa,
	    PGRES_TUPLES_OK);
	if (r == NULL)
		return HS_ERR;
	if (PQntuples(r) == 0)
		ret = HS_NOT_FOUND;
	else
		ret = r_passkey(r, 0, out) == 0 ? HS_OK : HS_ERR;
	PQclear(r);
	return ret;
}

enum hs_status
pgs_passkeys(struct hub_store *s, struct hs_passkey *out, size_t max,
    size_t *n)
{
	struct params pa = { 0 };
	PGresult *r;
	int i;

	*n = 0;
	pgs_int(&pa, (long long)max);
	r = once(s, "passkeys", "SELECT name, id, cose, cred FROM passkeys "
	    "ORDER BY name LIMIT $1", &pa, PGRES_TUPLES_OK);
	if (r == NULL)
		return HS_ERR;
	for (i = 0; i < PQntuples(r) && *n < max; i++)
		if (r_passkey(r, i, &out[*n]) == 0)
			(*n)++;
	PQclear(r);
	return HS_OK;
}

/* The passkey and its sessions (their subject is its id in lower-case
 * hex) in one statement: one transaction, no session outlives it. */
enum hs_status
pgs_passkey_revoke(struct hub_store *s, const char *name)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;

	pgs_int(&pa, HS_TOK_SESSION);
	pgs_text(&pa, name);
	r = once(s, "passkey revoke", "WITH p AS (DELETE FROM passkeys WHERE "
	    "name = $2 RETURNING id), t AS (DELETE FROM tokens WHERE kind = $1 "
	    "AND subject IN (SELECT encode(id, 'hex') FROM p)) "
	    "SELECT count(*) FROM p", &pa, PGRES_TUPLES_OK);
	if (r == NULL)
		return HS_ERR;
	ret = PQntuples(r) != 1 ? HS_ERR :
	    pgs_r_int(r, 0, 0) == 1 ? HS_OK : HS_NOT_FOUND;
	PQclear(r);
	return ret;
}

/* The card if its ticket is there and it has none; then what was there,
 * read in the same statement. */
enum hs_status
pgs_put_card(struct hub_store *s, const char *id, const uint8_t *body,
    size_t len)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;

	pgs_bytes(&pa, body, len);
	pgs_text(&pa, id);
	r = once(s, "put card", "WITH i AS (INSERT INTO cards (id, body) "
	    "SELECT id, $1 FROM tickets WHERE id = $2 ON CONFLICT DO NOTHING "
	    "RETURNING 1) SELECT (SELECT count(*) FROM i), "
	    "(SELECT count(*) FROM tickets WHERE id = $2)", &pa,
	    PGRES_TUPLES_OK);
	if (r == NULL)
		return HS_ERR;
	if (PQntuples(r) != 1)
		ret = HS_ERR;
	else if (pgs_r_int(r, 0, 0) == 1)
		ret = HS_OK;
	else
		ret = pgs_r_int(r, 0, 1) == 1 ? HS_EXISTS : HS_NOT_FOUND;
	PQclear(r);
	return ret;
}

enum hs_status
pgs_get_card(struct hub_store *s, const char *id, struct buf **body)
{
	struct params pa = { 0 };
	enum hs_status ret;
	PGresult *r;

	*body = NULL;
	pgs_text(&pa, id);
	r = once(s, "get card", "SELECT body FROM cards WHERE id = $1", &pa,
	    PGRES_TUPLES_OK);
	if (r == NULL)
		return HS_ERR;
	if (PQntuples(r) == 0) {
		ret = HS_NOT_FOUND;
	} else {
		*body = pgs_r_buf(r, 0, 0, HW_MAX_CARD);
		ret = *body != NULL ? HS_OK : HS_ERR;
	}
	PQclear(r);
	return ret;
}
