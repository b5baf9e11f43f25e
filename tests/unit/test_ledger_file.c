/* Unit tests of the ledger's format and file (src/console/ledger_format.c,
 * ledger_io.c; docs/ledger.md): a torn last record and every single-bit
 * flip are refused with the file left as it was; compaction keeps 100 000
 * plans in a bounded file with the totals exact; a failed write is cut
 * back; the file holds no key; format 1 migrates. Run by test_ledger.c's
 * main. */
#include "ledger_test.h"

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

/* Every cut inside the last record: refused as torn, naming the record,
 * with the file exactly as it was (never reset, never cut back). */
void
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
void
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

/* Plans in the file out of time order (written under a clock that was
 * later set right): each counted once, the old one out of the window. */
void
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
void
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

void
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

void
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

void
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
void
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
void
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

/* The file holds no key, no key in hex, no sha256: digests under the key
 * file, which is made 0600 at the first open; without it the ledger is
 * refused, never replaced. */
void
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
void
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
