/* Unit tests for the one registered cleanup of src/lib/log.c (OpenSSH's
 * cleanup_exit): every fatal path runs it, in the process that registered
 * it only (a forked child dying must not delete its parent's files), once
 * (a cleanup that dies itself leaves at once), and a second thread dying
 * meanwhile waits for the first to finish. Each case runs in a forked
 * child, which reports through a pipe what its cleanup did. The xmalloc
 * family (lib/xmalloc.h) dies the same way, naming the sizes, and fatal_f
 * names its function. cmocka, TAP. */
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static int report = -1;		/* the pipe the cleanup writes to */

static void
say(const char *c)
{
	if (write(report, c, 1) != 1)
		_exit(99);
}

static void
cleanup(void)
{
	say("C");
}

/* Run fn in a child with a cleanup registered there; returns what the
 * cleanup wrote and stores the exit status. */
static char *
in_child(void (*fn)(void), int *status)
{
	static char got[64];
	int p[2];
	pid_t pid;
	ssize_t n, off = 0;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		report = p[1];
		(void)close(STDERR_FILENO);	/* fatal's message: not in TAP */
		log_set_cleanup(cleanup);
		fn();
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], got + off, sizeof(got) - 1 - (size_t)off)) > 0)
		off += n;
	got[off] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
	return got;
}

static void
dies(void)
{
	fatal("a broken invariant");
}

static void
dies_errno(void)
{
	fatal_errno("poll");
}

static void
asserts(void)
{
	ASSERT(1 == 2);
}

static void
grandchild_dies(void)
{
	/* A fork of the registering process (a sandbox or worker child before
	 * its exec) dies: its parent's cleanup must not run in it. */
	pid_t pid = fork();
	int st;

	if (pid == 0)
		fatal("in a child");
	(void)waitpid(pid, &st, 0);
	say(WIFEXITED(st) && WEXITSTATUS(st) == 70 ? "g" : "?");
}

static void
cleanup_that_dies(void)
{
	say("D");
	fatal("the cleanup itself fails");
}

static void
dies_in_cleanup(void)
{
	log_set_cleanup(cleanup_that_dies);
	fatal("first");
}

static void
slow_cleanup(void)
{
	say("S");
	usleep(200 * 1000);	/* the other thread dies meanwhile */
	say("E");
}

static void *
second_thread(void *arg)
{
	(void)arg;
	fatal("second");
}

static void
two_threads_die(void)
{
	pthread_t t;

	/* Whichever thread dies first cleans up; the other waits for it. */
	log_set_cleanup(slow_cleanup);
	assert_int_equal(pthread_create(&t, NULL, second_thread, NULL), 0);
	fatal("first");
}

static void
test_fatal_runs_the_cleanup(void **state)
{
	int st;

	(void)state;
	assert_string_equal(in_child(dies, &st), "C");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
	assert_string_equal(in_child(dies_errno, &st), "C");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
	assert_string_equal(in_child(asserts, &st), "C");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
}

static void
test_not_in_a_forked_child(void **state)
{
	int st;

	(void)state;
	/* only the child's own exit status, no cleanup in the grandchild */
	assert_string_equal(in_child(grandchild_dies, &st), "g");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void
test_once(void **state)
{
	int st;

	(void)state;
	assert_string_equal(in_child(dies_in_cleanup, &st), "D");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
}

static void
test_second_thread_waits(void **state)
{
	int st;

	(void)state;
	/* "SE": the cleanup ran to its end; the second fatal neither ran it
	 * again nor cut it short */
	assert_string_equal(in_child(two_threads_die, &st), "SE");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
}

/* Run fn in a child with the cleanup registered; its stderr into err. */
static void
stderr_of(void (*fn)(void), int *status, char *err, size_t errlen)
{
	int p[2], q[2];
	pid_t pid;
	ssize_t n;
	size_t off = 0;
	char c;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(q), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		close(q[0]);
		report = q[1];
		if (dup2(p[1], STDERR_FILENO) < 0)
			_exit(98);
		log_set_cleanup(cleanup);
		fn();
		_exit(0);
	}
	close(p[1]);
	close(q[1]);
	while (off + 1 < errlen &&
	    (n = read(p[0], err + off, errlen - 1 - off)) > 0)
		off += (size_t)n;
	err[off] = '\0';
	close(p[0]);
	assert_int_equal(read(q[0], &c, 1), 1);	/* the cleanup ran */
	assert_int_equal(c, 'C');
	close(q[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
}

static void
overflows(void)
{
	/* checked before realloc is asked, so no sanitizer sees it; volatile,
	 * or the compiler refuses the call (alloc_size) */
	volatile size_t n = SIZE_MAX / 2;

	(void)xreallocarray(NULL, n, 3);
}

static void
calloc_overflows(void)
{
	volatile size_t n = SIZE_MAX / 4;

	(void)xcalloc(n, 8);
}

static void
names_itself(void)
{
	fatal_f("%s", "gone");
}

static void
test_xmalloc_family_dies_naming_the_size(void **state)
{
	char err[512], want[128];
	int st;

	(void)state;
	stderr_of(overflows, &st, err, sizeof(err));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
	snprintf(want, sizeof(want), "xreallocarray: %zu * 3 bytes overflows",
	    (size_t)SIZE_MAX / 2);
	assert_non_null(strstr(err, want));
	stderr_of(calloc_overflows, &st, err, sizeof(err));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
	assert_non_null(strstr(err, "xcalloc: "));
	assert_non_null(strstr(err, " * 8 bytes overflows"));
}

static void
test_fatal_f_names_its_function(void **state)
{
	char err[512];
	int st;

	(void)state;
	stderr_of(names_itself, &st, err, sizeof(err));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 70);
	assert_non_null(strstr(err, ": names_itself: gone\n"));
}

static void
test_xmalloc_family_allocates(void **state)
{
	char *s = xstrdup("abc");
	int *v = xcalloc(0, sizeof(int));	/* zero: one byte, not NULL */

	(void)state;
	assert_string_equal(s, "abc");
	assert_non_null(v);
	v = xreallocarray(v, 16, sizeof(int));
	v[15] = 7;
	assert_int_equal(v[15], 7);
	free(v);
	free(s);
	free(xmalloc(0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fatal_runs_the_cleanup),
		cmocka_unit_test(test_not_in_a_forked_child),
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_second_thread_waits),
		cmocka_unit_test(test_xmalloc_family_dies_naming_the_size),
		cmocka_unit_test(test_fatal_f_names_its_function),
		cmocka_unit_test(test_xmalloc_family_allocates),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
