/* The console's open connections and the fair pick (see serve.h). */
#include "console/serve.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "protocol/table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_FIRST 4096		/* most requests fit; grown up to the limit */

void
serve_init(struct serve *s)
{
	memset(s, 0, sizeof(*s));
}

static void
conn_close(struct serve *s, size_t i)
{
	struct serve_conn *cn = s->conns[i];

	/* The buffer held an agent's request bytes: wiped, as the one
	 * connection buffer was before (docs/security.md). */
	if (cn->buf != NULL) {
		explicit_bzero(cn->buf, cn->cap);
		free(cn->buf);
	}
	if (cn->parked != NULL) {
		explicit_bzero(cn->parked, strlen(cn->parked));
		free(cn->parked);
	}
	close(cn->fd);
	explicit_bzero(cn, sizeof(*cn));
	free(cn);
	s->conns[i] = NULL;
	s->n--;
}

static size_t
slot_of(const struct serve *s, const struct serve_conn *cn)
{
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] == cn)
			return i;
	ASSERT(0);
	return 0;
}

/* A whole line waits, or the buffer is full without one (too long).
 * Kept in cn->ready, found by scanning only the bytes that arrived (a
 * buffer full of a half line is not scanned again at every pick). */
static int
ready(const struct serve_conn *cn)
{
	return cn->ready;
}

static void
update_ready(struct serve_conn *cn, size_t from)
{
	cn->ready = cn->len >= PROTO_MAX_LINE || (cn->len > from &&
	    memchr(cn->buf + from, '\n', cn->len - from) != NULL);
}

/* How many connections uid holds. */
static size_t
held_by(const struct serve *s, uid_t uid)
{
	size_t i, k = 0;

	for (i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] != NULL && s->conns[i]->peer.uid == uid)
			k++;
	return k;
}

/* Whether uid has an answer parked: its other requests wait until it
 * leaves, so each agent still has one request at a time in the console,
 * as before answers were parked (its runs, and their nudges of the hub's
 * poll, stay one a quantum: docs/hub.md). */
static int
uid_parked(const struct serve *s, uid_t uid)
{
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] != NULL && s->conns[i]->parked != NULL &&
		    s->conns[i]->peer.uid == uid)
			return 1;
	return 0;
}

/* A request that waits its turn behind its uid's parked answer. */
static int
held_back(const struct serve *s, const struct serve_conn *cn)
{
	return cn->parked != NULL || (ready(cn) && uid_parked(s, cn->peer.uid));
}

/* The slot to free when every one is taken: the newest connection of the
 * uid holding the most, if that uid holds more than mine + 1 (so one
 * uid's connections never keep another's out while it holds more than
 * its share). SERVE_MAX_CONNS when none. */
static size_t
victim(const struct serve *s, size_t mine)
{
	size_t i, most = mine + 1, at = SERVE_MAX_CONNS;

	for (i = 0; i < SERVE_MAX_CONNS; i++) {
		size_t k = held_by(s, s->conns[i]->peer.uid);
		if (k > most || (k == most && at != SERVE_MAX_CONNS &&
		    s->conns[i]->peer.uid == s->conns[at]->peer.uid &&
		    s->conns[i]->born > s->conns[at]->born)) {
			most = k;
			at = i;
		}
	}
	return at;
}

enum serve_add
serve_add(struct serve *s, int fd, const struct peer *p, long long now)
{
	size_t i, at = SERVE_MAX_CONNS, mine = held_by(s, p->uid);
	struct serve_conn *cn;

	if (mine >= SERVE_MAX_PER_UID) {
		close(fd);
		return SERVE_REFUSED_UID;
	}
	for (i = 0; i < SERVE_MAX_CONNS && at == SERVE_MAX_CONNS; i++)
		if (s->conns[i] == NULL)
			at = i;
	if (at == SERVE_MAX_CONNS) {
		if ((at = victim(s, mine)) == SERVE_MAX_CONNS) {
			close(fd);
			return SERVE_REFUSED_FULL;
		}
		conn_close(s, at);
	}
	cn = xcalloc(1, sizeof(*cn));
	cn->fd = fd;
	cn->peer = *p;
	cn->peer.fd = fd;
	cn->deadline = now + SERVE_READ_MS;
	cn->seq = cn->born = ++s->seq;
	s->conns[at] = cn;
	s->n++;
	return SERVE_ADDED;
}

size_t
serve_pollfds(const struct serve *s, struct pollfd *pfd, size_t *slot,
    size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < SERVE_MAX_CONNS && n < max; i++) {
		const struct serve_conn *cn = s->conns[i];
		/* A connection with a request waiting is not read further
		 * until it is served (the socket holds the rest); it is asked
		 * whether its answer can be written without waiting. */
		if (cn == NULL || held_back(s, cn) || (cn->eof && !ready(cn)))
			continue;
		pfd[n] = (struct pollfd){ .fd = cn->fd,
		    .events = ready(cn) ? POLLOUT : POLLIN };
		slot[n++] = i;
	}
	return n;
}

/* Room for more bytes: the buffer grows (the old copy wiped) up to the
 * line limit. 0, or -1 when it is at the limit. */
static int
grow(struct serve_conn *cn)
{
	size_t cap = cn->cap == 0 ? BUF_FIRST : cn->cap * 4;
	char *nb;

	if (cn->len < cn->cap)
		return 0;
	if (cn->cap >= PROTO_MAX_LINE)
		return -1;
	if (cap > PROTO_MAX_LINE)
		cap = PROTO_MAX_LINE;
	nb = xmalloc(cap);
	if (cn->buf != NULL) {
		memcpy(nb, cn->buf, cn->len);
		explicit_bzero(cn->buf, cn->cap);
		free(cn->buf);
	}
	cn->buf = nb;
	cn->cap = cap;
	return 0;
}

/* Read once what the connection has. -1 when it must be closed (an error,
 * or the end with no whole line left to serve). */
static int
read_some(struct serve_conn *cn, long long now)
{
	ssize_t n;

	if (grow(cn) != 0)
		return 0;	/* full: it is ready (too long) */
	n = recv(cn->fd, cn->buf + cn->len, cn->cap - cn->len, MSG_DONTWAIT);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0) {
		cn->eof = 1;
		return ready(cn) ? 0 : -1;
	}
	cn->len += (size_t)n;
	update_ready(cn, cn->len - (size_t)n);
	if (cn->waiting_next) {
		/* the first byte of a next request: the line has the full
		 * allowance from here */
		cn->waiting_next = 0;
		cn->deadline = now + SERVE_READ_MS;
	}
	return 0;
}

void
serve_read(struct serve *s, const struct pollfd *pfd, const size_t *slot,
    size_t n, long long now)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct serve_conn *cn = s->conns[slot[i]];
		if (cn == NULL || cn->fd != pfd[i].fd)
			continue;
		if (ready(cn)) {
			/* room for a whole answer: a unix stream socket is
			 * writable while three quarters of its send buffer are
			 * free, more than the longest answer (64 KiB) */
			cn->writable = (pfd[i].revents & POLLOUT) != 0;
			continue;
		}
		if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (read_some(cn, now) != 0)
			conn_close(s, slot[i]);
	}
	(void)serve_expire(s, now);
}

long long
serve_expire(struct serve *s, long long now)
{
	long long next = 0;
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++) {
		struct serve_conn *cn = s->conns[i];
		/* A request waiting its turn has no deadline; one whose peer
		 * reads no answers (its socket full) has the same as a line. */
		if (cn == NULL || (ready(cn) && cn->writable &&
		    cn->parked == NULL))
			continue;
		if (cn->parked == NULL && held_back(s, cn))
			continue;	/* waiting its turn */
		if (cn->parked != NULL) {
			/* answered at its release: the loop wakes for it */
			if (next == 0 || cn->release_ms < next)
				next = cn->release_ms;
			continue;
		}
		if (now >= cn->deadline) {
			conn_close(s, i);
			continue;
		}
		if (next == 0 || cn->deadline < next)
			next = cn->deadline;
	}
	return next;
}

int
serve_ready(const struct serve *s)
{
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] != NULL && ready(s->conns[i]) &&
		    s->conns[i]->writable && !held_back(s, s->conns[i]))
			return 1;
	return 0;
}

/* a before b in the pick: the lower uid, then the one served longer ago */
static int
before(const struct serve_conn *a, const struct serve_conn *b)
{
	if (b == NULL)
		return 1;
	if (a->peer.uid != b->peer.uid)
		return a->peer.uid < b->peer.uid;
	return a->seq < b->seq;
}

struct serve_conn *
serve_next(struct serve *s)
{
	struct serve_conn *after = NULL, *first = NULL;
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++) {
		struct serve_conn *cn = s->conns[i];
		/* never one whose answer would wait for its peer to read:
		 * the console would wait with everyone else behind it */
		if (cn == NULL || !ready(cn) || !cn->writable ||
		    held_back(s, cn))
			continue;
		if (before(cn, first))
			first = cn;
		if (s->served_any && cn->peer.uid > s->last_uid &&
		    before(cn, after))
			after = cn;
	}
	return after != NULL ? after : first;
}

enum serve_line
serve_take(struct serve_conn *cn, const char **line, size_t *len)
{
	char *nl = cn->len > 0 ? memchr(cn->buf, '\n', cn->len) : NULL;

	/* PROTO_MAX_LINE counts the newline (docs/protocol.md); the client
	 * holds itself to the same limit. */
	if (nl == NULL || nl - cn->buf + 1 > PROTO_MAX_LINE)
		return SERVE_TOO_LONG;
	*line = cn->buf;
	*len = (size_t)(nl - cn->buf);
	return SERVE_LINE;
}

/* The clock stops for the others while a request is served (a card may
 * wait minutes for the human): they wait, as they waited in the listen
 * backlog before. */
static void
others_waited(struct serve *s, const struct serve_conn *cn,
    long long took_ms)
{
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] != NULL && s->conns[i] != cn)
			s->conns[i]->deadline += took_ms;
}

void
serve_done(struct serve *s, struct serve_conn *cn, int ok, long long now,
    long long took_ms)
{
	size_t at = slot_of(s, cn), used;
	char *nl;

	s->last_uid = cn->peer.uid;
	s->served_any = 1;
	cn->seq = ++s->seq;
	others_waited(s, cn, took_ms);
	nl = ok ? memchr(cn->buf, '\n', cn->len) : NULL;
	if (nl == NULL) {
		conn_close(s, at);
		return;
	}
	used = (size_t)(nl - cn->buf) + 1;
	memmove(cn->buf, cn->buf + used, cn->len - used);
	explicit_bzero(cn->buf + cn->len - used, used);
	cn->len -= used;
	update_ready(cn, 0);
	/* writable again only once the next turn's poll says so; a next
	 * request already whole has the line allowance for that */
	cn->writable = 0;
	cn->deadline = now + SERVE_READ_MS;
	if (ready(cn))
		return;
	if (cn->eof) {
		conn_close(s, at);
		return;
	}
	/* A request already begun behind the answer has the full allowance;
	 * otherwise the next one must begin soon (docs/protocol.md). */
	cn->waiting_next = cn->len == 0;
	cn->deadline = now + (cn->len > 0 ? SERVE_READ_MS : SERVE_NEXT_MS);
}

void
serve_park(struct serve *s, struct serve_conn *cn, char *answer,
    long long release_ms, long long took_ms)
{
	ASSERT(cn->parked == NULL && answer != NULL);
	cn->parked = answer;
	cn->release_ms = release_ms;
	others_waited(s, cn, took_ms);
}

struct serve_conn *
serve_due(struct serve *s, long long now, char **answer)
{
	struct serve_conn *first = NULL;
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++) {
		struct serve_conn *cn = s->conns[i];
		if (cn != NULL && cn->parked != NULL && cn->release_ms <= now &&
		    (first == NULL || cn->release_ms < first->release_ms))
			first = cn;
	}
	if (first != NULL) {
		*answer = first->parked;
		first->parked = NULL;
	}
	return first;
}

void
serve_close_all(struct serve *s)
{
	size_t i;

	for (i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i] != NULL)
			conn_close(s, i);
}
