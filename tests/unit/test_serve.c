/* src/console/serve.c: the console's open connections and the fair pick
 * (docs/console.md, "Serving"), over socketpairs with a clock of our own:
 * round robin by peer uid, the least recently served connection of a uid,
 * the caps, the line rules and their deadlines. */
#include "console/serve.h"
#include "protocol/table.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

static const char REQ[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"}\n";

/* A connection of uid; returns the client's end, the console's is in s. */
static int
conn(struct serve *s, uid_t uid, long long now, enum serve_add *res)
{
	int sv[2];
	struct peer p = { .uid = uid, .gid = uid, .pid = 1 };
	enum serve_add r;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
	    0);
	r = serve_add(s, sv[0], &p, now);
	if (res != NULL)
		*res = r;
	else
		assert_int_equal(r, SERVE_ADDED);
	return sv[1];
}

static void
say(int fd, const char *bytes, size_t n)
{
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
}

/* Two turns of the console's loop, without serving: the first reads, the
 * second finds room for the answers of what became ready. */
static void
pump(struct serve *s, long long now)
{
	static struct pollfd pfd[SERVE_MAX_CONNS];
	static size_t slot[SERVE_MAX_CONNS];
	int turn;

	for (turn = 0; turn < 2; turn++) {
		size_t n = serve_pollfds(s, pfd, slot, SERVE_MAX_CONNS);
		assert_true(poll(pfd, n, 0) >= 0);
		serve_read(s, pfd, slot, n, now);
	}
}

/* Serve the next request: its uid, or (uid_t)-1 when none is ready. */
static uid_t
serve_one(struct serve *s, long long now)
{
	struct serve_conn *cn = serve_next(s);
	const char *line;
	size_t len;
	uid_t uid;

	if (cn == NULL)
		return (uid_t)-1;
	uid = cn->peer.uid;
	assert_int_equal(serve_take(cn, &line, &len), SERVE_LINE);
	assert_int_equal(len, strlen(REQ) - 1);
	serve_done(s, cn, 1, now, 0);
	return uid;
}

/* The closed end of a client: reads 0 (EOF) at once. */
static int
closed(int fd)
{
	char b;
	int fl = fcntl(fd, F_GETFL);

	(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	return read(fd, &b, 1) == 0;
}

/* An agent pipelining on three connections is one peer: the other uid's
 * requests alternate with its own. */
static void
test_round_robin_by_uid(void **state)
{
	struct serve s;
	int a[3], b, i;
	uid_t got[12];

	(void)state;
	serve_init(&s);
	for (i = 0; i < 3; i++) {
		a[i] = conn(&s, 1001, 0, NULL);
		say(a[i], REQ, strlen(REQ));
	}
	b = conn(&s, 1002, 0, NULL);
	say(b, REQ, strlen(REQ));
	for (i = 0; i < 12; i++) {
		int k;
		pump(&s, 0);
		got[i] = serve_one(&s, 0);
		/* each keeps a request in flight, as a pipelining agent does */
		if (got[i] == 1002)
			say(b, REQ, strlen(REQ));
		else
			for (k = 0; k < 3; k++)
				say(a[k], REQ, strlen(REQ));
	}
	for (i = 0; i < 12; i++)
		assert_int_equal(got[i], i % 2 == 0 ? 1001 : 1002);
	serve_close_all(&s);
	for (i = 0; i < 3; i++)
		close(a[i]);
	close(b);
}

/* Among one uid's connections, the one served longest ago goes first. */
static void
test_least_recently_served_connection(void **state)
{
	struct serve s;
	struct serve_conn *first, *second, *third;
	int a, b;

	(void)state;
	serve_init(&s);
	a = conn(&s, 1001, 0, NULL);
	b = conn(&s, 1001, 0, NULL);
	say(a, REQ, strlen(REQ));
	say(a, REQ, strlen(REQ));
	say(b, REQ, strlen(REQ));
	pump(&s, 0);
	first = serve_next(&s);
	assert_non_null(first);
	serve_done(&s, first, 1, 0, 0);
	pump(&s, 0);
	second = serve_next(&s);
	assert_ptr_not_equal(first, second);
	serve_done(&s, second, 1, 0, 0);
	pump(&s, 0);
	third = serve_next(&s);
	assert_ptr_equal(third, first);
	serve_done(&s, third, 1, 0, 0);
	pump(&s, 0);
	assert_null(serve_next(&s));
	serve_close_all(&s);
	close(a);
	close(b);
}

/* One uid holds SERVE_MAX_PER_UID connections at most; when every slot is
 * taken, the uid holding the most gives up its newest to a newcomer of
 * another uid, never to one of its own. */
static void
test_caps(void **state)
{
	static int fds[SERVE_MAX_CONNS + 8];
	struct serve s;
	enum serve_add r;
	size_t i, n = 0;
	int extra, last_a = -1;

	(void)state;
	serve_init(&s);
	for (i = 0; i < SERVE_MAX_PER_UID; i++)
		last_a = fds[n++] = conn(&s, 1001, 0, NULL);
	extra = conn(&s, 1001, 0, &r);
	assert_int_equal(r, SERVE_REFUSED_UID);
	assert_true(closed(extra));
	close(extra);
	/* fill the rest with three more uids */
	for (i = 0; n < SERVE_MAX_CONNS; i++)
		fds[n++] = conn(&s, 2000 + (uid_t)(i % 3), 0, NULL);
	assert_int_equal(s.n, SERVE_MAX_CONNS);
	/* 1001 holds 64, the others 64 each: a newcomer of a fifth uid takes
	 * the newest of a uid holding the most */
	fds[n++] = conn(&s, 3000, 0, &r);
	assert_int_equal(r, SERVE_ADDED);
	assert_int_equal(s.n, SERVE_MAX_CONNS);
	/* a second of that uid too (1 < 63) */
	fds[n++] = conn(&s, 3000, 0, &r);
	assert_int_equal(r, SERVE_ADDED);
	/* 1001 gave one up (63 left): full, and no uid holds more than 64,
	 * so its newcomer is the one refused */
	extra = conn(&s, 1001, 0, &r);
	assert_int_equal(r, SERVE_REFUSED_FULL);
	assert_true(closed(extra));
	close(extra);
	/* the one 1001 gave up was its newest */
	assert_true(closed(last_a));
	serve_close_all(&s);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* A line over PROTO_MAX_LINE is handed over as too long, never cut. */
static void
test_too_long(void **state)
{
	struct serve s;
	char *big = malloc(PROTO_MAX_LINE + 16);
	struct serve_conn *cn;
	const char *line;
	size_t len, off = 0;
	int a, i;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', PROTO_MAX_LINE + 16);
	serve_init(&s);
	a = conn(&s, 1001, 0, NULL);
	(void)fcntl(a, F_SETFL, O_NONBLOCK);
	for (i = 0; i < 64 && serve_next(&s) == NULL; i++) {
		ssize_t w = write(a, big + off, PROTO_MAX_LINE + 16 - off);
		if (w > 0)
			off += (size_t)w;
		pump(&s, 0);
	}
	cn = serve_next(&s);
	assert_non_null(cn);
	assert_int_equal(serve_take(cn, &line, &len), SERVE_TOO_LONG);
	serve_done(&s, cn, 0, 0, 0);
	assert_int_equal(s.n, 0);
	serve_close_all(&s);
	close(a);
	free(big);
}

/* docs/protocol.md's timing: a line whole within SERVE_READ_MS of the
 * connection, a next request begun within SERVE_NEXT_MS of an answer (a
 * begun one has SERVE_READ_MS), and the clock stopped while another
 * request is served. */
static void
test_deadlines(void **state)
{
	struct serve s;
	struct serve_conn *cn;
	int a, b;

	(void)state;
	serve_init(&s);
	a = conn(&s, 1001, 0, NULL);
	say(a, REQ, 5);		/* begun, never ended */
	pump(&s, 10);
	assert_int_equal(serve_expire(&s, SERVE_READ_MS - 1), SERVE_READ_MS);
	(void)serve_expire(&s, SERVE_READ_MS);
	assert_int_equal(s.n, 0);
	assert_true(closed(a));
	close(a);

	a = conn(&s, 1001, 0, NULL);
	b = conn(&s, 1002, 0, NULL);
	say(a, REQ, strlen(REQ));
	pump(&s, 0);
	cn = serve_next(&s);
	/* serving a's request took a minute (a card): b's clock stopped */
	serve_done(&s, cn, 1, 60000, 60000);
	assert_int_equal(serve_expire(&s, 60000), 60000 + SERVE_NEXT_MS);
	say(a, REQ, 3);		/* a next request begun in time */
	pump(&s, 60050);
	assert_int_equal(serve_expire(&s, 60050), SERVE_READ_MS + 60000);
	(void)serve_expire(&s, SERVE_READ_MS + 60000);
	assert_int_equal(s.n, 1);	/* b expired, a has until 65050 */
	(void)serve_expire(&s, 60050 + SERVE_READ_MS);
	assert_int_equal(s.n, 0);
	serve_close_all(&s);
	close(a);
	close(b);
}

/* A client that sends its line and shuts down its side is still served,
 * then closed. */
static void
test_half_close(void **state)
{
	struct serve s;
	int a;

	(void)state;
	serve_init(&s);
	a = conn(&s, 1001, 0, NULL);
	say(a, REQ, strlen(REQ));
	assert_int_equal(shutdown(a, SHUT_WR), 0);
	pump(&s, 0);
	pump(&s, 0);
	assert_int_equal(serve_one(&s, 0), 1001);
	pump(&s, 0);		/* the next turn reads the end */
	assert_int_equal(s.n, 0);
	serve_close_all(&s);
	close(a);
}

/* A peer that pipelines and reads no answers fills its socket: it is not
 * picked while its answer would wait (the console would wait with every
 * other peer behind it), the other uid is, and it is closed at its
 * deadline. */
static void
test_peer_reading_nothing_not_waited_for(void **state)
{
	struct serve s;
	struct serve_conn *cn;
	char junk[4096];
	int a, b, i;

	(void)state;
	memset(junk, 'x', sizeof(junk));
	serve_init(&s);
	a = conn(&s, 1001, 0, NULL);
	b = conn(&s, 1002, 0, NULL);
	for (i = 0; i < 4; i++)
		say(a, REQ, strlen(REQ));
	pump(&s, 0);
	cn = serve_next(&s);
	assert_non_null(cn);
	assert_int_equal(cn->peer.uid, 1001);
	/* its answers were never read: the console's end is full */
	while (send(cn->fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
		;
	serve_done(&s, cn, 1, 0, 0);
	say(b, REQ, strlen(REQ));
	pump(&s, 0);
	cn = serve_next(&s);
	assert_non_null(cn);
	assert_int_equal(cn->peer.uid, 1002);
	serve_done(&s, cn, 1, 0, 0);
	pump(&s, 0);
	assert_null(serve_next(&s));	/* 1001's is whole, but would wait */
	(void)serve_expire(&s, SERVE_NEXT_MS);	/* b: no next request */
	assert_int_equal(s.n, 1);
	assert_int_equal(serve_expire(&s, SERVE_READ_MS - 1), SERVE_READ_MS);
	(void)serve_expire(&s, SERVE_READ_MS);	/* a: never read */
	assert_int_equal(s.n, 0);
	serve_close_all(&s);
	close(a);
	close(b);
}

/* A parked answer (a hub run's pending answer, issue 27): the other uids
 * are served meanwhile; the same uid's next request waits until it has
 * left, with no deadline meanwhile; it leaves at its release, not before;
 * the loop is woken for it. */
static void
test_parked(void **state)
{
	struct serve s;
	struct serve_conn *cn;
	char *ans = NULL;
	int a1, a1b, b;

	(void)state;
	serve_init(&s);
	a1 = conn(&s, 1000, 0, NULL);
	say(a1, REQ, strlen(REQ));
	pump(&s, 0);
	cn = serve_next(&s);
	assert_non_null(cn);
	assert_int_equal(cn->peer.uid, 1000);
	serve_park(&s, cn, strdup("pending\n"), 3000, 10);
	/* uid 1000 again, and uid 2000 */
	a1b = conn(&s, 1000, 10, NULL);
	say(a1b, REQ, strlen(REQ));
	b = conn(&s, 2000, 10, NULL);
	say(b, REQ, strlen(REQ));
	pump(&s, 10);
	assert_null(serve_due(&s, 2999, &ans));
	assert_int_equal(serve_expire(&s, 20), 3000);
	assert_int_equal(serve_one(&s, 20), 2000);
	assert_int_equal(serve_one(&s, 20), (uid_t)-1);	/* 1000 waits */
	assert_int_equal(serve_ready(&s), 0);		/* no spin */
	/* past the read allowance: the waiting one is not closed */
	(void)serve_expire(&s, 2990);
	cn = serve_due(&s, 3000, &ans);
	assert_non_null(cn);
	assert_string_equal(ans, "pending\n");
	free(ans);
	serve_done(&s, cn, 1, 3000, 0);
	pump(&s, 3000);
	assert_int_equal(serve_one(&s, 3000), 1000);
	serve_close_all(&s);
	close(a1);
	close(a1b);
	close(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_robin_by_uid),
		cmocka_unit_test(test_least_recently_served_connection),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_deadlines),
		cmocka_unit_test(test_half_close),
		cmocka_unit_test(test_peer_reading_nothing_not_waited_for),
		cmocka_unit_test(test_parked),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("serve", tests, NULL, NULL);
}
