/* Unit tests for src/console/ledger.c (docs/ledger.md): records survive a
 * reopen; a torn last record and every single-bit flip are refused with
 * the file left as it was; the window counts at least every answer inside
 * it and at most a group's span more; uids and keys are kept apart while
 * contents add up; compaction keeps 100 000 plans in a bounded file with
 * the totals exact; a failed write is cut back. */
#include "console/ledger.h"
#include "lib/crypto.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define W 86400ULL		/* the default window */
#define T0 1700000000LL

struct fake {
	long long t;
};

static long long
fake_now(void *ctx)
{
	return ((struct fake *)ctx)->t;
}

struct env {
	char dir[256];
	int dirfd;
	struct fake clock;
	struct ledger_clock clk;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
	    (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");

	assert_non_null(e);
	/* tmpfs when there is one: 100 000 fsyncs stay fast */
	assert_true(strlen(base) < 200);
	strcpy(e->dir, base);
	strcat(e->dir, "/test-ledger.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	e->dirfd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(e->dirfd >= 0);
	e->clock.t = T0;
	e->clk.now_s = fake_now;
	e->clk.ctx = &e->clock;
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;
	char cmd[300];

	close(e->dirfd);
	assert_true(strlen(e->dir) + 10 < sizeof(cmd));
	strcpy(cmd, "rm -rf ");
	strcat(cmd, e->dir);
	assert_int_equal(system(cmd), 0);
	free(e);
	return 0;
}

static void
path_of(const struct env *e, const char *name, char *out, size_t outlen)
{
	assert_true(strlen(e->dir) + strlen(name) + 2 <= outlen);
	strcpy(out, e->dir);
	strcat(out, "/");
	strcat(out, name);
}

static uint8_t *
slurp(const struct env *e, const char *name, size_t *len)
{
	char p[512];
	struct stat st;
	uint8_t *b;
	int fd;

	path_of(e, name, p, sizeof(p));
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	assert_non_null(b);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void
spill(const struct env *e, const char *name, const uint8_t *b, size_t len)
{
	char p[512];
	int fd;

	path_of(e, name, p, sizeof(p));
	fd = open(p, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

static struct ledger *
must_open(struct env *e, unsigned long long window)
{
	struct ledger *l = NULL;
	struct ledger_problem p;
	int created;
	enum ledger_err r = ledger_open(&l, e->dirfd, &e->clk, window, &created,
	    &p);

	if (r != LEDGER_OK)
		fail_msg("ledger_open: %s: %s", ledger_err_name(r), p.msg);
	return l;
}

static void
must_record(struct ledger *l, uid_t uid, const char *profile, const char *key,
    const uint8_t *sha, unsigned answers)
{
	struct ledger_problem p;
	enum ledger_err r = ledger_record(l, uid, profile, key, NULL, sha, answers,
	    &p);

	if (r != LEDGER_OK)
		fail_msg("ledger_record: %s: %s", ledger_err_name(r), p.msg);
}

static void
sha_of(int n, uint8_t out[SHA256_LEN])
{
	char s[32];

	assert_true(n >= 0 && n < 100000000);
	memset(s, 0, sizeof(s));
	s[0] = 'c';
	for (int i = 1; n > 0 || i == 1; i++, n /= 10)
		s[i] = (char)('0' + n % 10);
	sha256_mem(s, strlen(s), out);
}

static int
str_ok(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
str_ok(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, cap, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < cap;
}

static unsigned long long
window_answers(struct ledger *l, uid_t uid, const char *profile,
    const char *key)
{
	struct ledger_usage u;

	ledger_window_usage(l, uid, profile, key, &u);
	return u.answers;
}

/* A small ledger of a few plans, closed; its bytes returned. */
static uint8_t *
small_ledger(struct env *e, size_t *len)
{
	struct ledger *l = must_open(e, W);
	uint8_t sha[SHA256_LEN];

	sha_of(1, sha);
	must_record(l, 1002, "invoices", "2024/a.pdf", sha, 3);
	e->clock.t += 10;
	must_record(l, 1002, "invoices", "2024/b.pdf", NULL, 1);
	e->clock.t += 10;
	must_record(l, 1003, "invoices", "2024/a.pdf", sha, 2);
	ledger_close(l);
	return slurp(e, LF_LEDGER_FILE, len);
}

/* ---- tests ---- */

static void
test_create_reopen(void **state)
{
	struct env *e = *state;
	struct ledger *l = NULL;
	struct ledger_problem p;
	struct ledger_stats st;
	struct stat sb;
	char path[512];
	int created = -1;
	uint8_t sha[SHA256_LEN];

	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_OK);
	assert_int_equal(created, 1);
	path_of(e, LF_LEDGER_FILE, path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	sha_of(7, sha);
	must_record(l, 1002, "invoices", "2024/a.pdf", sha, 2);
	e->clock.t += 60;
	must_record(l, 1002, "invoices", "2024/a.pdf", sha, 3);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/a.pdf"), 5);
	ledger_close(l);

	/* a restart: the same counts, from the file */
	e->clock.t += 60;
	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_OK);
	assert_int_equal(created, 0);
	{
		struct ledger_usage u;
		ledger_window_usage(l, 1002, "invoices", "2024/a.pdf", &u);
		assert_int_equal(u.answers, 5);
		assert_int_equal(u.plans, 2);
		assert_int_equal(u.first, T0);
		assert_int_equal(u.last, T0 + 60);
	}
	ledger_get_stats(l, &st);
	assert_int_equal(st.records, 4);	/* header, K, P, P */
	assert_int_equal(st.keys, 1);
	assert_int_equal(st.contents, 1);
	/* another profile, another key: nothing */
	assert_int_equal(window_answers(l, 1002, "other", "2024/a.pdf"), 0);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/a.pdf "), 0);
	ledger_close(l);
}

static void
test_window(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	long long span = (long long)(W / LEDGER_GROUPS_PER_WINDOW);

	must_record(l, 1002, "p", "k", NULL, 3);
	e->clock.t = T0 + (long long)W - 1;
	assert_int_equal(window_answers(l, 1002, "p", "k"), 3);
	e->clock.t = T0 + (long long)W;		/* (now - W, now]: out */
	assert_int_equal(window_answers(l, 1002, "p", "k"), 0);

	/* a plan within a span of the group's first joins it: the group
	 * counts whole until its latest plan leaves the window */
	e->clock.t = T0 + 2 * (long long)W;
	must_record(l, 1002, "p", "k", NULL, 1);
	e->clock.t += span;
	must_record(l, 1002, "p", "k", NULL, 2);
	e->clock.t = T0 + 3 * (long long)W + span - 1;
	assert_int_equal(window_answers(l, 1002, "p", "k"), 3);
	e->clock.t = T0 + 3 * (long long)W + span;
	assert_int_equal(window_answers(l, 1002, "p", "k"), 0);

	/* one more second: a group of its own; the first leaves on time */
	e->clock.t = T0 + 4 * (long long)W;
	must_record(l, 1002, "p", "k", NULL, 1);
	e->clock.t += span + 1;
	must_record(l, 1002, "p", "k", NULL, 2);
	e->clock.t = T0 + 5 * (long long)W;
	assert_int_equal(window_answers(l, 1002, "p", "k"), 2);

	/* the cap: used + asked may equal it, never pass it */
	assert_false(ledger_would_pass(l, 1002, "p", "k", 3, 5));
	assert_true(ledger_would_pass(l, 1002, "p", "k", 4, 5));
	assert_true(ledger_would_pass(l, 1002, "p", "k", 1, 1));
	assert_false(ledger_would_pass(l, 1002, "p", "other", 5, 5));
	assert_true(ledger_would_pass(l, 1002, "p", "other", 6, 5));

	/* the clock set back: what is recorded still counts */
	e->clock.t = T0;
	assert_int_equal(window_answers(l, 1002, "p", "k"), 2 + 1 + 3 + 2 + 1);
	must_record(l, 1002, "p", "k", NULL, 1);
	assert_int_equal(window_answers(l, 1002, "p", "k"), 10);
	/* lifetime totals in the key view */
	{
		struct ledger_key_view v;
		assert_int_equal(ledger_nkeys(l), 1);
		ledger_key_at(l, 0, &v);
		assert_true(ledger_key_is(l, &v, "k"));
		assert_int_equal(v.total.answers, 3 + 1 + 2 + 1 + 2 + 1);
		assert_int_equal(v.total.plans, 6);
	}
	ledger_close(l);

	/* the clock set back by more than the window between plans: the plan
	 * joins the latest group (counted, never twice) */
	l = must_open(e, W);
	e->clock.t = T0 + 5 * (long long)W;
	must_record(l, 1002, "p", "late", NULL, 2);
	e->clock.t = T0 + 5 * (long long)W + span + 5;
	must_record(l, 1002, "p", "late", NULL, 3);
	e->clock.t = T0 + 3 * (long long)W;
	must_record(l, 1002, "p", "late", NULL, 4);
	e->clock.t = T0 + 5 * (long long)W + span + 6;
	must_record(l, 1002, "p", "late", NULL, 1);
	assert_int_equal(window_answers(l, 1002, "p", "late"), 10);
	{
		struct ledger_key_view v;
		struct ledger_problem pr;
		ledger_key_at(l, 1, &v);
		assert_true(ledger_key_is(l, &v, "late"));
		assert_int_equal(v.total.answers, 10);
		assert_int_equal(v.total.plans, 4);
		assert_int_equal(ledger_compact(l, &pr), LEDGER_OK);
	}
	ledger_close(l);
	l = must_open(e, W);
	{
		struct ledger_key_view v;
		ledger_key_at(l, 1, &v);
		assert_int_equal(v.total.answers, 10);
		assert_int_equal(v.total.plans, 4);
		assert_int_equal(v.window.answers, 10);
	}
	ledger_close(l);

	/* a reopen under a longer window counts more, never less */
	e->clock.t = T0 + 5 * (long long)W;
	l = must_open(e, 2 * W);
	assert_true(window_answers(l, 1002, "p", "k") >= 2 + 1);
	ledger_close(l);
	/* a tiny window still has groups of one second */
	l = must_open(e, 60);
	e->clock.t += 1000;
	must_record(l, 1002, "p", "w", NULL, 1);
	e->clock.t += 59;
	assert_int_equal(window_answers(l, 1002, "p", "w"), 1);
	e->clock.t += 1;
	assert_int_equal(window_answers(l, 1002, "p", "w"), 0);
	ledger_close(l);
}

static void
test_uids_apart_contents_add(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	uint8_t sha[SHA256_LEN], other[SHA256_LEN];
	uint8_t cid_sha[LEDGER_ID_LEN], cid_other[LEDGER_ID_LEN];
	struct ledger_content_view cv;
	struct ledger_key_view kv;
	size_t i, found = 0;

	sha_of(1, sha);
	sha_of(2, other);
	must_record(l, 1002, "inv", "a.pdf", sha, 4);
	must_record(l, 1002, "inv", "copy of a.pdf", sha, 3);	/* same bytes */
	must_record(l, 1003, "inv", "a.pdf", sha, 5);
	must_record(l, 1002, "inv", "a.pdf", other, 1);	/* the file changed */
	assert_int_equal(window_answers(l, 1002, "inv", "a.pdf"), 5);
	assert_int_equal(window_answers(l, 1003, "inv", "a.pdf"), 5);
	assert_int_equal(window_answers(l, 1003, "inv", "copy of a.pdf"), 0);
	assert_false(ledger_would_pass(l, 1003, "inv", "copy of a.pdf", 8, 8));
	assert_true(ledger_would_pass(l, 1003, "inv", "a.pdf", 4, 8));
	assert_false(ledger_would_pass(l, 1002, "inv", "copy of a.pdf", 5, 8));
	ledger_close(l);

	e->clock.t += 5;
	l = must_open(e, W);
	assert_int_equal(ledger_ncontents(l), 3);
	for (i = 0; i < ledger_ncontents(l); i++) {
		ledger_content_at(l, i, &cv);
		uint8_t cid[LEDGER_ID_LEN];
		ledger_content_id(l, 1002, sha, cid);
		/* the file holds the digest, never the sha256 */
		assert_null(cv.sha256);
		if (cv.uid == 1002 && memcmp(cv.id, cid, LEDGER_ID_LEN) == 0) {
			assert_int_equal(cv.total.answers, 7);	/* 4 + 3 */
			assert_int_equal(cv.total.plans, 2);
			found++;
		}
		if (cv.uid == 1003) {
			assert_int_equal(cv.total.answers, 5);
			found++;
		}
	}
	assert_int_equal(found, 2);
	/* each key remembers its contents, newest last */
	ledger_key_at(l, 0, &kv);
	assert_int_equal(kv.uid, 1002);
	assert_true(ledger_key_is(l, &kv, "a.pdf"));
	assert_null(kv.key);			/* not in the file */
	assert_int_equal(kv.ncids, 2);
	ledger_content_id(l, 1002, sha, cid_sha);
	ledger_content_id(l, 1002, other, cid_other);
	assert_memory_equal(kv.cids[0], cid_sha, LEDGER_ID_LEN);
	assert_memory_equal(kv.cids[1], cid_other, LEDGER_ID_LEN);
	/* the same after compaction */
	{
		struct ledger_problem p;
		assert_int_equal(ledger_compact(l, &p), LEDGER_OK);
	}
	ledger_close(l);
	l = must_open(e, W);
	ledger_key_at(l, 0, &kv);
	assert_int_equal(kv.ncids, 2);
	assert_memory_equal(kv.cids[1], cid_other, LEDGER_ID_LEN);
	assert_int_equal(kv.total.answers, 5);
	assert_int_equal(window_answers(l, 1002, "inv", "copy of a.pdf"), 3);
	ledger_close(l);
}

/* Every cut inside the last record: refused as torn, naming the record,
 * with the file exactly as it was (never reset, never cut back). */
static void
test_torn_last_record(void **state)
{
	struct env *e = *state;
	size_t len, last, cut, n2;
	uint8_t *orig = small_ledger(e, &len), *now;
	struct ledger *l;
	struct ledger_problem p;
	int created;

	for (last = len - 1; last > 0 && orig[last - 1] != '\n'; last--)
		;
	assert_true(last > 0 && last < len);
	for (cut = last + 1; cut < len; cut++) {
		spill(e, LF_LEDGER_FILE, orig, cut);
		l = (struct ledger *)1;
		assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created,
		    &p), LEDGER_E_TORN);
		assert_null(l);
		assert_int_equal(p.record, 7);	/* L K P K P K P */
		assert_int_equal(p.good_records, 6);
		assert_int_equal(p.good_bytes, last);
		assert_non_null(strstr(p.msg, "incomplete"));
		now = slurp(e, LF_LEDGER_FILE, &n2);
		assert_int_equal(n2, cut);
		assert_memory_equal(now, orig, cut);
		free(now);
	}
	/* the audit's read: everything before it, and the problem */
	spill(e, LF_LEDGER_FILE, orig, len - 3);
	assert_int_equal(ledger_read(&l, e->dirfd, &e->clk, W, &p),
	    LEDGER_E_TORN);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/a.pdf"), 3);
	assert_int_equal(window_answers(l, 1003, "invoices", "2024/a.pdf"), 0);
	ledger_close(l);
	/* bytes after a whole ledger that do not end a line */
	spill(e, LF_LEDGER_FILE, orig, len);
	{
		char p2[512];
		int fd;
		path_of(e, LF_LEDGER_FILE, p2, sizeof(p2));
		fd = open(p2, O_WRONLY | O_APPEND);
		assert_int_equal(write(fd, "P 99", 4), 4);
		close(fd);
	}
	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_E_TORN);
	free(orig);
}

/* Every single-bit flip anywhere in the file is refused. */
static void
test_bit_flips(void **state)
{
	struct env *e = *state;
	size_t len, i;
	uint8_t *b = small_ledger(e, &len);
	struct ledger *l;
	struct ledger_problem p;
	int bit, created;

	assert_int_equal(ledger_parse(&l, b, len, &e->clk, W, &p), LEDGER_OK);
	ledger_close(l);
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit++) {
			enum ledger_err r;
			b[i] ^= (uint8_t)(1u << bit);
			r = ledger_parse(&l, b, len, &e->clk, W, &p);
			if (r == LEDGER_OK)
				fail_msg("a flip of bit %d of byte %zu was not found",
				    bit, i);
			assert_true(p.good_bytes <= i);
			assert_true(p.msg[0] != '\0');
			ledger_close(l);
			b[i] ^= (uint8_t)(1u << bit);
		}
	/* and through the file, by ledger_open, left as it was */
	b[len / 2] ^= 0x10;
	spill(e, LF_LEDGER_FILE, b, len);
	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_E_DAMAGED);
	assert_non_null(strstr(p.msg, "checksum"));
	{
		size_t n2;
		uint8_t *now = slurp(e, LF_LEDGER_FILE, &n2);
		assert_int_equal(n2, len);
		assert_memory_equal(now, b, len);
		free(now);
	}
	free(b);
}

/* Chain each line of text (lines without their chains) as a writer would. */
static size_t
chain_lines(const char *text, char *buf, size_t cap)
{
	char *s = strdup(text), *line, *save = NULL;
	uint8_t chain[SHA256_LEN];
	size_t n = 0;

	assert_non_null(s);
	memset(chain, 0, sizeof(chain));
	for (line = strtok_r(s, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		uint8_t in[SHA256_LEN + 512];
		size_t ll = strlen(line);
		assert_true(ll < 512 && n + ll + 80 < cap);
		memcpy(in, chain, SHA256_LEN);
		memcpy(in + SHA256_LEN, line, ll);
		sha256_mem(in, SHA256_LEN + ll, chain);
		memcpy(buf + n, line, ll);
		n += ll;
		buf[n++] = ' ';
		hex_encode(chain, SHA256_LEN, buf + n);
		n += 64;
		buf[n++] = '\n';
	}
	free(s);
	return n;
}

/* Plans in the file out of time order (written under a clock that was
 * later set right): each counted once, the old one out of the window. */
static void
test_out_of_order(void **state)
{
	struct env *e = *state;
	char text[512], buf[2048];
	struct ledger *l;
	struct ledger_problem p;
	struct ledger_key_view v;
	size_t n;

	assert_true(str_ok(text, sizeof(text), "L 1 lockfile-ledger 1 %lld\n"
	    "K 2 1 1002 inv 61\nP 3 %lld 1 - 2\nP 4 %lld 1 - 5\n"
	    "P 5 %lld 1 - 1\n", T0, T0 - 10, T0 - 2 * (long long)W, T0 - 5));
	n = chain_lines(text, buf, sizeof(buf));
	assert_int_equal(ledger_parse(&l, (uint8_t *)buf, n, &e->clk, W, &p),
	    LEDGER_OK);
	ledger_key_at(l, 0, &v);
	assert_int_equal(v.total.answers, 8);
	assert_int_equal(v.total.plans, 3);
	assert_int_equal(v.window.answers, 3);
	assert_int_equal(v.window.plans, 2);
	ledger_close(l);
}

/* Lines that chain but say what no writer writes. */
static void
test_form(void **state)
{
	struct env *e = *state;
	static const char *const bad[] = {
		"L 1 lockfile-ledger 1",		/* no time */
		"L 1 other 1 5",
		"K 1 1 1002 inv 61",			/* no header first */
		"L 1 lockfile-ledger 1 5\nP 2 5 1 - 1",	/* unknown id */
		"L 1 lockfile-ledger 1 5\nK 2 2 1002 inv 61",	/* id not next */
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 Inv 61",	/* profile */
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 6",	/* odd hex */
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 6100",	/* NUL in key */
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 4A",	/* upper hex */
		"L 1 lockfile-ledger 1 5\nK 3 1 1002 inv 61",	/* seq jump */
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nP 3 5 1 - 0",
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nP 3 5 1 - 65",
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nP 3 5 1 - 01",
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nG 3 1 1 2 5 5",
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nG 3 1 1 1 6 5",
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nG 3 1 65 1 5 5",
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nP 3 5 1 - 1\n"
		    "G 4 1 1 1 5 5",			/* G after a plan */
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv 61\nK 3 2 1002 inv 61",
		"L 1 lockfile-ledger 1 5\nX 2 1",
		"L 1 lockfile-ledger 1 5\nK 2 1  1002 inv 61",	/* two spaces */
		"L 1 lockfile-ledger 1 5\nK 2 1 1002 inv\t61",
		"L 1 lockfile-ledger 1 5\nK 2 1 4294967295 inv 61",
		"L 1 lockfile-ledger 1 5\nP 2 5 1 - 1 1 1 1 1 1",
		/* format 2 names an entry by a 32-byte digest only */
		"L 1 lockfile-ledger 2 5\nK 2 1 1002 inv 61",
		"L 1 lockfile-ledger 0 5",
	};
	struct ledger *l;
	struct ledger_problem p;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[4096];
		size_t n = chain_lines(bad[i], buf, sizeof(buf));
		if (ledger_parse(&l, (uint8_t *)buf, n, &e->clk, W, &p) ==
		    LEDGER_OK)
			fail_msg("accepted: %s", bad[i]);
		ledger_close(l);
	}
	/* another version is named as such */
	{
		char buf[256];
		uint8_t chain[SHA256_LEN], in[SHA256_LEN + 64];
		const char *h = "L 1 lockfile-ledger 3 5";
		memset(in, 0, SHA256_LEN);
		memcpy(in + SHA256_LEN, h, strlen(h));
		sha256_mem(in, SHA256_LEN + strlen(h), chain);
		strcpy(buf, h);
		strcat(buf, " ");
		hex_encode(chain, SHA256_LEN, buf + strlen(buf));
		strcat(buf, "\n");
		assert_int_equal(ledger_parse(&l, (uint8_t *)buf, strlen(buf),
		    &e->clk, W, &p), LEDGER_E_VERSION);
		ledger_close(l);
	}
	assert_int_equal(ledger_parse(&l, (const uint8_t *)"", 0, &e->clk, W,
	    &p), LEDGER_E_DAMAGED);
	ledger_close(l);
}

/* 100 000 plans by two agents over 40 keys and their changing contents,
 * over 58 days: the file stays small, the totals are exact, and the
 * window is never below the answers in it nor above them plus one
 * span's. Checked against a plain list of every plan. */
#define NPLANS 100000
#define NKEYS 40
struct plan_rec {
	long long t;
	unsigned char key, answers;
	uint16_t content;
};

static void
test_compaction_bounded(void **state)
{
	struct env *e = *state;
	struct plan_rec *all = calloc(NPLANS, sizeof(*all));
	struct ledger *l = must_open(e, W);
	struct ledger_stats st;
	unsigned long long maxbytes = 0, plainbytes = 0, compactions = 0;
	long long span = (long long)(W / LEDGER_GROUPS_PER_WINDOW);
	uint32_t rng = 12345;
	char keys[NKEYS][48];
	size_t i, j;

	assert_non_null(all);
	for (j = 0; j < NKEYS; j++) {
		char num[8];
		num[0] = (char)('a' + j / 26);
		num[1] = (char)('a' + j % 26);
		num[2] = '\0';
		strcpy(keys[j], "2024/Zoë dir/");	/* UTF-8 and a space */
		strcat(keys[j], num);
		strcat(keys[j], ".pdf");
	}
	for (i = 0; i < NPLANS; i++) {
		struct plan_rec *r = &all[i];
		uint8_t sha[SHA256_LEN];
		rng = rng * 1103515245u + 12345u;
		r->key = (unsigned char)((rng >> 16) % NKEYS);
		r->answers = (unsigned char)(1 + (rng >> 8) % 8);
		/* each key's content changes every 5000 plans */
		r->content = (uint16_t)(r->key * 100 + i / 5000);
		e->clock.t += 50;
		r->t = e->clock.t;
		sha_of(r->content, sha);
		must_record(l, r->key % 2 ? 1002 : 1003, "inv", keys[r->key],
		    sha, r->answers);
		if (ledger_compact_due(l)) {
			struct ledger_problem p;
			assert_int_equal(ledger_compact(l, &p), LEDGER_OK);
			compactions++;
		}
		ledger_get_stats(l, &st);
		if (st.bytes > maxbytes)
			maxbytes = st.bytes;
		if (i % 4999 == 0 || i == NPLANS - 1) {
			/* the window against the plain list, for every key */
			unsigned long long lo[NKEYS], hi[NKEYS], got;
			size_t k;
			memset(lo, 0, sizeof(lo));
			memset(hi, 0, sizeof(hi));
			for (k = 0; k <= i; k++) {
				if (all[k].t > e->clock.t - (long long)W)
					lo[all[k].key] += all[k].answers;
				if (all[k].t > e->clock.t - (long long)W - span)
					hi[all[k].key] += all[k].answers;
			}
			for (j = 0; j < NKEYS; j++) {
				got = window_answers(l, j % 2 ? 1002 : 1003, "inv",
				    keys[j]);
				if (got < lo[j] || got > hi[j])
					fail_msg("plan %zu, key %zu: window %llu outside "
					    "%llu..%llu", i, j, got, lo[j], hi[j]);
			}
		}
	}
	/* what the plans alone would take, one line each */
	plainbytes = (unsigned long long)NPLANS * (2 + 6 + 1 + 10 + 1 + 2 + 1 +
	    64 + 1 + 1 + 66);
	print_message("# 100000 plans: largest file %llu bytes (%llu "
	    "compactions); uncompacted about %llu bytes\n", maxbytes,
	    compactions, plainbytes);
	assert_true(compactions >= 10);
	assert_true(maxbytes < 2u << 20);
	assert_true(maxbytes * 10 < plainbytes);
	ledger_close(l);

	/* a restart: lifetime totals exact, per key and per content */
	l = must_open(e, W);
	for (j = 0; j < NKEYS; j++) {
		struct ledger_key_view v;
		unsigned long long sum = 0, plans = 0;
		size_t k, idx;
		for (k = 0; k < NPLANS; k++)
			if (all[k].key == j) {
				sum += all[k].answers;
				plans++;
			}
		for (idx = 0; idx < ledger_nkeys(l); idx++) {
			ledger_key_at(l, idx, &v);
			if (v.uid == (j % 2 ? 1002u : 1003u) &&
			    ledger_key_is(l, &v, keys[j]))
				break;
		}
		assert_true(idx < ledger_nkeys(l));
		assert_int_equal(v.uid, j % 2 ? 1002 : 1003);
		assert_int_equal(v.total.answers, sum);
		assert_int_equal(v.total.plans, plans);
	}
	{
		/* contents are key * 100 + i / 5000 */
		static unsigned long long sums[NKEYS * 100];
		static uint8_t shas[NKEYS * 100][SHA256_LEN];
		size_t k, c;
		memset(sums, 0, sizeof(sums));
		for (k = 0; k < NPLANS; k++)
			sums[all[k].content] += all[k].answers;
		for (c = 0; c < NKEYS * 100; c++) {
			uint8_t sha[SHA256_LEN];
			sha_of((int)c, sha);
			ledger_content_id(l, (c / 100) % 2 ? 1002 : 1003, sha,
			    shas[c]);
		}
		for (i = 0; i < ledger_ncontents(l); i++) {
			struct ledger_content_view cv;
			ledger_content_at(l, i, &cv);
			for (c = 0; c < NKEYS * 100 &&
			    memcmp(shas[c], cv.id, LEDGER_ID_LEN) != 0; c++)
				;
			assert_true(c < NKEYS * 100);
			if (c < NKEYS * 100) {
				assert_int_equal(cv.uid, (c / 100) % 2 ? 1002 : 1003);
				assert_int_equal(cv.total.answers, sums[c]);
			}
		}
		assert_int_equal(ledger_ncontents(l), NKEYS * (NPLANS / 5000));
	}
	ledger_close(l);
	free(all);
}

static void
test_unfinished_compaction(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	char p[512];
	int fd;

	must_record(l, 1002, "inv", "a", NULL, 2);
	ledger_close(l);
	path_of(e, LEDGER_NEW_FILE, p, sizeof(p));
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "L 1 lock", 8), 8);	/* cut short */
	close(fd);
	l = must_open(e, W);
	assert_int_equal(window_answers(l, 1002, "inv", "a"), 2);
	assert_int_equal(access(p, F_OK), -1);
	ledger_close(l);
}

static void
test_busy_and_unsafe(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W), *l2 = NULL;
	struct ledger_problem p;
	char path[512], other[512];
	struct stat sb;
	int created;

	assert_int_equal(ledger_open(&l2, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_E_BUSY);
	/* the audit's read takes no lock */
	assert_int_equal(ledger_read(&l2, e->dirfd, &e->clk, W, &p), LEDGER_OK);
	ledger_close(l2);
	ledger_close(l);

	path_of(e, LF_LEDGER_FILE, path, sizeof(path));
	assert_int_equal(chmod(path, 0644), 0);
	l = must_open(e, W);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	ledger_close(l);

	path_of(e, "second-name", other, sizeof(other));
	assert_int_equal(link(path, other) == 0 ? 0 : errno, 0);
	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_E_UNSAFE);
	unlink(other);

	path_of(e, "elsewhere", other, sizeof(other));
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(symlink("elsewhere", path), 0);
	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_E_UNSAFE);
	assert_int_equal(ledger_read(&l, e->dirfd, &e->clk, W, &p),
	    LEDGER_E_UNSAFE);
	ledger_close(l);
}

/* `audit --ledger --repair`: what was whole is kept, the damaged file is
 * moved aside as it was. */
static void
test_rewrite(void **state)
{
	struct env *e = *state;
	size_t len, n2;
	uint8_t *orig = small_ledger(e, &len), *aside_bytes;
	struct ledger *l;
	struct ledger_problem p;
	char aside[128];

	orig[len - 10] ^= 1;
	spill(e, LF_LEDGER_FILE, orig, len);
	assert_int_equal(ledger_read(&l, e->dirfd, &e->clk, W, &p),
	    LEDGER_E_DAMAGED);
	assert_int_equal(p.good_records, 6);
	assert_int_equal(ledger_rewrite(l, e->dirfd, aside, sizeof(aside), &p),
	    LEDGER_OK);
	ledger_close(l);
	aside_bytes = slurp(e, aside, &n2);
	assert_int_equal(n2, len);
	assert_memory_equal(aside_bytes, orig, len);
	l = must_open(e, W);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/a.pdf"), 3);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/b.pdf"), 1);
	assert_int_equal(window_answers(l, 1003, "invoices", "2024/a.pdf"), 0);
	{
		struct ledger_stats st;
		ledger_get_stats(l, &st);
		assert_true(st.seq >= 5);	/* numbering goes on */
	}
	/* a console holding it: no rewrite */
	{
		struct ledger *r;
		assert_int_equal(ledger_read(&r, e->dirfd, &e->clk, W, &p),
		    LEDGER_OK);
		assert_int_equal(ledger_rewrite(r, e->dirfd, aside, sizeof(aside),
		    &p), LEDGER_E_BUSY);
		ledger_close(r);
	}
	ledger_close(l);
	free(orig);
	free(aside_bytes);
}

/* A write that fails half-way (the file size limit here) is cut back to
 * the last whole record; the ledger then refuses, and reopens whole. */
static void
test_failed_write_cut_back(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	struct ledger_problem p;
	struct ledger_stats st;
	struct rlimit old, lim;
	size_t n2;
	uint8_t *b;

	must_record(l, 1002, "inv", "a", NULL, 2);
	ledger_get_stats(l, &st);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = st.bytes + 20;		/* part of the next line fits */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(ledger_record(l, 1002, "inv", "a", NULL, NULL, 3, &p),
	    LEDGER_E_IO);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(p.sys_errno, EFBIG);
	assert_int_equal(window_answers(l, 1002, "inv", "a"), 2);
	assert_int_equal(ledger_record(l, 1002, "inv", "a", NULL, NULL, 1, &p),
	    LEDGER_E_BROKEN);
	assert_int_equal(ledger_record(l, 1002, "inv", "b", NULL, NULL, 1, &p),
	    LEDGER_E_BROKEN);
	assert_int_equal(ledger_nkeys(l), 1);
	ledger_close(l);
	b = slurp(e, LF_LEDGER_FILE, &n2);
	assert_int_equal(n2, st.bytes);
	free(b);
	l = must_open(e, W);
	assert_int_equal(window_answers(l, 1002, "inv", "a"), 2);
	ledger_close(l);
}

static void
test_limits(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	struct ledger_problem p;
	char big[LEDGER_MAX_KEY_BYTES + 2];

	assert_int_equal(ledger_record(l, 1002, "inv", "a", NULL, NULL, 0, &p),
	    LEDGER_E_FULL);
	assert_int_equal(ledger_record(l, 1002, "inv", "a", NULL, NULL,
	    LEDGER_MAX_ANSWERS + 1, &p), LEDGER_E_FULL);
	assert_int_equal(ledger_record(l, 1002, "In v", "a", NULL, NULL, 1, &p),
	    LEDGER_E_FULL);
	assert_int_equal(ledger_record(l, 1002, "inv", "", NULL, NULL, 1, &p),
	    LEDGER_E_FULL);
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(ledger_record(l, 1002, "inv", big, NULL, NULL, 1, &p),
	    LEDGER_E_FULL);
	assert_int_equal(ledger_nkeys(l), 0);
	/* the longest key and profile fit a record, and read back */
	big[LEDGER_MAX_KEY_BYTES] = '\0';
	must_record(l, 4294967294u, "p234567890123456789012345678901234567890"
	    "12345678901234567890123", big, NULL, LEDGER_MAX_ANSWERS);
	ledger_close(l);
	l = must_open(e, W);
	assert_int_equal(window_answers(l, 4294967294u, "p2345678901234567890"
	    "1234567890123456789012345678901234567890123", big),
	    LEDGER_MAX_ANSWERS);
	ledger_close(l);
}

static void
test_usage_line(void **state)
{
	struct ledger_usage u = { 14, 5, 1714557720, 1714600000 };
	char line[200];

	(void)state;
	ledger_usage_line(&u, 1002, 32, 86400, line, sizeof(line));
	assert_string_equal(line, "this key: 14 answers to uid 1002 in 5 plans "
	    "since 2024-05-01 10:02 UTC, cap 32 per 1 d");
	u.answers = 1;
	u.plans = 1;
	ledger_usage_line(&u, 1002, 8, 7200, line, sizeof(line));
	assert_string_equal(line, "this key: 1 answer to uid 1002 in 1 plan "
	    "since 2024-05-01 10:02 UTC, cap 8 per 2 h");
	memset(&u, 0, sizeof(u));
	ledger_usage_line(&u, 1003, 64, 90, line, sizeof(line));
	assert_string_equal(line, "this key: no answers to uid 1003 in the "
	    "last 90 s, cap 64");
	/* hub mode's screen: labelled counts, labels of 1..64 printable */
	{
		struct ledger_screen_line sl[LEDGER_SCREEN_LINES + 1];
		struct ledger_usage w = { 14, 5, 1714557720, 1714600000 };
		size_t i, j;
		assert_int_equal(ledger_screen(&w, 4294967294u, 32, 86400, sl,
		    LEDGER_SCREEN_LINES + 1), LEDGER_SCREEN_LINES);
		assert_string_equal(sl[0].label, "answers to uid 4294967294 on "
		    "this key in the window");
		assert_int_equal(sl[0].count, 14);
		assert_int_equal(sl[1].count, 5);
		assert_int_equal(sl[2].count, 32);
		assert_string_equal(sl[3].label, "window in seconds (1 d)");
		assert_int_equal(sl[3].count, 86400);
		for (i = 0; i < LEDGER_SCREEN_LINES; i++) {
			size_t n = strlen(sl[i].label);
			assert_true(n >= 1 && n <= 64);
			for (j = 0; j < n; j++)
				assert_true(sl[i].label[j] >= 0x20 &&
				    sl[i].label[j] < 0x7f);
		}
		assert_int_equal(ledger_screen(&w, 1002, 32, 86400, sl, 2), 2);
	}
}

/* ---- at rest (docs/ledger.md, "At rest"), spellings and aliases ---- */

static int
holds(const uint8_t *b, size_t len, const char *needle)
{
	return memmem(b, len, needle, strlen(needle)) != NULL;
}

static void
hex_of(const void *p, size_t n, char *out)
{
	hex_encode((const uint8_t *)p, n, out);
}

/* The file holds no key, no key in hex, no sha256: digests under the key
 * file, which is made 0600 at the first open; without it the ledger is
 * refused, never replaced. */
static void
test_at_rest(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	struct ledger_problem p;
	struct stat st;
	uint8_t sha[SHA256_LEN], *b, *b2;
	char hex[2 * 64 + 1], path[512];
	size_t len, len2;
	int created;

	sha_of(7, sha);
	must_record(l, 1002, "invoices", "2024/secret-name.pdf", sha, 3);
	ledger_close(l);
	b = slurp(e, LF_LEDGER_FILE, &len);
	assert_false(holds(b, len, "secret-name"));
	hex_of("2024/secret-name.pdf", 20, hex);
	assert_false(holds(b, len, hex));
	hex_of(sha, SHA256_LEN, hex);
	assert_false(holds(b, len, hex));
	assert_true(holds(b, len, "lockfile-ledger 2 "));
	path_of(e, LEDGER_SECRET_FILE, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, LEDGER_SECRET_LEN);
	/* counted again after a reopen, by the key's digest */
	l = must_open(e, W);
	assert_int_equal(window_answers(l, 1002, "invoices",
	    "2024/secret-name.pdf"), 3);
	ledger_close(l);
	/* the key gone: refused, the ledger left as it was */
	assert_int_equal(unlink(path), 0);
	l = NULL;
	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_E_KEY);
	assert_null(l);
	assert_int_equal(ledger_read(&l, e->dirfd, &e->clk, W, &p),
	    LEDGER_E_KEY);
	ledger_close(l);
	b2 = slurp(e, LF_LEDGER_FILE, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(b, b2, len);
	free(b);
	free(b2);
}

/* A format-1 file (keys and sha256s in the clear) is rewritten as
 * digests at the first open, its counts kept. */
static void
test_migrate_v1(void **state)
{
	struct env *e = *state;
	struct ledger *l = NULL;
	struct ledger_problem p;
	uint8_t sha[SHA256_LEN], *b;
	char text[1024], buf[4096], shahex[65], keyhex[64];
	size_t n, len;
	int created = 0, fd;

	sha_of(3, sha);
	hex_of(sha, SHA256_LEN, shahex);
	hex_of("2024/old.pdf", 12, keyhex);
	assert_true(str_ok(text, sizeof(text), "L 1 lockfile-ledger 1 %lld\n"
	    "K 2 1 1002 invoices %s\nP 3 %lld 1 %s 4", T0 - 10, keyhex,
	    T0 - 10, shahex));
	n = chain_lines(text, buf, sizeof(buf));
	fd = openat(e->dirfd, LF_LEDGER_FILE, O_WRONLY | O_CREAT | O_EXCL,
	    0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	/* read only: the names are there, the file untouched */
	assert_int_equal(ledger_read(&l, e->dirfd, &e->clk, W, &p), LEDGER_OK);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/old.pdf"), 4);
	ledger_close(l);
	assert_int_equal(ledger_open(&l, e->dirfd, &e->clk, W, &created, &p),
	    LEDGER_OK);
	assert_int_equal(created, 2);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/old.pdf"), 4);
	ledger_close(l);
	b = slurp(e, LF_LEDGER_FILE, &len);
	assert_false(holds(b, len, keyhex));
	assert_false(holds(b, len, shahex));
	assert_true(holds(b, len, "lockfile-ledger 2 "));
	free(b);
	l = must_open(e, W);
	assert_int_equal(window_answers(l, 1002, "invoices", "2024/old.pdf"), 4);
	ledger_close(l);
}

/* A profile that folds case (and so canonical equivalence): its
 * spellings share one budget; another profile's do not. */
static void
test_fold(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	enum ledger_fold f;
	char out[64];

	assert_int_equal(ledger_set_fold(l, "win", LEDGER_FOLD_CASE), 0);
	assert_int_equal(ledger_set_fold(l, "mac", LEDGER_FOLD_NFC), 0);
	must_record(l, 1002, "win", "Docs/Zo\xc3\xab.PDF", NULL, 3);
	assert_int_equal(window_answers(l, 1002, "win", "docs/zo\xc3\xab.pdf"), 3);
	/* NFD, and upper case */
	assert_int_equal(window_answers(l, 1002, "win", "DOCS/ZOE\xcc\x88.pdf"),
	    3);
	assert_true(ledger_would_pass(l, 1002, "win", "docs/ZO\xc3\x8b.pdf", 2,
	    4));
	assert_int_equal(window_answers(l, 1003, "win", "docs/zo\xc3\xab.pdf"), 0);
	/* nfc: canonical equivalents only */
	must_record(l, 1002, "mac", "Zo\xc3\xab", NULL, 2);
	assert_int_equal(window_answers(l, 1002, "mac", "Zoe\xcc\x88"), 2);
	assert_int_equal(window_answers(l, 1002, "mac", "zo\xc3\xab"), 0);
	/* no rule: bytes */
	must_record(l, 1002, "posix", "A", NULL, 1);
	assert_int_equal(window_answers(l, 1002, "posix", "a"), 0);
	ledger_close(l);
	/* across a reopen, with the rules set again */
	l = must_open(e, W);
	assert_int_equal(ledger_set_fold(l, "win", LEDGER_FOLD_CASE), 0);
	assert_int_equal(window_answers(l, 1002, "win", "DOCS/zo\xc3\xab.pdf"), 3);
	ledger_close(l);
	/* the folding itself; bytes that are not UTF-8 fold ASCII only */
	assert_int_equal(ledger_fold_key(LEDGER_FOLD_CASE, "Stra\xc3\x9f" "e",
	    out, sizeof(out)), 0);
	assert_string_equal(out, "strasse");
	assert_int_equal(ledger_fold_key(LEDGER_FOLD_CASE, "A\xff", out,
	    sizeof(out)), 0);
	assert_string_equal(out, "a\xff");
	assert_int_equal(ledger_fold_parse("case", &f), 0);
	assert_int_equal(f, LEDGER_FOLD_CASE);
	assert_int_equal(ledger_fold_parse("Case", &f), -1);
}

/* Two names of one object (hard links): each name its own key entry,
 * the object one budget across them, kept across a reopen. */
static void
test_object(void **state)
{
	struct env *e = *state;
	struct ledger *l = must_open(e, W);
	struct ledger_problem p;
	struct ledger_usage u;

	assert_int_equal(ledger_record(l, 1002, "docs", "a.txt", "local:1:2",
	    NULL, 3, &p), LEDGER_OK);
	assert_int_equal(ledger_record(l, 1002, "docs", "b.txt", "local:1:2",
	    NULL, 2, &p), LEDGER_OK);
	assert_int_equal(window_answers(l, 1002, "docs", "b.txt"), 2);
	ledger_object_usage(l, 1002, "docs", "local:1:2", &u);
	assert_int_equal(u.answers, 5);
	assert_int_equal(u.plans, 2);
	assert_true(ledger_object_would_pass(l, 1002, "docs", "local:1:2", 1, 5));
	assert_false(ledger_object_would_pass(l, 1002, "docs", "local:1:3", 1,
	    5));
	assert_false(ledger_object_would_pass(l, 1003, "docs", "local:1:2", 1,
	    5));
	ledger_close(l);
	l = must_open(e, W);
	ledger_object_usage(l, 1002, "docs", "local:1:2", &u);
	assert_int_equal(u.answers, 5);
	ledger_close(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uids_apart_contents_add,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_last_record, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bit_flips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compaction_bounded, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_compaction, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_busy_and_unsafe, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rewrite, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_cut_back, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test(test_usage_line),
		cmocka_unit_test_setup_teardown(test_at_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_object, setup, teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("ledger", tests, NULL, NULL);
}
