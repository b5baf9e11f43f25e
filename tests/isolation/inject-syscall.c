/* inject-syscall PID NR ARG... : make the main thread of PID (stopped in
 * a system call, as a serving console is in poll) execute one system call
 * of ours, under its own Landlock domain and seccomp filter, and print
 * what it returned (a negative errno on failure).
 *
 * Why not gdb: gdb writes the whole register file back, the extended
 * (AVX-512) state included, and on this kernel that write fails now and
 * then ("Couldn't write extended state status: Bad address"), after which
 * the process dies. This touches only the general registers.
 *
 * ARG is a number (decimal, or 0x hex, may be negative) or s:TEXT, a
 * NUL-terminated string written just below the thread's stack pointer
 * (under the red zone) for the call. Exit status: 0 when the call ran
 * (whatever it returned), 2 on usage, 3 when PID could not be driven
 * (not stopped inside a system call: try again). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#define MAX_ARGS 6
#define SCRATCH_BELOW 512	/* bytes under rsp: past the 128-byte red zone */

static int
parse_num(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 0);
	return errno == 0 && end != s && *end == '\0' ? 0 : -1;
}

/* Write len bytes at addr in the tracee, word by word. */
static int
poke(pid_t pid, unsigned long long addr, const char *buf, size_t len)
{
	for (size_t off = 0; off < len; off += sizeof(long)) {
		long word = 0;
		size_t n = len - off < sizeof(long) ? len - off : sizeof(long);

		if (n < sizeof(long)) {
			errno = 0;
			word = ptrace(PTRACE_PEEKDATA, pid, addr + off, NULL);
			if (errno != 0)
				return -1;
		}
		memcpy(&word, buf + off, n);
		if (ptrace(PTRACE_POKEDATA, pid, addr + off, word) != 0)
			return -1;
	}
	return 0;
}

static int
wait_stop(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st))
		return -1;
	return WSTOPSIG(st);
}

int
main(int argc, char **argv)
{
	struct user_regs_struct saved, regs;
	long long pidv, nr, args[MAX_ARGS] = { 0 };
	unsigned long long scratch;
	pid_t pid;
	long insn;
	int rc = 3, nargs = argc - 3;

	if (argc < 3 || nargs > MAX_ARGS || parse_num(argv[1], &pidv) != 0 ||
	    parse_num(argv[2], &nr) != 0 || pidv <= 0) {
		fprintf(stderr, "usage: inject-syscall PID NR [ARG|s:TEXT]...\n");
		return 2;
	}
	pid = (pid_t)pidv;
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) != 0) {
		perror("inject-syscall: PTRACE_SEIZE");
		return 3;
	}
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) != 0 ||
	    wait_stop(pid) < 0 ||
	    ptrace(PTRACE_GETREGS, pid, NULL, &saved) != 0) {
		perror("inject-syscall: stop");
		goto out;
	}
	/* Stopped inside a system call: rip is just past its `syscall`
	 * instruction (0f 05), which the injected call reuses. */
	errno = 0;
	insn = ptrace(PTRACE_PEEKTEXT, pid, saved.rip - 2, NULL);
	if (errno != 0 || (insn & 0xffff) != 0x050f || (long long)saved.orig_rax < 0) {
		fprintf(stderr, "inject-syscall: not stopped in a system call\n");
		goto restore;
	}
	scratch = (saved.rsp - SCRATCH_BELOW) & ~15ULL;
	for (int i = 0; i < nargs; i++) {
		const char *a = argv[3 + i];

		if (strncmp(a, "s:", 2) == 0) {
			size_t len = strlen(a + 2) + 1;

			scratch = (scratch - len) & ~15ULL;
			if (poke(pid, scratch, a + 2, len) != 0) {
				perror("inject-syscall: write");
				goto restore;
			}
			args[i] = (long long)scratch;
		} else if (parse_num(a, &args[i]) != 0) {
			fprintf(stderr, "inject-syscall: not a number\n");
			rc = 2;
			goto restore;
		}
	}
	regs = saved;
	regs.rax = (unsigned long long)nr;
	regs.orig_rax = (unsigned long long)-1;	/* no restart of the old call */
	regs.rdi = (unsigned long long)args[0];
	regs.rsi = (unsigned long long)args[1];
	regs.rdx = (unsigned long long)args[2];
	regs.r10 = (unsigned long long)args[3];
	regs.r8 = (unsigned long long)args[4];
	regs.r9 = (unsigned long long)args[5];
	regs.rip = saved.rip - 2;
	if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) != 0 ||
	    ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0 ||
	    wait_stop(pid) != SIGTRAP ||
	    ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0) {
		perror("inject-syscall: call");
		goto restore;
	}
	printf("%lld\n", (long long)regs.rax);
	rc = 0;
restore:
	/* The interrupted call is restarted as the kernel would have. */
	if (ptrace(PTRACE_SETREGS, pid, NULL, &saved) != 0) {
		perror("inject-syscall: restore");
		rc = 3;
	}
out:
	(void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return rc;
}
