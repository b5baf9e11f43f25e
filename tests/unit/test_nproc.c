/* Unit test for sandbox_refresh_nproc() (src/sandbox/spawn.c): the plugin's
 * RLIMIT_NPROC is the launcher's real uid's task count plus the headroom,
 * threads included, read from every /proc/PID/status. Run as root: the
 * count is taken in a child that became a uid with no other process, with
 * a known set of processes and threads, one of them named to look like a
 * status field. */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define SLEEPERS 5
#define THREADS 3	/* extra threads in one more process */

static void *
park(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A child of the subject that waits to be killed; ready is written once
 * it is what the test counts (its threads started, its name set). */
static pid_t
spawn(int ready, int threads, const char *name)
{
	pid_t pid = fork();
	pthread_t t;
	int i;

	if (pid != 0)
		return pid;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t, NULL, park, NULL) != 0)
			_exit(1);
	if (name != NULL && prctl(PR_SET_NAME, name, 0, 0, 0) != 0)
		_exit(1);
	(void)!write(ready, "r", 1);
	for (;;)
		pause();
}

/* In a child: become uid, start the processes, count, report the count on
 * out. */
static void __attribute__((noreturn))
subject(uid_t uid, int out)
{
	struct sandbox sb;
	pid_t kids[SLEEPERS + 2];
	int p[2], n = 0, i;
	char c;

	if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
	    setresuid(uid, uid, uid) != 0 || pipe(p) != 0)
		_exit(2);
	for (i = 0; i < SLEEPERS; i++)
		kids[n++] = spawn(p[1], 0, NULL);
	kids[n++] = spawn(p[1], THREADS, NULL);
	/* The name is escaped by the kernel in status (no raw newline): it
	 * must not pass for the Uid or Threads field. */
	kids[n++] = spawn(p[1], 0, "x\nUid:\t0\nThreads:\t99");
	for (i = 0; i < n; i++)
		if (kids[i] < 0 || read(p[0], &c, 1) != 1)
			_exit(3);
	memset(&sb, 0, sizeof(sb));
	i = sandbox_refresh_nproc(&sb);
	for (int k = 0; k < n; k++)
		kill(kids[k], SIGKILL);
	if (i != 0)
		_exit(4);
	(void)!write(out, &sb.nproc, sizeof(sb.nproc));
	_exit(0);
}

static void
test_counts_the_uid_s_tasks_with_threads(void **state)
{
	/* A uid no account or other test uses. */
	uid_t uid = (uid_t)(61000 + getpid() % 4000);
	rlim_t got = 0;
	int p[2], st;
	pid_t pid;

	(void)state;
	assert_int_equal(geteuid(), 0);		/* the suite runs as root */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		subject(uid, p[1]);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &got, sizeof(got)), (ssize_t)sizeof(got));
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The subject, its sleepers, the threaded one with its threads, the
	 * named one. */
	assert_int_equal(got, 1 + SLEEPERS + (1 + THREADS) + 1 +
	    SANDBOX_NPROC_HEADROOM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_the_uid_s_tasks_with_threads),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("nproc", tests, NULL, NULL);
}
