/* The console's own seccomp allowlist (see confine.h).
 *
 * Boundary: what a bug in the console could reach outside the paths
 * Landlock leaves it. Default EPERM (the code handles a refused call as an
 * error); a foreign architecture kills the process. The list is the
 * console's own calls plus everything its children do before and after
 * exec, since the plugins (under their narrower filter, plugin_filter.c)
 * and the parser worker (a fresh exec of our binary, then its own filter)
 * inherit this one: a call refused here is refused to them too. So the
 * plugin allowlist must stay a subset of this one, with one deliberate
 * narrowing: no executable anonymous memory for anyone (tests/isolation
 * runs the official and contract plugins under it). */
#include "config.h"
#include "console/confine.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <termios.h>

#include <seccomp.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
#define LF_PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5)

/* Allowed without conditions. Paths are Landlock's business; targets of
 * signals are the Landlock scope's (ABI >= 6). */
static const int allow_plain[] = {
	/* descriptors and files */
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(pread64), SCMP_SYS(pwrite64), SCMP_SYS(preadv),
	SCMP_SYS(preadv2), SCMP_SYS(pwritev), SCMP_SYS(pwritev2),
	SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(close_range), SCMP_SYS(dup),
	SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(open), SCMP_SYS(openat),
	SCMP_SYS(openat2), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
	SCMP_SYS(statx), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(statfs),
	SCMP_SYS(fstatfs), SCMP_SYS(readlink), SCMP_SYS(readlinkat),
	SCMP_SYS(fgetxattr),	/* the local source's ACL check (local.h) */
	SCMP_SYS(getdents), SCMP_SYS(getdents64), SCMP_SYS(access),
	SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(getcwd),
	SCMP_SYS(chdir),
	SCMP_SYS(fchdir), SCMP_SYS(mkdir), SCMP_SYS(mkdirat),
	SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rmdir),
	/* the ledger's compaction, in its own directory (Landlock); glibc
	 * makes renameat2 without flags a renameat */
	SCMP_SYS(renameat), SCMP_SYS(renameat2),
	SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(fsync),
	SCMP_SYS(fdatasync), SCMP_SYS(fadvise64), SCMP_SYS(flock),
	SCMP_SYS(sendfile), SCMP_SYS(copy_file_range), SCMP_SYS(splice),
	SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(eventfd2),
	SCMP_SYS(signalfd4),
	/* waiting */
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
	SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2),
	/* the socket (accepted connections, the parser pair) */
	SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(recvfrom),
	SCMP_SYS(sendto), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg),
	SCMP_SYS(getsockopt), SCMP_SYS(setsockopt), SCMP_SYS(shutdown),
	SCMP_SYS(getsockname), SCMP_SYS(getpeername),
	/* memory (mmap and mprotect are filtered below) */
	SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
	SCMP_SYS(mlock), SCMP_SYS(mlock2), SCMP_SYS(munlock),
	/* signals */
	SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigpending),
	SCMP_SYS(rt_sigsuspend), SCMP_SYS(rt_sigtimedwait),
	SCMP_SYS(sigaltstack), SCMP_SYS(kill), SCMP_SYS(tkill),
	SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
	SCMP_SYS(rt_tgsigqueueinfo),
	/* processes: plugins and the parser worker */
	SCMP_SYS(wait4), SCMP_SYS(waitid), SCMP_SYS(pidfd_open),
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(setsid),
	SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(restart_syscall),
	SCMP_SYS(getrlimit), SCMP_SYS(setrlimit),
	/* a child confines itself: these only ever narrow */
	SCMP_SYS(landlock_create_ruleset), SCMP_SYS(landlock_add_rule),
	SCMP_SYS(landlock_restrict_self), SCMP_SYS(seccomp),
	/* threads, runtimes, libc start-up (also the plugins') */
	SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list),
	SCMP_SYS(rseq), SCMP_SYS(set_tid_address), SCMP_SYS(arch_prctl),
	SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_yield),
	/* identity and time */
	SCMP_SYS(getpid), SCMP_SYS(getppid), SCMP_SYS(gettid),
	SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
	SCMP_SYS(getegid), SCMP_SYS(getresuid), SCMP_SYS(getresgid),
	SCMP_SYS(getgroups), SCMP_SYS(getpgrp), SCMP_SYS(getpgid),
	SCMP_SYS(getsid), SCMP_SYS(getrandom), SCMP_SYS(clock_gettime),
	SCMP_SYS(clock_getres), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
	SCMP_SYS(gettimeofday), SCMP_SYS(time), SCMP_SYS(getitimer),
	SCMP_SYS(setitimer), SCMP_SYS(alarm), SCMP_SYS(timer_create),
	SCMP_SYS(timer_settime), SCMP_SYS(timer_gettime),
	SCMP_SYS(timer_getoverrun), SCMP_SYS(timer_delete),
	SCMP_SYS(getrusage), SCMP_SYS(times), SCMP_SYS(uname),
	SCMP_SYS(sysinfo),
};

static const int fcntl_cmds[] = {
	F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK,
	F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW,
	F_GETPIPE_SZ, F_SETPIPE_SZ,
};

/* Terminal state of its own terminal, which terminal it is (TIOCGDEV:
 * the terminal checks before each card, term/human.h), non-blocking flags,
 * the pidfd namespace query of the isolation checks. No TIOCSTI, no
 * TIOCSETD. */
static const unsigned long ioctl_cmds[] = {
	TCGETS, TCSETS, TCSETSW, TCSETSF, TCFLSH, TIOCGWINSZ, TIOCGPGRP,
	TIOCGDEV, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, LF_PIDFD_GET_PID_NAMESPACE,
};

static const int prctl_opts[] = {
	PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_SET_NO_NEW_PRIVS,
	PR_GET_NO_NEW_PRIVS, PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE,
	PR_CAPBSET_READ, PR_GET_SECCOMP, PR_SET_VMA, PR_GET_CHILD_SUBREAPER,
#if LOCKFILE_SANITIZED
	/* LeakSanitizer: its tracer, and the process made dumpable while it
	 * stops the world (else /proc refuses the tracer under hidepid) */
	PR_SET_PTRACER, PR_SET_DUMPABLE,
#endif
};

#define CLONE_FORBIDDEN (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | \
    CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
    CLONE_NEWTIME | CLONE_PIDFD)

static int
rule(scmp_filter_ctx ctx, uint32_t act, int nr, unsigned n,
    const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, act, nr, n, cmp);
}

static int
build(scmp_filter_ctx ctx, int network)
{
	size_t i;
	int r = 0;

	for (i = 0; i < sizeof(allow_plain) / sizeof(allow_plain[0]); i++)
		r |= rule(ctx, SCMP_ACT_ALLOW, allow_plain[i], 0, NULL);

	/* glibc falls back to clone(2), whose flags can be inspected. */
	r |= rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL);
	struct scmp_arg_cmp clone_ok = SCMP_A0(SCMP_CMP_MASKED_EQ,
	    CLONE_FORBIDDEN, 0);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, &clone_ok);

#if LOCKFILE_SANITIZED
	/* The sanitizer runtime: LeakSanitizer stops the world with ptrace
	 * on its own threads at exit; shadow memory and its allocator map
	 * freely. Production builds never get these. */
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ptrace), 0, NULL);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 0, NULL);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 0, NULL);
#else
	/* No executable anonymous memory. Executable file mappings are what
	 * the dynamic loader does after the worker's exec; which files can be
	 * opened at all is Landlock's. */
	struct scmp_arg_cmp noexec = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
	struct scmp_arg_cmp filexec[2] = {
		SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC),
		SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, 0),
	};
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, &noexec);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 2, filexec);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, &noexec);
#endif

	for (i = 0; i < sizeof(fcntl_cmds) / sizeof(fcntl_cmds[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_EQ,
		    (uint64_t)fcntl_cmds[i]);
		r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1, &c);
	}
	/* ioctl commands on their low 32 bits (the kernel ignores the rest;
	 * CVE-2019-10063). */
	for (i = 0; i < sizeof(ioctl_cmds) / sizeof(ioctl_cmds[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
		    ioctl_cmds[i] & 0xffffffffu);
		r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, &c);
	}
	for (i = 0; i < sizeof(prctl_opts) / sizeof(prctl_opts[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_EQ,
		    (uint64_t)prctl_opts[i]);
		r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, &c);
	}
	/* Non-dumpable only (the parser worker sets it again). */
	struct scmp_arg_cmp dump[2] = {
		SCMP_A0(SCMP_CMP_EQ, PR_SET_DUMPABLE), SCMP_A1(SCMP_CMP_EQ, 0),
	};
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 2, dump);

	/* Limits of itself (and, in a child, of the child) only. */
	struct scmp_arg_cmp self = SCMP_A0(SCMP_CMP_EQ, 0);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, &self);

	/* The calling thread's own nice value only (the workspace's deleter
	 * lowers its own; raising it needs RLIMIT_NICE, which is 0). */
	struct scmp_arg_cmp own_nice[2] = {
		SCMP_A0(SCMP_CMP_EQ, PRIO_PROCESS), SCMP_A1(SCMP_CMP_EQ, 0),
	};
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(setpriority), 2, own_nice);

	/* Never open a file to group or others (ws_commit makes a spool file
	 * 0400; nothing else changes modes after start). */
	struct scmp_arg_cmp m1 = SCMP_A1(SCMP_CMP_MASKED_EQ, 077, 0);
	struct scmp_arg_cmp m2 = SCMP_A2(SCMP_CMP_MASKED_EQ, 077, 0);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(chmod), 1, &m1);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fchmod), 1, &m1);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fchmodat), 1, &m2);

	/* Sockets: the parser worker's pair; inet and netlink (the resolver)
	 * only for network profiles, and sendmmsg: glibc's stub resolver
	 * sends a lookup's A and AAAA queries in one call (res_send.c) and
	 * fails the lookup when it is refused; it reads the answers with
	 * recvfrom. A pathname Unix socket is never opened: Landlock does not
	 * cover connect() to one before ABI 9 (docs/isolation.md). */
	struct scmp_arg_cmp unix_only = SCMP_A0(SCMP_CMP_EQ, AF_UNIX);
	r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 1, &unix_only);
	if (network) {
		static const int fams[] = { AF_INET, AF_INET6, AF_NETLINK };
		for (i = 0; i < 3; i++) {
			struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_EQ,
			    (uint64_t)fams[i]);
			r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, &c);
		}
		r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(connect), 0, NULL);
		r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(bind), 0, NULL);
		r |= rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendmmsg), 0, NULL);
	}
	return r;
}

int
confine_filter_load(int network, const char **why)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int ret = -1;

	if (ctx == NULL) {
		*why = "seccomp_init failed";
		return -1;
	}
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0) {
		*why = "seccomp attributes refused";
		goto out;
	}
	if (build(ctx, network) != 0) {
		*why = "seccomp rule refused by libseccomp";
		goto out;
	}
	if (seccomp_load(ctx) != 0) {
		*why = "the console's seccomp filter could not be loaded";
		goto out;
	}
	ret = 0;
out:
	seccomp_release(ctx);
	return ret;
}
