/* TAP for the C test programs that do not use cmocka (docs/testing.md,
 * "The runner"; tests/run-all counts the lines). One process, one stream:
 *
 *   tap_plan(N);                 "1..N" up front, when N is known
 *   tap_ok(cond, "what %d", i);  "ok 1 - what 3" / "not ok 1 - what 3"
 *   tap_done();                  "1..N" now if no plan was given; the exit
 *                                status: 1 when any result failed, else 0
 *
 * A description cannot forge a line: '#' (which starts a SKIP or TODO
 * directive) and every character that ends a line for a TAP reader or for
 * run-all's Python splitlines() become '?'. Every line is flushed as it is
 * written, so a forked child never inherits and repeats buffered results. */
#ifndef LOCKFILE_TESTS_TAP_H
#define LOCKFILE_TESTS_TAP_H

/* "1..n", before any result. Without it tap_done() prints the plan. */
void tap_plan(int n);

/* One result; returns cond. */
int tap_ok(int cond, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One result; on a failure, why (when not NULL) follows the description
 * as " # WHY", what a harness shows beside the failure. */
int tap_okwhy(int cond, const char *why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A skipped test: "ok N - DESCRIPTION # SKIP REASON". */
void tap_skip(const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A diagnostic line: "# TEXT". */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "Bail out! TEXT", then exit(1): the set-up cannot go on. */
void tap_bail(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

/* A set-up error as one failed test, then exit(1). Before any output it
 * prints "1..1" and "not ok 1 - TEXT" (a run that cannot start still
 * counts one failure); later, the next result, and the plan if none was
 * given. */
void tap_fail_setup(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

/* Prints the plan if tap_plan() was not called; returns the exit status. */
int tap_done(void);

#endif
