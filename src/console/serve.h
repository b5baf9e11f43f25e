/* The console's open connections and which request it serves next
 * (docs/console.md, "Serving"). Requests are still served one at a time;
 * what this adds is that every accepted connection is read without
 * blocking, and the next request is picked round-robin by peer uid: after
 * each answer, a ready request of another uid goes first, so an agent that
 * pipelines (on one connection or many) is one peer among the others, not
 * the console's only one.
 *
 * Bounded: at most SERVE_MAX_CONNS connections, at most SERVE_MAX_PER_UID
 * of one uid (its excess is closed unanswered), one line buffer each that
 * grows to PROTO_MAX_LINE at most and is wiped when freed. The timing rules
 * are docs/protocol.md's ("Framing"): a line whole within SERVE_READ_MS of
 * the connection or of the previous answer, a next request begun within
 * SERVE_NEXT_MS of an answer. A connection's clock stops while the console
 * serves a request (a plan may wait minutes for the human): only time spent
 * in the loop, where it could have been read, counts against it. */
#ifndef LOCKFILE_SERVE_H
#define LOCKFILE_SERVE_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#include "console/listener.h"

#define SERVE_MAX_CONNS 256
#define SERVE_MAX_PER_UID 64
#define SERVE_READ_MS 5000	/* a whole line within this, or closed */
#define SERVE_NEXT_MS 100	/* a next request's first byte after an answer */

struct serve_conn {
	int fd;
	struct peer peer;
	char *buf;		/* received bytes, not yet served */
	size_t len, cap;
	long long deadline;	/* closed at this time unless a line is whole */
	int waiting_next;	/* answered; deadline is SERVE_NEXT_MS's */
	int eof;		/* the peer shut down its side: no more bytes */
	int ready;		/* a whole line waits, or a line too long */
	int writable;		/* ready, and the last poll found room for
				 * its answer */
	unsigned long long born;	/* accept order */
	unsigned long long seq;	/* when last served (or accepted): round
				 * robin among one uid's connections */
	char *parked;		/* an answer that leaves at release_ms */
	long long release_ms;
};

struct serve {
	struct serve_conn *conns[SERVE_MAX_CONNS];	/* NULL: free slot */
	size_t n;		/* slots in use */
	uid_t last_uid;		/* the uid served last */
	int served_any;
	unsigned long long seq;
};

enum serve_add {
	SERVE_ADDED = 0,
	SERVE_REFUSED_UID,	/* its uid holds SERVE_MAX_PER_UID already */
	SERVE_REFUSED_FULL,	/* every slot is another uid's fair share */
};

/* What serve_take() found on the connection it was given. */
enum serve_line {
	SERVE_LINE = 0,		/* *len bytes, without the newline */
	SERVE_TOO_LONG,		/* over PROTO_MAX_LINE: answer and close */
};

void serve_init(struct serve *s);

/* Take an accepted connection whose peer passed the listener's check.
 * When its uid is at its cap the new one is closed; when every slot is
 * taken, the newest connection of the uid holding the most is closed to
 * make room, unless that uid would then hold no more than the newcomer's
 * (then the newcomer is closed). Closed connections get no answer. */
enum serve_add serve_add(struct serve *s, int fd, const struct peer *p,
    long long now);

/* pfd[0..return) for poll(): each connection that can take more bytes
 * (POLLIN), and each with a request waiting (POLLOUT: room for its
 * answer). slot[i] is the index in s->conns of pfd[i]. */
size_t serve_pollfds(const struct serve *s, struct pollfd *pfd,
    size_t *slot, size_t max);

/* After poll(): read what each readable connection has (without
 * blocking), then close those gone, too slow or idle past their deadline. */
void serve_read(struct serve *s, const struct pollfd *pfd,
    const size_t *slot, size_t n, long long now);

/* Close connections past their deadline (no line whole by then). Returns
 * the earliest deadline left, or 0 when there is none. */
long long serve_expire(struct serve *s, long long now);

/* The connection whose request goes next: round robin by peer uid (the
 * next uid after the last one served that has a ready request, wrapping),
 * and among that uid's connections the one served longest ago. A request
 * is ready when its line is whole (or too long) and the last poll found
 * room in its socket for the answer: a peer that reads no answers is never
 * waited for (its connection is closed at its deadline). NULL when no
 * request is ready. */
struct serve_conn *serve_next(struct serve *s);

/* Whether any connection has a request ready. */
int serve_ready(const struct serve *s);

/* The request at the head of cn's buffer: its line (pointing into cn's
 * buffer, valid until serve_done) or SERVE_TOO_LONG. Only on a connection
 * serve_next returned. */
enum serve_line serve_take(struct serve_conn *cn, const char **line,
    size_t *len);

/* cn's request was answered (ok) or could not be (the peer is gone, or a
 * line too long: closed). took_ms is how long serving it took: every
 * other connection's deadline moves by that much. */
void serve_done(struct serve *s, struct serve_conn *cn, int ok,
    long long now, long long took_ms);

/* Park cn's answer (taken, malloc'ed) until release_ms: a pending hub
 * answer that only waits for its quantum, while the console serves the
 * others (docs/hub.md, "The console's side"). A parked connection is not
 * read, picked or expired until it is answered. */
void serve_park(struct serve *s, struct serve_conn *cn, char *answer,
    long long release_ms, long long took_ms);

/* A parked connection whose release time has come, or NULL. *answer is
 * its answer, given back to the caller (who sends it, then serve_done). */
struct serve_conn *serve_due(struct serve *s, long long now, char **answer);

/* Close every connection (the session ends). */
void serve_close_all(struct serve *s);

#endif
