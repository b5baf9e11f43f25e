/* The PostgreSQL engine's connection layer (docs/hub.md, "The store:
 * PostgreSQL"): the pool, connecting and reconnecting across a server
 * restart, binary parameters and results, the log. store_pg.c (the
 * ticket ops and migrations), store_pg_page.c and store_pg_watch.c are
 * built on it and never on each other. */
#include "hub/store.h"
#include "hub/store_pg_int.h"
#include "lib/clock.h"
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

/* How long a request waits for a server that refuses connections (a
 * restart), trying every step. */
#define RECONNECT_MS		4000
#define RECONNECT_STEP_MS	250

void
pgs_bytes(struct params *p, const void *d, size_t n)
{
	p->type[p->n] = OID_BYTEA;
	p->val[p->n] = d;
	p->len[p->n] = (int)n;
	p->fmt[p->n] = 1;
	p->n++;
}

void
pgs_text(struct params *p, const char *t)
{
	p->type[p->n] = OID_TEXT;
	p->val[p->n] = t;
	p->len[p->n] = (int)strlen(t);
	p->fmt[p->n] = 1;
	p->n++;
}

void
pgs_int(struct params *p, long long v)
{
	unsigned long long u = (unsigned long long)v;
	int i;

	for (i = 0; i < 8; i++)
		p->i8[p->n][i] = (unsigned char)(u >> (56 - 8 * i));
	p->type[p->n] = OID_INT8;
	p->val[p->n] = (const char *)p->i8[p->n];
	p->len[p->n] = 8;
	p->fmt[p->n] = 1;
	p->n++;
}

long long
pgs_r_int(const PGresult *r, int row, int col)
{
	const unsigned char *v = (const unsigned char *)PQgetvalue(r, row, col);
	unsigned long long u = 0;
	int i;

	if (PQgetisnull(r, row, col) || PQgetlength(r, row, col) != 8)
		return 0;
	for (i = 0; i < 8; i++)
		u = (u << 8) | v[i];
	return (long long)u;
}

/* The first line of libpq's message: it names the server, never the
 * password. */
void
pgs_log(const char *what, const char *msg)
{
	char line[256];
	size_t n = strcspn(msg, "\n");

	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	memcpy(line, msg, n);
	line[n] = '\0';
	logit("hub store (postgresql): %s: %s", what, line);
}

/* The calling thread's connection of the pool while it holds one. */
static __thread int pgs_slot;
/* Whether the calling thread's last operation failed because the server
 * could not be reached or went away under it (pgs_unreachable): cleared by
 * pgs_lock, which every operation takes before its first statement. */
static __thread int pgs_down;

/* A connection of the pool for this thread, waiting for one to be free:
 * each operation holds one from its first statement to its last, so a
 * transaction is one connection's; several operations run at once, and
 * PostgreSQL commits them together (group commit) instead of one fsync
 * after another. */
void
pgs_lock(struct hub_store *s)
{
	struct pg *p = PG(s);
	int i;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		for (i = 0; i < PG_POOL && p->busy[i]; i++)
			;
		if (i < PG_POOL)
			break;
		pthread_cond_wait(&p->free, &p->mu);
	}
	p->busy[i] = 1;
	pthread_mutex_unlock(&p->mu);
	pgs_slot = i;
	pgs_down = 0;
}

/* A restart, a fail-over, a server that is not there: the request may
 * be asked again (503), unlike a failure of the statement itself (500).
 * SQLSTATE classes 08 (connection exception) and 57P (the server is
 * shutting down or starting). */
static int
lost(PGconn *c, const PGresult *r)
{
	const char *code = r != NULL ?
	    PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	return PQstatus(c) == CONNECTION_BAD || (code != NULL &&
	    (strncmp(code, "08", 2) == 0 || strncmp(code, "57P", 3) == 0));
}

int
pgs_unreachable(struct hub_store *s)
{
	(void)s;
	return pgs_down;
}

/* The connection this thread holds (between pgs_lock and pgs_unlock). */
PGconn *
pgs_conn(struct hub_store *s)
{
	return PG(s)->conn[pgs_slot];
}

void
pgs_unlock(struct hub_store *s)
{
	struct pg *p = PG(s);

	pthread_mutex_lock(&p->mu);
	p->busy[pgs_slot] = 0;
	pthread_cond_signal(&p->free);
	pthread_mutex_unlock(&p->mu);
}

/* libpq's notices and a server's goodbye while idle ("terminating
 * connection"): logged as ours, never libpq's raw stderr. */
static void
notice(void *arg, const char *msg)
{
	(void)arg;
	pgs_log("server", msg);
}

/* A new connection to url: the URL first, then the bounds, which
 * override it (later keywords win in PQconnectdbParams). NULL (logged)
 * when it fails. */
PGconn *
pgs_connect(const char *url)
{
	static const char *const kw[] = {
		"dbname", "connect_timeout", "application_name", "options",
		"keepalives", "keepalives_idle", "tcp_user_timeout",
		"client_encoding", NULL
	};
	const char *val[] = {
		url, "5", "lockhub",
		"-c statement_timeout=10000 -c lock_timeout=10000 "
		"-c idle_in_transaction_session_timeout=30000 "
		"-c client_min_messages=warning",
		"1", "10", "15000", "UTF8", NULL
	};
	PGconn *c;

	c = PQconnectdbParams(kw, val, 1);
	if (c != NULL)
		PQsetNoticeProcessor(c, notice, NULL);
	if (c == NULL || PQstatus(c) != CONNECTION_OK) {
		pgs_log("connect", c != NULL ? PQerrorMessage(c) :
		    "out of memory");
		if (c != NULL)
			PQfinish(c);
		return NULL;
	}
	return c;
}

/* Bytes (or a hang-up) wait on the connection's socket: poll, no wait. */
int
pgs_readable(PGconn *c)
{
	struct pollfd pfd = { .fd = PQsocket(c), .events = POLLIN };

	return pfd.fd >= 0 && poll(&pfd, 1, 0) == 1 && pfd.revents != 0;
}

/* The store's connection, made again when it failed. */
int
pgs_connected(struct hub_store *s)
{
	struct pg *p = PG(s);
	long long deadline;

	if (p->conn[pgs_slot] != NULL && PQstatus(p->conn[pgs_slot]) == CONNECTION_OK) {
		/* An idle connection that does not LISTEN is told nothing
		 * but its end (the server restarted: its goodbye, then EOF
		 * or a reset): readable now, it is dropped without a round
		 * trip rather than fail the next statement. */
		if (pgs_readable(p->conn[pgs_slot])) {
			pgs_log("connection", "the server spoke while idle: "
			    "connecting again");
			PQfinish(p->conn[pgs_slot]);
			p->conn[pgs_slot] = NULL;
		}
	}
	if (p->conn[pgs_slot] != NULL && PQstatus(p->conn[pgs_slot]) == CONNECTION_OK) {
		/* A statement that failed mid-transaction left it open. */
		if (PQtransactionStatus(p->conn[pgs_slot]) != PQTRANS_IDLE)
			PQclear(PQexec(p->conn[pgs_slot], "ROLLBACK"));
		if (PQtransactionStatus(p->conn[pgs_slot]) == PQTRANS_IDLE)
			return 0;
	}
	if (p->conn[pgs_slot] != NULL)
		PQfinish(p->conn[pgs_slot]);
	/* A server restarting refuses connections for a moment: the
	 * request waits for it, bounded, rather than fail (docs/hub.md,
	 * "The store: PostgreSQL"). Nothing was sent yet: safe to repeat. */
	deadline = now_ms() + RECONNECT_MS;
	while ((p->conn[pgs_slot] = pgs_connect(p->url)) == NULL &&
	    now_ms() + RECONNECT_STEP_MS < deadline)
		usleep(RECONNECT_STEP_MS * 1000);
	if (p->conn[pgs_slot] == NULL) {
		pgs_down = 1;
		return -1;
	}
	/* The watch thread skips this process's own wake-ups. */
	atomic_store(&p->self_pid[pgs_slot], PQbackendPID(p->conn[pgs_slot]));
	return 0;
}

/* One statement, binary parameters and results; NULL (logged) unless
 * its status is want. */
PGresult *
pgs_run(struct hub_store *s, const char *what, const char *sql,
    const struct params *pa, ExecStatusType want)
{
	PGresult *r;
	int again = PQtransactionStatus(PG(s)->conn[pgs_slot]) == PQTRANS_IDLE &&
	    (strncmp(sql, "SELECT ", 7) == 0 || strncmp(sql, "BEGIN", 5) == 0);

	for (;;) {
		r = PQexecParams(PG(s)->conn[pgs_slot], sql, pa != NULL ? pa->n : 0,
		    pa != NULL ? pa->type : NULL, pa != NULL ? pa->val : NULL,
		    pa != NULL ? pa->len : NULL, pa != NULL ? pa->fmt : NULL,
		    1);
		/* The connection lost under a read, or under the BEGIN of a
		 * transaction: nothing was written, so once more on a new
		 * connection (a write's fate is unknown: never repeated). */
		if (!again || PQstatus(PG(s)->conn[pgs_slot]) != CONNECTION_BAD)
			break;
		again = 0;
		pgs_log(what, PQerrorMessage(PG(s)->conn[pgs_slot]));
		PQclear(r);
		if (pgs_connected(s) != 0)
			return NULL;
	}
	if (r == NULL || PQresultStatus(r) != want) {
		if (lost(PG(s)->conn[pgs_slot], r))
			pgs_down = 1;
		pgs_log(what, PQerrorMessage(PG(s)->conn[pgs_slot]));
		PQclear(r);
		return NULL;
	}
	return r;
}

int
pgs_cmd(struct hub_store *s, const char *what, const char *sql)
{
	PGresult *r = pgs_run(s, what, sql, NULL, PGRES_COMMAND_OK);

	PQclear(r);
	return r != NULL ? 0 : -1;
}

/* The rows a command touched; -1 when libpq says nothing readable. */
long long
pgs_affected(PGresult *r)
{
	unsigned long long n;

	return parse_u64(PQcmdTuples(r), 0, INT64_MAX, &n) == 0 ?
	    (long long)n : -1;
}

struct buf *
pgs_r_buf(const PGresult *r, int row, int col, size_t max)
{
	int n = PQgetlength(r, row, col);
	struct buf *b;

	if (PQgetisnull(r, row, col) || n < 0 || (size_t)n > max)
		return NULL;
	b = buf_new(max);
	if (n > 0 && buf_append(b, PQgetvalue(r, row, col), (size_t)n) != 0) {
		buf_free(b);
		return NULL;
	}
	return b;
}

