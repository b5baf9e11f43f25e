/* The plugin seccomp allowlist (see plugin_filter.h).
 *
 * Boundary: together with Landlock this is what keeps a plugin from reaching
 * outside its input. Default action EPERM for everything not listed, a
 * foreign architecture's calls (i386 int 0x80, x32) included. Every
 * allowed call is listed below with the reason it is needed; calls that
 * take a target or flags carry argument filters. */
#include "sandbox/plugin_filter.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>

#include <seccomp.h>

/* A pid that cannot occur (pid_max is at most 2^22) and is unlikely to be
 * any other constant in the program; the build checks where it lands. */
#define PID_PLACEHOLDER 0x5eed1d00u

/* Calls allowed without conditions, each with its reason. */
static const struct { int nr; const char *why; } allow_plain[] = {
	{ SCMP_SYS(read), "read the input (fd 3), values (fd 6)" },
	{ SCMP_SYS(pread64), "random access to the input" },
	{ SCMP_SYS(readv), "vectored reads (musl stdio)" },
	{ SCMP_SYS(preadv), "vectored random access" },
	{ SCMP_SYS(preadv2), "vectored random access" },
	{ SCMP_SYS(write), "answer on stdout, stderr, detail on fd 7" },
	{ SCMP_SYS(writev), "vectored writes (musl stdio, Rust)" },
	{ SCMP_SYS(pwrite64), "harmless: no writable file can be opened" },
	{ SCMP_SYS(lseek), "seek in the input" },
	{ SCMP_SYS(fstat), "size of the input; path-based stat is refused" },
	{ SCMP_SYS(close), "close descriptors" },
	{ SCMP_SYS(close_range), "runtimes closing descriptors" },
	{ SCMP_SYS(dup), "duplicate own descriptors" },
	{ SCMP_SYS(dup2), "duplicate own descriptors" },
	{ SCMP_SYS(dup3), "duplicate own descriptors" },
	{ SCMP_SYS(pipe), "process-local pipes (runtimes)" },
	{ SCMP_SYS(pipe2), "process-local pipes (Go netpoll wakeup)" },
	{ SCMP_SYS(eventfd2), "process-local wakeups (Go runtime)" },
	{ SCMP_SYS(epoll_create1), "Go netpoller" },
	{ SCMP_SYS(epoll_ctl), "Go netpoller" },
	{ SCMP_SYS(epoll_wait), "Go netpoller" },
	{ SCMP_SYS(epoll_pwait), "Go netpoller" },
	{ SCMP_SYS(epoll_pwait2), "Go netpoller" },
	{ SCMP_SYS(poll), "wait on own descriptors (Rust start-up)" },
	{ SCMP_SYS(ppoll), "wait on own descriptors" },
	{ SCMP_SYS(select), "wait on own descriptors" },
	{ SCMP_SYS(pselect6), "wait on own descriptors" },
	{ SCMP_SYS(getdents64), "no directory can be opened (Landlock)" },
	{ SCMP_SYS(brk), "glibc heap" },
	{ SCMP_SYS(munmap), "memory management" },
	{ SCMP_SYS(mremap), "memory management (realloc)" },
	{ SCMP_SYS(mprotect), "memory management, guard pages, JITs" },
	{ SCMP_SYS(rt_sigaction), "install own signal handlers" },
	{ SCMP_SYS(rt_sigprocmask), "own signal mask" },
	{ SCMP_SYS(rt_sigreturn), "return from own signal handler" },
	{ SCMP_SYS(rt_sigpending), "own pending signals" },
	{ SCMP_SYS(rt_sigsuspend), "wait for own signals" },
	{ SCMP_SYS(rt_sigtimedwait), "wait for own signals" },
	{ SCMP_SYS(pause), "wait for own signals (pause())" },
	{ SCMP_SYS(sigaltstack), "signal stacks (Go, Rust)" },
	{ SCMP_SYS(futex), "threads and locks" },
	{ SCMP_SYS(set_robust_list), "glibc and Go threads" },
	{ SCMP_SYS(rseq), "glibc >= 2.35 registers rseq at start" },
	{ SCMP_SYS(set_tid_address), "libc thread start-up" },
	{ SCMP_SYS(arch_prctl), "x86-64 TLS set-up (libc start-up)" },
	{ SCMP_SYS(gettid), "own thread id (Go, Rust)" },
	{ SCMP_SYS(getpid), "own pid" },
	{ SCMP_SYS(getppid), "parent pid (no access follows from it)" },
	{ SCMP_SYS(getuid), "own credentials" },
	{ SCMP_SYS(geteuid), "own credentials" },
	{ SCMP_SYS(getgid), "own credentials" },
	{ SCMP_SYS(getegid), "own credentials" },
	{ SCMP_SYS(getpgrp), "own process group" },
	{ SCMP_SYS(sched_yield), "threads (Go scheduler)" },
	{ SCMP_SYS(getrandom), "seeding (Go, Rust hash maps)" },
	{ SCMP_SYS(gettimeofday), "time" },
	{ SCMP_SYS(time), "time" },
	{ SCMP_SYS(nanosleep), "sleeping (Go, usleep)" },
	{ SCMP_SYS(getitimer), "own timers" },
	{ SCMP_SYS(setitimer), "own timers (signal to itself)" },
	{ SCMP_SYS(alarm), "own timer (signal to itself)" },
	{ SCMP_SYS(timer_settime), "own POSIX timers" },
	{ SCMP_SYS(timer_gettime), "own POSIX timers" },
	{ SCMP_SYS(timer_getoverrun), "own POSIX timers" },
	{ SCMP_SYS(timer_delete), "own POSIX timers" },
	{ SCMP_SYS(getrusage), "own resource usage" },
	{ SCMP_SYS(times), "own CPU times" },
	{ SCMP_SYS(uname), "kernel version checks in runtimes" },
	{ SCMP_SYS(wait4), "reap own children" },
	{ SCMP_SYS(waitid), "reap own children" },
	{ SCMP_SYS(execve), "Landlock lets only the plugin's own binary run" },
	{ SCMP_SYS(exit), "thread exit" },
	{ SCMP_SYS(exit_group), "process exit" },
	{ SCMP_SYS(restart_syscall), "kernel-internal restarts" },
};

/* fcntl commands allowed. Not among them: F_SETOWN, F_SETOWN_EX, F_SETSIG
 * (signals to others through a descriptor owner), F_SETLEASE and F_NOTIFY
 * (signals and stalls on the console's files), and every record lock
 * (F_GETLK/F_SETLK/F_SETLKW and the F_OFD_* ones): a lock on fd 3 at an
 * offset of the plugin's choosing is listed in the world-readable
 * /proc/locks, a channel to any account on the machine. */
static const int fcntl_cmds[] = {
	F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC,
	F_GETPIPE_SZ,
};

/* ioctl commands allowed, compared on the low 32 bits (the kernel ignores
 * the rest; CVE-2019-10063). isatty()/line-buffering probes and
 * non-blocking flags only: no TIOCSTI, no device control. */
static const unsigned ioctl_cmds[] = {
	TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX,
};

/* prctl options allowed: naming threads (Rust names the threads it is
 * asked to), reading state. Nothing that changes dumpability, tracers or
 * filters, and not PR_SET_VMA: naming anonymous mappings is what a crash
 * collector records, and no supported runtime needs it (glibc's mapping
 * names, from 2.39, are a tunable that ignores a refusal). */
static const int prctl_opts[] = {
	PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_CAPBSET_READ,
	PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP,
};

/* madvise advice allowed: what the supported runtimes need to give memory
 * back, MADV_DONTNEED (glibc's free and thread exit, Go's scavenger, Rust
 * through glibc) and MADV_FREE (musl's mallocng, Go), and the guard-page
 * pair MADV_GUARD_INSTALL/REMOVE (102, 103: page tables of its own
 * mappings only, for libcs that guard thread stacks with them). Nothing
 * else. Not MADV_PAGEOUT or MADV_COLD: the plugin owns its binary (it runs
 * as the console account), so it could reclaim that file's page cache and
 * leave state for a later run to read back (major faults) and for the
 * console's next hash of the binary to time; not MADV_WILLNEED or
 * MADV_POPULATE_*, which load a file's pages; not MADV_HUGEPAGE or
 * MADV_COLLAPSE, which turn its binary's cache into huge pages (Go asks for
 * huge pages on its heap and carries on when refused); not MADV_MERGEABLE
 * (KSM would merge its pages with another process's: a timing channel;
 * PR_SET_MEMORY_MERGE is not among the prctl options either). Compared on
 * all 64 bits: a value with high bits set (which the kernel would truncate
 * to an int) is refused, never let through. */
static const uint64_t madvise_ok[] = { 4, 8, 102, 103 };

/* clone flags that create namespaces or hand out a pidfd. */
#define CLONE_FORBIDDEN (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | \
    CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_PIDFD)

static int
add(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned n,
    const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, action, nr, n, cmp);
}

static int
build_rules(scmp_filter_ctx ctx)
{
	size_t i;
	int r = 0;

	for (i = 0; i < sizeof(allow_plain) / sizeof(allow_plain[0]); i++)
		r |= add(ctx, SCMP_ACT_ALLOW, allow_plain[i].nr, 0, NULL);

	/* glibc treats EPERM from clone3 as fatal; ENOSYS makes it fall back to
	 * clone(2), whose flags we can inspect (clone3 passes a pointer). */
	r |= add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL);

	/* Threads only: no namespaces, and no new process, which would outlive
	 * the plugin when the console dies (the parent-death signal reaches
	 * only the direct child) and escape the wall clock. */
	struct scmp_arg_cmp clone_ok = SCMP_A0(SCMP_CMP_MASKED_EQ,
	    CLONE_FORBIDDEN | CLONE_THREAD | CLONE_VM, CLONE_THREAD | CLONE_VM);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, &clone_ok);

	/* Private mappings of any kind, shared mappings of files (the only
	 * file it holds is its input, read-only); never shared anonymous
	 * memory (a channel between processes), never MAP_GROWSDOWN (counted
	 * as stack, it escapes RLIMIT_DATA). */
	static const uint64_t mmap_ok[] = { 0, MAP_SHARED, MAP_ANONYMOUS };
	for (i = 0; i < 3; i++) {
		struct scmp_arg_cmp c = SCMP_A3(SCMP_CMP_MASKED_EQ,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN, mmap_ok[i]);
		r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, &c);
	}

	/* A plugin has nothing to open: its input is fd 3. Every open answers
	 * the same EACCES whatever the path, so the error cannot tell which
	 * paths exist (Landlock refuses only after the lookup: ENOENT for a
	 * missing path, EACCES for an existing one). Landlock still covers
	 * any path a future rule change would let through. */
	r |= add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 0, NULL);
	r |= add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 0, NULL);
	r |= add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(creat), 0, NULL);
	r |= add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat2), 0, NULL);

	/* Clocks: the standard ones only (0..CLOCK_TAI). A negative id names
	 * another process's CPU clock (the console's, pid 1's...). */
	struct scmp_arg_cmp clk = SCMP_A0(SCMP_CMP_LE, CLOCK_TAI);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clock_gettime), 1, &clk);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clock_getres), 1, &clk);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clock_nanosleep), 1, &clk);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(timer_create), 1, &clk);

	for (i = 0; i < sizeof(fcntl_cmds) / sizeof(fcntl_cmds[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_EQ,
		    (uint64_t)fcntl_cmds[i]);
		r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1, &c);
	}
	for (i = 0; i < sizeof(ioctl_cmds) / sizeof(ioctl_cmds[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
		    ioctl_cmds[i]);
		r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, &c);
	}
	for (i = 0; i < sizeof(madvise_ok) / sizeof(madvise_ok[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A2(SCMP_CMP_EQ, madvise_ok[i]);
		r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(madvise), 1, &c);
	}
	for (i = 0; i < sizeof(prctl_opts) / sizeof(prctl_opts[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_EQ,
		    (uint64_t)prctl_opts[i]);
		r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, &c);
	}

	/* Resource limits of itself only (pid 0), and read only (no new
	 * limit): another process of the same account must not be touched,
	 * and a limit may not even be lowered: RLIMIT_CORE at 0 instead of the
	 * sandbox's 1 would hand a crash to a piped core_pattern (spawn.c). */
	struct scmp_arg_cmp self0 = SCMP_A0(SCMP_CMP_EQ, 0);
	struct scmp_arg_cmp read_only[2] = { SCMP_A0(SCMP_CMP_EQ, 0),
	    SCMP_A2(SCMP_CMP_EQ, 0) };
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, read_only);
	/* CPU count (Go, Rust, glibc sysconf): of itself only; another pid
	 * would probe which processes exist. */
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sched_getaffinity), 1, &self0);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(getrlimit), 0, NULL);

	/* Signals only at itself: the first argument must be its own pid
	 * (patched in per child). Go preempts its threads with tgkill(getpid()
	 * ...); abort() raises through tgkill. */
	struct scmp_arg_cmp me = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu,
	    PID_PLACEHOLDER);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, &me);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tkill), 1, &me);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, &me);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigqueueinfo), 1, &me);
	r |= add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_tgsigqueueinfo), 1, &me);

	return r;
}

/* Everything below is refused by the default action (EPERM); named here
 * so that a reader sees the refusals docs/sandbox.md lists are deliberate.
 * socket socketpair connect bind listen accept accept4 sendto recvfrom
 * sendmsg recvmsg ptrace process_vm_readv process_vm_writev mount umount2
 * pivot_root chroot bpf keyctl add_key request_key execveat memfd_create
 * memfd_secret shmget shmat shmctl shmdt semget semop semtimedop semctl
 * msgget msgsnd msgrcv msgctl mq_open mq_unlink mq_timedsend
 * mq_timedreceive mq_notify mq_getsetattr io_uring_setup io_uring_enter
 * io_uring_register io_setup io_submit userfaultfd perf_event_open
 * pidfd_open pidfd_send_signal pidfd_getfd unshare setns personality
 * inotify_init inotify_init1 inotify_add_watch fanotify_init fanotify_mark
 * stat lstat newfstatat statx access faccessat faccessat2 readlink
 * readlinkat chdir fchdir getcwd setsid setpgid name_to_handle_at
 * open_by_handle_at kcmp seccomp landlock_* fork vfork mincore
 * sysinfo setrlimit flock get_robust_list; prlimit64 with a new limit;
 * prctl(PR_SET_VMA); madvise but DONTNEED, FREE and the guards. */

/* The execve the sandbox itself makes, from a known instruction. The
 * label marks the address after the syscall instruction, which is what
 * seccomp reports as the instruction pointer. */
#if !defined(__x86_64__)
#error "plugin_exec is written for x86-64"
#endif
extern const char lf_plugin_execve_ret[];

/* One copy of the function, so one label: never inlined, never cloned. */
#if defined(__clang__)
#define ONE_COPY __attribute__((noinline))
#else
#define ONE_COPY __attribute__((noinline, noclone))
#endif

/* Two key words as one 64-bit register value (hi in the upper half). */
static inline long
key_pair(uint32_t hi, uint32_t lo)
{
	uint64_t v = hi;

	return (long)(v << 32 | lo);
}

ONE_COPY long
plugin_exec(const char *path, char *const argv[], char *const envp[],
    const uint32_t key[EXEC_KEY_WORDS])
{
	/* Computed first: nothing (no call, no checked load) may run between
	 * the register variables' assignments and the asm. */
	long k10 = key_pair(key[1], key[0]), k8 = key_pair(key[3], key[2]);
	register long r10 __asm__("r10") = k10;
	register long r8 __asm__("r8") = k8;
	long ret;

	__asm__ volatile("syscall\n\t"
	    ".globl lf_plugin_execve_ret\n"
	    "lf_plugin_execve_ret:"
	    : "=a"(ret)
	    : "0"((long)SYS_execve), "D"(path), "S"(argv), "d"(envp),
	      "r"(r10), "r"(r8)
	    : "rcx", "r11", "memory");
	return ret;
}

#define ARG_LO(n) (offsetof(struct seccomp_data, args) + (n) * 8)
#define ARG_HI(n) (ARG_LO(n) + 4)

/* The exec guard, the head of the one program loaded: execve passes only
 * from plugin_exec()'s syscall instruction with the run's key in r10/r8
 * (args 3 and 4); everything else, and an execve that passes, continues
 * into the allowlist (instruction GUARD_LEN, the first of libseccomp's
 * program), which decides as for any call. One program, not two: each
 * attach costs a JIT and the kernel's action-cache emulation. */
#define GUARD_LEN 17

/* Instructions of the guard whose constant is a word of the key. */
static const size_t key_slots[EXEC_KEY_WORDS] = { 9, 11, 13, 15 };

static void
build_exec_guard(struct sock_filter out[GUARD_LEN])
{
	uint64_t ip = (uint64_t)(uintptr_t)lf_plugin_execve_ret;
	/* Jumps are relative: DENY is instruction 16, the allowlist starts at
	 * 17. The key words are zero here and patched in each child. */
	const struct sock_filter g[GUARD_LEN] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 15),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 0, 13),
		/* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, instruction_pointer)),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ip, 0, 10),
		/* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, instruction_pointer) + 4),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(ip >> 32), 0, 8),
		/* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3)),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 6),
		/* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(3)),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 4),
		/* 12 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(4)),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
		/* 14 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(4)),
		/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		/* 16 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
	};

	memcpy(out, g, sizeof(g));
}

int
plugin_filter_build(struct bpf_program *prog, const char **why)
{
	scmp_filter_ctx ctx = NULL;
	char *data = NULL;
	size_t size = 0, i, n;
	int ret = -1, fd = -1;

	memset(prog, 0, sizeof(*prog));
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (ctx == NULL) {
		*why = "seccomp_init failed";
		goto out;
	}
	/* A binary tree sorted by syscall number, not libseccomp's default
	 * linear chain: at attach the kernel emulates the filter for every
	 * syscall number (its action cache) with interrupts off, which for a
	 * chain of ~190 instructions cost more than the rest of the spawn; a
	 * tree also makes each of the plugin's calls cheaper. */
	/* A foreign architecture's call (i386 int 0x80, x32) is refused like
	 * any other, never a kill: the kernel logs a seccomp kill with the
	 * call's number and instruction pointer, both the plugin's choice,
	 * for whoever reads the kernel log (docs/sandbox.md). */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_ERRNO(EPERM)) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) != 0) {
		*why = "seccomp attributes refused";
		goto out;
	}
	if (build_rules(ctx) != 0) {
		*why = "seccomp rule refused by libseccomp";
		goto out;
	}
	/* libseccomp 2.5 exports only to an fd: use a memfd in the parent. */
	fd = memfd_create("lockfile-bpf", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) != 0) {
		*why = "seccomp export failed";
		goto out;
	}
	off_t end = lseek(fd, 0, SEEK_END);
	if (end <= 0 || end % (off_t)sizeof(struct sock_filter) != 0 ||
	    end > (off_t)(4096 * sizeof(struct sock_filter))) {
		*why = "seccomp export has an unexpected size";
		goto out;
	}
	size = (size_t)end;
	data = xmalloc(GUARD_LEN * sizeof(struct sock_filter) + size);
	if (pread(fd, data + GUARD_LEN * sizeof(struct sock_filter), size, 0) !=
	    (ssize_t)size) {
		*why = "seccomp export unreadable";
		goto out;
	}
	prog->insns = (struct sock_filter *)(void *)data;
	prog->len = GUARD_LEN + size / sizeof(struct sock_filter);
	data = NULL;
	build_exec_guard(prog->insns);

	/* The pid slots are in libseccomp's part only (a word of the guard's
	 * address could equal the placeholder). */
	for (i = GUARD_LEN, n = 0; i < prog->len; i++)
		if (prog->insns[i].k == PID_PLACEHOLDER)
			n++;
	prog->pid_slots = xcalloc(n ? n : 1, sizeof(size_t));
	for (i = GUARD_LEN; i < prog->len; i++) {
		struct sock_filter *f = &prog->insns[i];
		if (f->k != PID_PLACEHOLDER)
			continue;
		/* The placeholder must only ever be a comparison constant. */
		if (BPF_CLASS(f->code) != BPF_JMP || BPF_SRC(f->code) != BPF_K) {
			*why = "seccomp pid placeholder in an unexpected place";
			goto out;
		}
		prog->pid_slots[prog->npid_slots++] = i;
	}
	if (prog->npid_slots < 1) {
		*why = "seccomp pid rules missing from the program";
		goto out;
	}
	ret = 0;
out:
	if (ret != 0)
		plugin_filter_free(prog);
	free(data);
	if (fd >= 0)
		close(fd);
	if (ctx != NULL)
		seccomp_release(ctx);
	return ret;
}

void
plugin_filter_free(struct bpf_program *prog)
{
	free(prog->insns);
	free(prog->pid_slots);
	memset(prog, 0, sizeof(*prog));
}

int
plugin_filter_load(struct bpf_program *prog, pid_t self,
    const uint32_t key[EXEC_KEY_WORDS])
{
	struct sock_fprog fp;
	size_t i;

	for (i = 0; i < prog->npid_slots; i++)
		prog->insns[prog->pid_slots[i]].k = (uint32_t)self;
	for (i = 0; i < EXEC_KEY_WORDS; i++)
		prog->insns[key_slots[i]].k = key[i];
	fp.len = (unsigned short)prog->len;
	fp.filter = prog->insns;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}
