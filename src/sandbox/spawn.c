/* Spawning a plugin in the sandbox and supervising it (see sandbox.h).
 *
 * The child sets up, in this order: parent-death signal, its own session,
 * the descriptor layout, cwd "/", rlimits, no_new_privs, Landlock, seccomp,
 * exec from the verified binary fd. Any failure before exec is reported on a
 * close-on-exec status pipe and the child exits: nothing runs half-confined.
 * The parent never blocks on any of the plugin's pipes: all are drained
 * non-blocking under one poll with the wall-clock deadline. */
#include "sandbox/sandbox.h"
#include "sandbox/landlock_abi.h"
#include "host/proc.h"
#include "lib/clock.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* Descriptor layout inside the plugin (include/lockfile/plugin.h). */
enum {
	FD_IN = LF_PLUGIN_FD_INPUT,
	FD_VALUES = LF_PLUGIN_FD_VALUES,
	FD_DETAIL = LF_PLUGIN_FD_DETAIL,
	FD_NTARGET = LF_PLUGIN_FD_COUNT,
};
_Static_assert(LF_PLUGIN_MAX_INPUTS *
    (LF_PLUGIN_VALUE_LEN_BYTES + LF_PLUGIN_VALUE_MAX) <= LF_PLUGIN_VALUES_MAX,
    "every declared value at its ceiling fits the fd 6 stream");

/* Failure stages reported by the child. */
enum child_stage {
	ST_PDEATH = 1, ST_SETSID, ST_FDS, ST_CHDIR, ST_RLIMIT, ST_NNP,
	ST_LANDLOCK, ST_SECCOMP, ST_EXEC,
};

struct child_report {
	int stage;
	int err;
};

int
sandbox_open(struct sandbox *sb)
{
	const char *why = NULL;

	memset(sb, 0, sizeof(*sb));
	sb->sink = -1;
	if (geteuid() == 0 || getuid() == 0) {
		sb->why = "refusing to run plugins as root";
		return -1;
	}
	if (landlock_probe(&sb->ll, &why) != 0) {
		sb->why = why;
		return -1;
	}
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		sb->why = "seccomp is not supported by this kernel";
		return -1;
	}
	if (plugin_filter_build(&sb->bpf, &why) != 0) {
		sb->why = why;
		return -1;
	}
	/* The parent's own drain for stderr; never given to a plugin. */
	sb->sink = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (sb->sink < 0) {
		sb->why = "cannot open /dev/null";
		goto fail;
	}
	/* Orphans of a plugin's process group come back to us to be reaped. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
		sb->why = "cannot become a child subreaper";
		goto fail;
	}
	if (sandbox_refresh_nproc(sb) != 0) {
		sb->why = "cannot count the account's tasks";
		goto fail;
	}
	/* RLIMIT_CORE 1, not 0: no file core fits in a byte, and a piped
	 * core_pattern, which ignores the limit, is skipped for exactly 1.
	 * 0 only when our own hard limit is 0 (it cannot be raised). */
	{
		struct rlimit rl;
		sb->core = getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_max >= 1;
	}
	sb->ready = 1;
	return 0;
fail:
	sandbox_close(sb);
	return -1;
}

void
sandbox_close(struct sandbox *sb)
{
	const char *why = sb->why;

	plugin_filter_free(&sb->bpf);
	if (sb->sink >= 0)
		close(sb->sink);
	memset(sb, 0, sizeof(*sb));
	sb->sink = -1;
	sb->why = why ? why : "sandbox closed";
}

/* RLIMIT_NPROC counts tasks (threads included) by real uid: count ours from
 * every /proc/PID/status the kernel shows us, through the one status reader
 * (host/proc.h: one read() each, not stdio: this walk is most of what
 * `lockfile sandbox-run` costs, bench/README.md). */
int
sandbox_refresh_nproc(struct sandbox *sb)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	uid_t me = getuid();
	unsigned long long tasks = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char path[64];
		struct proc_status ps;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (str_fmt(path, sizeof(path), "%.20s/status", de->d_name) !=
		    STR_OK)
			continue;
		/* Exited meanwhile or unreadable: not ours. No Threads: line
		 * (past a cut): one task. */
		if (proc_status_readat(dirfd(d), path, &ps) != 0 ||
		    ps.uid[0] != (unsigned long long)me)
			continue;
		tasks += ps.threads > 0 ? (unsigned long long)ps.threads : 1;
	}
	closedir(d);
	sb->nproc = (rlim_t)(tasks + SANDBOX_NPROC_HEADROOM);
	return 0;
}

static void __attribute__((noreturn))
child_fail(int statusfd, int stage)
{
	struct child_report r = { stage, errno };

	(void)!write(statusfd, &r, sizeof(r));
	_exit(127);
}

/* Child-safe: the plugin starts with every signal at its default and none
 * blocked, whatever its launcher ignores or blocks (the console ignores
 * SIGPIPE and blocks the signals its signalfd reads; both survive exec). */
static void
reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &sa, NULL);	/* EINVAL for libc's own */
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
}

/* "/proc/self/fd/N" without stdio (child-safe). */
static void
fd_path(char out[32], int fd)
{
	static const char pre[] = "/proc/self/fd/";
	char digits[12];
	int n = 0, i;

	memcpy(out, pre, sizeof(pre) - 1);
	do {
		digits[n++] = (char)('0' + fd % 10);
		fd /= 10;
	} while (fd > 0 && n < 11);
	for (i = 0; i < n; i++)
		out[sizeof(pre) - 1 + i] = digits[n - 1 - i];
	out[sizeof(pre) - 1 + n] = '\0';
}

static int
set_limit(int res, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };

	return setrlimit(res, &rl);
}

/* Runs in the child between fork and exec: system calls only, no
 * allocation, no stdio. */
static void __attribute__((noreturn))
child_main(struct sandbox *sb, const struct plugin_run *run, pid_t parent,
    int src[FD_NTARGET], int statusfd)
{
	int hi[FD_NTARGET], bin_hi, st_hi, i;
	char exe[32];
	uint32_t key[EXEC_KEY_WORDS];
	char *const argv[] = { (char *)run->argv0, NULL };
	char *const envp[] = { NULL };
	const struct plugin_limits *lim = &run->limits;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		child_fail(statusfd, ST_PDEATH);
	if (getppid() != parent)
		_exit(127);	/* the parent is already gone */
	/* No controlling terminal: TIOCSTI works on this kernel. */
	if (setsid() < 0)
		child_fail(statusfd, ST_SETSID);
	reset_signals();

	/* Move every source above the target range first, so no dup2 can
	 * clobber a source that happens to sit on a target number. */
	st_hi = fcntl(statusfd, F_DUPFD_CLOEXEC, 64);
	if (st_hi < 0)
		child_fail(statusfd, ST_FDS);
	statusfd = st_hi;
	bin_hi = fcntl(run->binfd, F_DUPFD_CLOEXEC, 64);
	if (bin_hi < 0)
		child_fail(statusfd, ST_FDS);
	for (i = 0; i < FD_NTARGET; i++) {
		hi[i] = -1;
		if (src[i] >= 0 && (hi[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 64)) < 0)
			child_fail(statusfd, ST_FDS);
	}
	for (i = 0; i < FD_NTARGET; i++) {
		if (hi[i] < 0)
			continue;
		if (dup2(hi[i], i) != i)
			child_fail(statusfd, ST_FDS);
	}
	/* Close everything but the targets and the two close-on-exec fds. */
	for (i = 0; i < FD_NTARGET; i++)
		if (hi[i] < 0)
			(void)close(i);
	{
		int a = bin_hi < st_hi ? bin_hi : st_hi;
		int b = bin_hi < st_hi ? st_hi : bin_hi;
		if ((a > FD_NTARGET &&
		    syscall(SYS_close_range, FD_NTARGET, a - 1, 0) != 0) ||
		    (b > a + 1 && syscall(SYS_close_range, a + 1, b - 1, 0) != 0) ||
		    syscall(SYS_close_range, b + 1, ~0U, 0) != 0)
			child_fail(statusfd, ST_FDS);
	}

	if (chdir("/") != 0)
		child_fail(statusfd, ST_CHDIR);

	if (set_limit(RLIMIT_CPU, lim->cpu_s, lim->cpu_s + 1) != 0 ||
	    set_limit(RLIMIT_DATA, lim->memory_bytes, lim->memory_bytes) != 0 ||
	    set_limit(RLIMIT_AS, lim->memory_bytes + LF_PLUGIN_AS_EXTRA,
	    lim->memory_bytes + LF_PLUGIN_AS_EXTRA) != 0 ||
	    set_limit(RLIMIT_STACK, LF_PLUGIN_STACK_BYTES,
	    LF_PLUGIN_STACK_BYTES) != 0 ||
	    set_limit(RLIMIT_NPROC, sb->nproc, sb->nproc) != 0 ||
	    set_limit(RLIMIT_CORE, sb->core, sb->core) != 0 ||
	    set_limit(RLIMIT_FSIZE, 0, 0) != 0 ||
	    set_limit(RLIMIT_NOFILE, LF_PLUGIN_NOFILE, LF_PLUGIN_NOFILE) != 0 ||
	    set_limit(RLIMIT_MEMLOCK, 0, 0) != 0 ||
	    set_limit(RLIMIT_MSGQUEUE, 0, 0) != 0)
		child_fail(statusfd, ST_RLIMIT);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		child_fail(statusfd, ST_NNP);

	{
		int rs = landlock_ruleset_create(&sb->ll);
		if (rs < 0 ||
		    landlock_allow_fd(rs, &sb->ll, bin_hi,
		    LF_FS_EXECUTE | LF_FS_READ_FILE) != 0 ||
		    landlock_enforce(rs, &sb->ll) != 0)
			child_fail(statusfd, ST_LANDLOCK);
	}

	/* The exec below goes through /proc/self/fd: execveat is refused by the
	 * filter, and Landlock checks the re-opened binary either way. */
	fd_path(exe, bin_hi);
	/* The exec guard's key, drawn here so that no other process ever
	 * holds it; the exec replaces this memory (plugin_filter.h). */
	if (syscall(SYS_getrandom, key, sizeof(key), 0) != (long)sizeof(key))
		child_fail(statusfd, ST_SECCOMP);
	if (plugin_filter_load(&sb->bpf, getpid(), key) != 0)
		child_fail(statusfd, ST_SECCOMP);
	errno = (int)-plugin_exec(exe, argv, envp, key);
	child_fail(statusfd, ST_EXEC);
}

static void
kill_group(pid_t pgid)
{
	(void)kill(-pgid, SIGKILL);
}

/* Kill and reap every process left in the group (a plugin may fork; its
 * orphans come back to us as the subreaper). Bounded in time. */
static void
reap_group(pid_t pgid)
{
	long long deadline = now_ms() + 5000;

	for (;;) {
		int st;
		pid_t p;

		kill_group(pgid);
		while ((p = waitpid(-pgid, &st, WNOHANG)) > 0)
			;
		if (kill(-pgid, 0) != 0 && errno == ESRCH)
			return;
		if (now_ms() > deadline) {
			logit("plugin process group %d did not go away", (int)pgid);
			return;
		}
		usleep(1000);
	}
}

/* Drain a pipe without blocking. Returns 1 at EOF, 0 when it would block. */
static int
drain_count(int fd, int sink, unsigned long long *count)
{
	for (;;) {
		ssize_t n = splice(fd, NULL, sink, NULL, 1 << 20,
		    SPLICE_F_NONBLOCK);
		if (n > 0) {
			*count += (unsigned long long)n;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return 0;
		/* splice unsupported for some reason: read and discard. */
		char tmp[4096];
		n = read(fd, tmp, sizeof(tmp));
		if (n > 0) {
			*count += (unsigned long long)n;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : 1;
	}
}

/* Read into a capped buffer; bytes past the cap are counted in *over and
 * discarded. Returns 1 at EOF, 0 when it would block. */
static int
drain_capped(int fd, char *buf, size_t cap, size_t *len, size_t *over)
{
	for (;;) {
		char tmp[512];
		ssize_t n = read(fd, tmp, sizeof(tmp));
		if (n > 0) {
			size_t take = cap - *len < (size_t)n ? cap - *len : (size_t)n;
			memcpy(buf + *len, tmp, take);
			*len += take;
			*over += (size_t)n - take;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : 1;
	}
}

static enum outcome
classify(const char *out, size_t outlen, size_t overflow, int status,
    int timed_out, long long cpu_ms, unsigned cpu_s)
{
	if (timed_out)
		return OUT_WALL_TIMEOUT;
	if (overflow > 0 || outlen > LF_PLUGIN_ANSWER_MAX)
		return OUT_OUTPUT_OVERFLOW;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		if (sig == SIGXCPU ||
		    (sig == SIGKILL && cpu_ms + 50 >= (long long)cpu_s * 1000))
			return OUT_CPU_LIMIT;
		return OUT_SIGNALED;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return OUT_EXIT_NONZERO;
	if ((outlen == 1 || (outlen == 2 && out[1] == '\n')) &&
	    (out[0] == '1' || out[0] == '0'))
		return out[0] == '1' ? OUT_ANSWER_1 : OUT_ANSWER_0;
	return OUT_BAD_OUTPUT;
}

static void
close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

/* One run, from open to collect (sandbox_run): every descriptor the parent
 * holds for it and where the supervision stands. Each descriptor is -1
 * when not held, so run_close closes exactly what was opened, whichever
 * step stopped (bubblewrap's discipline). */
struct run_io {
	int input, devnull;	/* the plugin's fds 3 and 0, its own descriptions */
	int outp[2], errp[2], stp[2], valp[2], detp[2];
	int pidfd;
	pid_t pid;
	long long start, deadline;
	int out_eof, err_eof, det_eof, exited, timed_out, broken;
	char out[LF_PLUGIN_ANSWER_MAX + 1];
	size_t outlen, overflow, detover, valoff;
};

static void
run_io_init(struct run_io *io)
{
	memset(io, 0, sizeof(*io));
	io->input = io->devnull = io->pidfd = -1;
	io->outp[0] = io->outp[1] = io->errp[0] = io->errp[1] = -1;
	io->stp[0] = io->stp[1] = io->valp[0] = io->valp[1] = -1;
	io->detp[0] = io->detp[1] = -1;
	io->det_eof = 1;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void
run_close(struct run_io *io)
{
	close_fd(&io->input);
	close_fd(&io->devnull);
	close_fd(&io->pidfd);
	close_pair(io->outp);
	close_pair(io->errp);
	close_pair(io->stp);
	close_pair(io->valp);
	close_pair(io->detp);
	explicit_bzero(io->out, sizeof(io->out));
}

/* Open: the plugin's own input and stdin descriptions and the pipes. A
 * caller's mistake is fatal; anything else failing here (out of
 * descriptors or memory) is the console's failure, not the plugin's
 * answer: -1 with OUT_SANDBOX_UNAVAILABLE, which the console turns into a
 * refusal. Nothing here ends the console. */
static int
run_open(const struct plugin_run *run, struct run_io *io)
{
	int fl;

	if (run->protocol != LF_PLUGIN_PROTOCOL_1 &&
	    run->protocol != LF_PLUGIN_PROTOCOL_2)
		fatal("sandbox_run: protocol %d", run->protocol);
	if (run->values_len > LF_PLUGIN_VALUES_MAX)
		fatal("sandbox_run: values too large");
	fl = fcntl(run->inputfd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != O_RDONLY)
		fatal("sandbox_run: input fd is not read-only");
	/* A fresh open file description for every run: a plugin's seek or
	 * status flags must not carry over to the caller or the next run. */
	io->input = fd_reopen(run->inputfd, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (io->input < 0) {
		logit_errno("reopening the input");
		return -1;
	}
	/* stdin too: one /dev/null description for every run would carry a
	 * plugin's F_SETFL (O_NONBLOCK, O_APPEND: 2 bits of its file) into
	 * the next plugin's fd 0. Every fd a plugin gets is its own. */
	io->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (io->devnull < 0) {
		logit_errno("opening /dev/null");
		return -1;
	}
	if (pipe2(io->outp, O_CLOEXEC) != 0 || pipe2(io->errp, O_CLOEXEC) != 0 ||
	    pipe2(io->stp, O_CLOEXEC) != 0 ||
	    (run->protocol == LF_PLUGIN_PROTOCOL_2 &&
	    (pipe2(io->valp, O_CLOEXEC) != 0 ||
	    pipe2(io->detp, O_CLOEXEC) != 0))) {
		logit_errno("sandbox: pipe2");
		return -1;
	}
	return 0;
}

/* Fork the child and wait for its exec: 0 when the plugin runs, -1 with
 * res set when it never did. The parent keeps only its ends of the
 * pipes. */
static int
run_start(struct sandbox *sb, const struct plugin_run *run, struct run_io *io,
    struct plugin_result *res)
{
	int src[FD_NTARGET], i;
	struct child_report rep;
	pid_t self = getpid();
	ssize_t n;

	for (i = 0; i < FD_NTARGET; i++)
		src[i] = -1;
	src[0] = io->devnull;
	src[1] = io->outp[1];
	src[2] = io->errp[1];
	src[FD_IN] = io->input;
	if (run->protocol == LF_PLUGIN_PROTOCOL_2) {
		src[FD_VALUES] = io->valp[0];
		src[FD_DETAIL] = io->detp[1];
	}

	io->start = now_ms();
	io->pid = fork();
	if (io->pid < 0) {
		logit_errno("fork");
		res->outcome = OUT_EXEC_FAILED;
		res->exec_errno = errno;
		return -1;
	}
	if (io->pid == 0)
		child_main(sb, run, self, src, io->stp[1]);

	close_fd(&io->outp[1]);
	close_fd(&io->errp[1]);
	close_fd(&io->stp[1]);
	if (run->protocol == LF_PLUGIN_PROTOCOL_2) {
		close_fd(&io->valp[0]);
		close_fd(&io->detp[1]);
		io->det_eof = 0;
	}

	/* EOF on the status pipe means exec succeeded (it was close-on-exec). */
	do {
		n = read(io->stp[0], &rep, sizeof(rep));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(rep)) {
		int st;
		while (waitpid(io->pid, &st, 0) < 0 && errno == EINTR)
			;
		res->exec_errno = rep.err;
		res->outcome = rep.stage == ST_EXEC ? OUT_EXEC_FAILED
		    : OUT_SANDBOX_UNAVAILABLE;
		if (rep.stage != ST_EXEC)
			logit("sandbox set-up failed at stage %d: %s", rep.stage,
			    strerror(rep.err));
		return -1;
	}
	return 0;
}

/* The process is gone: whatever is left in the pipes now is all there is
 * (stragglers were killed). */
static void
drain_rest(struct sandbox *sb, struct run_io *io, struct plugin_result *res)
{
	if (!io->out_eof)
		io->out_eof = 1, drain_capped(io->outp[0], io->out,
		    sizeof(io->out), &io->outlen, &io->overflow);
	if (!io->err_eof)
		io->err_eof = 1, drain_count(io->errp[0], sb->sink,
		    &res->stderr_bytes);
	if (!io->det_eof)
		io->det_eof = 1, drain_capped(io->detp[0], res->detail,
		    LF_PLUGIN_DETAIL_MAX, &res->detail_len, &io->detover);
}

/* Write what fd 6 takes without blocking; closed when all is written,
 * the plugin closed its end, or the write fails. */
static void
feed_values(const struct plugin_run *run, struct run_io *io, short revents)
{
	ssize_t n;

	if (revents & (POLLERR | POLLHUP)) {
		close_fd(&io->valp[1]);
		return;
	}
	n = write(io->valp[1], run->values + io->valoff,
	    run->values_len - io->valoff);
	if (n > 0)
		io->valoff += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
	    io->valoff == run->values_len)
		close_fd(&io->valp[1]);
}

/* One poll over the pidfd and the open pipes, and what it found handled.
 * -1 when supervision broke (the group is killed). */
static int
supervise_once(struct sandbox *sb, const struct plugin_run *run,
    struct run_io *io, struct plugin_result *res)
{
	struct pollfd pfd[5];
	int np = 0, ipid, iout = -1, ierr = -1, idet = -1, ival = -1;
	long long left = io->deadline - now_ms();

	if (left <= 0) {
		io->timed_out = 1;
		kill_group(io->pid);
		left = 0;
	}
	pfd[np].fd = io->pidfd; pfd[np].events = POLLIN; ipid = np++;
	if (!io->out_eof) {
		pfd[np].fd = io->outp[0]; pfd[np].events = POLLIN; iout = np++;
	}
	if (!io->err_eof) {
		pfd[np].fd = io->errp[0]; pfd[np].events = POLLIN; ierr = np++;
	}
	if (!io->det_eof) {
		pfd[np].fd = io->detp[0]; pfd[np].events = POLLIN; idet = np++;
	}
	if (io->valp[1] >= 0) {
		pfd[np].fd = io->valp[1]; pfd[np].events = POLLOUT; ival = np++;
	}
	if (poll(pfd, (nfds_t)np, io->timed_out ? 100 :
	    (int)(left > 1000 ? 1000 : left)) < 0) {
		if (errno == EINTR)
			return 0;
		logit_errno("sandbox: poll");
		kill_group(io->pid);
		return -1;
	}
	if (iout >= 0 && pfd[iout].revents) {
		io->out_eof = drain_capped(io->outp[0], io->out, sizeof(io->out),
		    &io->outlen, &io->overflow);
		if (io->outlen > LF_PLUGIN_ANSWER_MAX || io->overflow > 0)
			kill_group(io->pid);	/* it said too much */
	}
	if (ierr >= 0 && pfd[ierr].revents)
		io->err_eof = drain_count(io->errp[0], sb->sink,
		    &res->stderr_bytes);
	if (idet >= 0 && pfd[idet].revents)
		io->det_eof = drain_capped(io->detp[0], res->detail,
		    LF_PLUGIN_DETAIL_MAX, &res->detail_len, &io->detover);
	if (ival >= 0 && pfd[ival].revents)
		feed_values(run, io, pfd[ival].revents);
	if (pfd[ipid].revents & POLLIN) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid((idtype_t)P_PIDFD, (id_t)io->pidfd, &si,
		    WEXITED | WNOWAIT) == 0 && si.si_pid == io->pid) {
			io->exited = 1;
			kill_group(io->pid);	/* descendants go too */
		}
	}
	return 0;
}

/* Supervise: the parent never blocks on any of the plugin's pipes; all
 * are drained non-blocking under one poll with the wall-clock deadline,
 * until the plugin has exited and every pipe is at its end. io->broken
 * when supervision failed: the plugin is killed, reaped by run_collect,
 * never classified. */
static void
run_supervise(struct sandbox *sb, const struct plugin_run *run,
    struct run_io *io, struct plugin_result *res)
{
	io->pidfd = (int)syscall(SYS_pidfd_open, io->pid, 0);
	if (io->pidfd < 0 || set_nonblock(io->outp[0], 1) != 0 ||
	    set_nonblock(io->errp[0], 1) != 0 ||
	    (run->protocol == LF_PLUGIN_PROTOCOL_2 &&
	    (set_nonblock(io->valp[1], 1) != 0 ||
	    set_nonblock(io->detp[0], 1) != 0))) {
		logit_errno("sandbox: supervising the plugin");
		io->broken = 1;
		kill_group(io->pid);
	}
	if (run->protocol == LF_PLUGIN_PROTOCOL_2 && run->values_len == 0)
		close_fd(&io->valp[1]);

	io->deadline = io->start + run->limits.wall_ms;
	while (!io->broken && (!io->exited || !io->out_eof || !io->err_eof ||
	    !io->det_eof)) {
		if (io->exited) {
			drain_rest(sb, io, res);
			break;
		}
		if (supervise_once(sb, run, io, res) != 0)
			io->broken = 1;
	}
}

/* Collect: reap the plugin and its group, then classify what it did. */
static void
run_collect(const struct plugin_run *run, struct run_io *io,
    struct plugin_result *res)
{
	struct rusage ru;
	int status = 0;

	while (wait4(io->pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			logit_errno("sandbox: wait4");
			io->broken = 1;
			memset(&ru, 0, sizeof(ru));
			break;
		}
	}
	reap_group(io->pid);
	if (io->broken) {
		res->outcome = OUT_SANDBOX_UNAVAILABLE;
		return;
	}
	res->wall_ms = now_ms() - io->start;
	res->cpu_ms = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	if (WIFEXITED(status))
		res->exit_code = WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		res->signo = WTERMSIG(status);
	res->outcome = classify(io->out, io->outlen, io->overflow, status,
	    io->timed_out, res->cpu_ms, run->limits.cpu_s);
	res->detail[res->detail_len] = '\0';
}

/* The plugin boundary, in three steps (docs/security.md, "Boundaries"):
 * open what the plugin gets, supervise it, collect its outcome. Any step
 * that fails leaves res's outcome saying why; run_close closes whatever
 * was opened. Always 0: the outcome is the result. */
int
sandbox_run(struct sandbox *sb, const struct plugin_run *run,
    struct plugin_result *res)
{
	struct run_io io;

	memset(res, 0, sizeof(*res));
	res->outcome = OUT_SANDBOX_UNAVAILABLE;
	if (!sb->ready)
		return 0;
	run_io_init(&io);
	if (run_open(run, &io) == 0 && run_start(sb, run, &io, res) == 0) {
		run_supervise(sb, run, &io, res);
		run_collect(run, &io, res);
	}
	run_close(&io);
	return 0;
}
