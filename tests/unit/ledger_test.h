/* What the ledger's unit tests share (test_ledger.c, test_ledger_file.c,
 * ledger_test.c): a temporary directory with a fake clock, and helpers
 * that read, write and record. One program, one suite (ledger-unit). */
#ifndef LOCKFILE_TEST_LEDGER_TEST_H
#define LOCKFILE_TEST_LEDGER_TEST_H

#include "console/ledger.h"
#include "lib/crypto.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define W 86400ULL		/* the default window */
#define T0 1700000000LL

struct fake {
	long long t;
};

struct env {
	char dir[256];
	int dirfd;
	struct fake clock;
	struct ledger_clock clk;
};

/* cmocka set-up and tear-down: a fresh directory (tmpfs when there is
 * one) and the clock at T0 */
int setup(void **state);
int teardown(void **state);

void path_of(const struct env *e, const char *name, char *out, size_t outlen);
uint8_t *slurp(const struct env *e, const char *name, size_t *len);
void spill(const struct env *e, const char *name, const uint8_t *b,
    size_t len);
struct ledger *must_open(struct env *e, unsigned long long window);
void must_record(struct ledger *l, uid_t uid, const char *profile,
    const char *key, const uint8_t *sha, unsigned answers);
void sha_of(int n, uint8_t out[SHA256_LEN]);
int str_ok(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
unsigned long long window_answers(struct ledger *l, uid_t uid,
    const char *profile, const char *key);
/* A small ledger of a few plans, closed; its bytes returned. */
uint8_t *small_ledger(struct env *e, size_t *len);
/* Chain each line of text (lines without their chains) as a writer would. */
size_t chain_lines(const char *text, char *buf, size_t cap);
int holds(const uint8_t *b, size_t len, const char *needle);
void hex_of(const void *p, size_t n, char *out);

/* test_ledger.c: memory, the window, spellings and aliases */
void test_create_reopen(void **state);
void test_window(void **state);
void test_uids_apart_contents_add(void **state);
void test_limits(void **state);
void test_usage_line(void **state);
void test_fold(void **state);
void test_object(void **state);
/* test_ledger_file.c: the format and the file */
void test_torn_last_record(void **state);
void test_bit_flips(void **state);
void test_out_of_order(void **state);
void test_form(void **state);
void test_compaction_bounded(void **state);
void test_unfinished_compaction(void **state);
void test_busy_and_unsafe(void **state);
void test_rewrite(void **state);
void test_failed_write_cut_back(void **state);
void test_at_rest(void **state);
void test_migrate_v1(void **state);

#endif
