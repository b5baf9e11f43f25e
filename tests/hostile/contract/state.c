/* Contract: the state the sandbox promises, seen from inside. Answers 1 when
 * every check holds; otherwise writes the number of the first failing check
 * as that many stderr bytes (see hostile.h) and answers 0. */
#include "hostile.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

extern char **environ;

static int
lim(int res, unsigned long long soft, unsigned long long hard)
{
	struct rlimit rl;

	return getrlimit(res, &rl) == 0 && rl.rlim_cur == soft &&
	    rl.rlim_max == hard;
}

int
main(void)
{
	unsigned long long data, cpu, core;
	struct rlimit rl;
	struct sigaction pipe_sa, usr2_sa;
	sigset_t mask;
	int fail = 0;

	conf_load();
	data = cfg_u64("data_bytes");
	cpu = cfg_u64("cpu_s");
	core = cfg_u64("core_limit");
	if (environ != NULL && environ[0] != NULL)
		fail = 1;			/* empty environment */
	else if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		fail = 2;			/* no_new_privs */
	else if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		fail = 3;			/* seccomp filter mode */
	else if (getpgrp() != getpid())
		fail = 4;			/* own session and group */
	else if (!lim(RLIMIT_CORE, core, core))
		fail = 5;			/* 1: the kernel never pipes it */
	else if (!lim(RLIMIT_FSIZE, 0, 0))
		fail = 6;
	else if (!lim(RLIMIT_STACK, 8ULL << 20, 8ULL << 20))
		fail = 7;
	else if (!lim(RLIMIT_DATA, data, data))
		fail = 8;
	else if (!lim(RLIMIT_AS, data + (4ULL << 30), data + (4ULL << 30)))
		fail = 9;
	else if (!lim(RLIMIT_CPU, cpu, cpu + 1))
		fail = 10;
	else if (getrlimit(RLIMIT_NPROC, &rl) != 0 || rl.rlim_cur != rl.rlim_max ||
	    rl.rlim_cur < 512 || rl.rlim_cur == RLIM_INFINITY)
		fail = 11;			/* task count + 512 */
	else if (getppid() == 1)
		fail = 12;			/* a parent that reaps it */
	else if (sigaction(SIGPIPE, NULL, &pipe_sa) != 0 ||
	    pipe_sa.sa_handler != SIG_DFL ||
	    sigaction(SIGUSR2, NULL, &usr2_sa) != 0 ||
	    usr2_sa.sa_handler != SIG_DFL)
		fail = 13;			/* launcher's ignored signals reset */
	else if (sigprocmask(SIG_SETMASK, NULL, &mask) != 0 ||
	    sigismember(&mask, SIGUSR1) || sigismember(&mask, SIGTERM) ||
	    sigismember(&mask, SIGPIPE))
		fail = 14;			/* launcher's blocked signals unblocked */
	if (fail == 0)
		return write(1, "1\n", 2) == 2 ? 0 : 1;
	if (write_filler(2, (size_t)fail) != 0)
		return 1;
	return write(1, "0\n", 2) == 2 ? 0 : 1;
}
