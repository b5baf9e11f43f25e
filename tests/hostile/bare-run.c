/* bare-run: start a plugin with the sandbox's descriptor layout and nothing
 * else, the control for every hostile attempt (an attempt that fails here
 * proves nothing about the sandbox).
 *
 *   bare-run PLUGIN INPUT
 *
 * stdin is /dev/null and INPUT is open read-only on fd 3, as in the sandbox.
 * Unlike the sandbox, every other inherited descriptor, the environment, the
 * session, the working directory and all limits are left as they are, and
 * the plugin runs as a child of this process (so "the parent" exists for the
 * attempts that aim at it). Exit status: the plugin's, 128 + signal when it
 * was killed, 125 when it could not be started. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int
move_fd(int from, int to)
{
	if (from == to)
		return fcntl(to, F_SETFD, 0);	/* keep it across exec */
	if (dup2(from, to) != to)
		return -1;
	return close(from);
}

int
main(int argc, char **argv)
{
	char *const pargv[] = { (char *)"plugin", NULL };
	int in, null, st;
	pid_t pid;

	if (argc != 3) {
		fputs("usage: bare-run PLUGIN INPUT\n", stderr);
		return 125;
	}
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	in = open(argv[2], O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (null < 0 || in < 0) {
		fprintf(stderr, "bare-run: open: %s\n", strerror(errno));
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bare-run: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		/* in and null are above 2 unless stdio was closed: keep the
		 * order safe either way by lifting both out of 0..3 first. */
		if ((in = fcntl(in, F_DUPFD_CLOEXEC, 10)) < 0 ||
		    (null = fcntl(null, F_DUPFD_CLOEXEC, 10)) < 0 ||
		    move_fd(null, 0) != 0 || move_fd(in, 3) != 0)
			_exit(125);
		execv(argv[1], pargv);
		fprintf(stderr, "bare-run: exec %s: %s\n", argv[1], strerror(errno));
		_exit(125);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "bare-run: wait: %s\n", strerror(errno));
			return 125;
		}
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
