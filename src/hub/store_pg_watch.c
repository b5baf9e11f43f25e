/* Wake-ups between hub processes on PostgreSQL (docs/hub.md, "Operating
 * several hubs"): changed() is a NOTIFY on the store's connection after
 * the commit, outside any transaction (a NOTIFY inside the decision's
 * transaction takes a global lock at its commit that serialises every
 * writer); watch() is a thread of its own with its own connection, which
 * LISTENs, waits on its socket with poll() and a timeout, and hands each
 * notification to the callback. When that connection drops (PostgreSQL
 * restarted) it connects and LISTENs again; what was notified in the gap
 * is lost, and the long-polls' recheck timer covers it.
 *
 * A payload is "t:ID" or "d:ID". Anyone who may connect to the database
 * may NOTIFY, so a payload is parsed strictly and only ever causes a
 * re-read, never trusted as state. */
#include "hub/store_pg_int.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#define WATCH_POLL_MS	250	/* how soon close() stops the thread */
#define WATCH_RETRY_MS	500	/* between attempts to reconnect */
#define MAX_PAYLOAD	(2 + HW_ID_LEN)	/* "d:" and a ticket id */

void
pgs_changed(struct hub_store *s, char kind, const char *id)
{
	struct params pa = { 0 };
	char payload[MAX_PAYLOAD + 1];
	PGresult *r = NULL;

	if ((kind != 't' && kind != 'd') || str_fmt(payload, sizeof(payload),
	    "%c:%s", kind, id) != STR_OK)
		return;
	pgs_text(&pa, payload);
	pgs_lock(s);
	/* pgs_connected() leaves no transaction open: this is after the
	 * commit and outside it. A failure costs only the recheck delay. */
	if (pgs_connected(s) == 0)
		r = pgs_run(s, "notify", "SELECT pg_notify('" PG_CHANNEL
		    "', $1)", &pa, PGRES_TUPLES_OK);
	pgs_unlock(s);
	PQclear(r);
}

/* A payload into (kind, id): -1 unless "t:ID" or "d:ID" with an ID of
 * printable ASCII. */
static int
parse_payload(const char *pl, char *kind, char id[MAX_PAYLOAD + 1])
{
	size_t n = strnlen(pl, MAX_PAYLOAD + 1), i;

	if (n < 3 || n > MAX_PAYLOAD || (pl[0] != 't' && pl[0] != 'd') ||
	    pl[1] != ':')
		return -1;
	for (i = 2; i < n; i++)
		if (pl[i] <= ' ' || pl[i] > '~')
			return -1;
	*kind = pl[0];
	memcpy(id, pl + 2, n - 2);
	id[n - 2] = '\0';
	return 0;
}

/* A LISTENing connection, or NULL (logged by pgs_connect). */
static PGconn *
listening(struct pg *p)
{
	PGconn *c = pgs_connect(p->url);
	PGresult *r;

	if (c == NULL)
		return NULL;
	r = PQexec(c, "LISTEN " PG_CHANNEL);
	if (r == NULL || PQresultStatus(r) != PGRES_COMMAND_OK) {
		pgs_log("listen", PQerrorMessage(c));
		PQclear(r);
		PQfinish(c);
		return NULL;
	}
	PQclear(r);
	return c;
}

static int
ours(struct pg *p, int pid)
{
	int i;

	for (i = 0; i < PG_POOL; i++)
		if (atomic_load(&p->self_pid[i]) == pid)
			return 1;
	return 0;
}

/* Every notification read so far, to the callback; this process's own
 * (from the store's connection) are skipped: its waiters were woken. */
static void
deliver(struct pg *p, PGconn *c)
{
	PGnotify *nf;
	char kind, id[MAX_PAYLOAD + 1];

	while ((nf = PQnotifies(c)) != NULL) {
		if (!ours(p, nf->be_pid) &&
		    parse_payload(nf->extra, &kind, id) == 0)
			p->cb(p->cb_arg, kind, id);
		PQfreemem(nf);
	}
}

static void *
watcher(void *arg)
{
	struct pg *p = arg;
	PGconn *c = NULL;
	struct pollfd pfd;
	int waited = WATCH_RETRY_MS;

	while (!atomic_load(&p->stop)) {
		if (c == NULL) {
			if (waited < WATCH_RETRY_MS) {
				usleep(WATCH_POLL_MS * 1000);
				waited += WATCH_POLL_MS;
				continue;
			}
			waited = 0;
			if ((c = listening(p)) == NULL)
				continue;
			logit("hub store (postgresql): listening for other "
			    "hubs' commits");
			/* What was notified while not listening is lost:
			 * the listings re-read now, the tickets' waiters on
			 * their recheck timer. */
			p->cb(p->cb_arg, 't', "");
		}
		pfd.fd = PQsocket(c);
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (pfd.fd >= 0 && poll(&pfd, 1, WATCH_POLL_MS) < 0 &&
		    errno == EINTR)
			continue;
		if (pfd.fd < 0 || (pfd.revents != 0 &&
		    PQconsumeInput(c) == 0) || PQstatus(c) != CONNECTION_OK) {
			pgs_log("listen", PQerrorMessage(c));
			PQfinish(c);
			c = NULL;
			continue;
		}
		deliver(p, c);
	}
	if (c != NULL)
		PQfinish(c);
	return NULL;
}

int
pgs_watch(struct hub_store *s, pgs_watch_cb cb, void *arg)
{
	struct pg *p = PG(s);

	if (p->watching || cb == NULL)
		return -1;
	p->cb = cb;
	p->cb_arg = arg;
	atomic_store(&p->stop, 0);
	if (pthread_create(&p->watcher, NULL, watcher, p) != 0)
		return -1;
	p->watching = 1;
	return 0;
}

void
pgs_unwatch(struct hub_store *s)
{
	struct pg *p = PG(s);

	if (!p->watching)
		return;
	atomic_store(&p->stop, 1);
	pthread_join(p->watcher, NULL);
	p->watching = 0;
}
