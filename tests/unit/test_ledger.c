/* Unit tests for the answer ledger (src/console/ledger*.c, docs/ledger.md),
 * one program: here what memory holds (records survive a reopen; the
 * window counts at least every answer inside it and at most a group's span
 * more; uids and keys are kept apart while contents add up; limits;
 * spellings and aliases) and main; the format and the file are
 * test_ledger_file.c, the helpers ledger_test.c. */
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

void
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

void
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

void
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

void
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

void
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

/* A profile that folds case (and so canonical equivalence): its
 * spellings share one budget; another profile's do not. */
void
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
void
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
