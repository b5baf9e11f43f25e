/* The console's self-confinement (src/console/confine.h), tested in one
 * process: each attempt is first made before confinement (and must work,
 * so the test can fail for the right reason), then the process confines
 * itself with the console's own spec shape and filter, and every attempt is
 * made again. Plugins (the official is-utf8, the runtime plugins built by
 * run-confine.py, contract plugins) must still run sandboxed under it, and
 * our own dynamic binary must still exec (the parser worker's path).
 *
 * Runs as a non-root account (the sandbox refuses root); TAP output.
 *   test_confine SCRATCH_DIR LOCKFILE_BINARY KIND:PLUGIN...
 * SCRATCH_DIR is an empty directory of ours (run-confine.py makes it and
 * removes it: after confinement this process cannot).
 * KIND is utf8 (is-utf8), yesno (tests/runtimes/answer.*), one (answers 1
 * whatever the input), crash (signaled), forkbomb (no answer, terminates). */
#include "config.h"
#include "console/confine.h"
#include "sandbox/sandbox.h"
#include "lib/fd.h"
#include "lib/mkdir.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static char base[128], home[192], store[256], work[256], src[192];
static char outside[192], sockdir[192], state[256], ledger[300];

static void
must(int ok, const char *what)
{
	if (!ok)
		tap_bail("set-up: %s: %s", what, strerror(errno));
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	must(fd >= 0 && write_full(fd, text, strlen(text)) == 0 &&
	    close(fd) == 0, path);
}

static void
copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	must(in >= 0, from);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	must(out >= 0, to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		must(write_full(out, buf, (size_t)n) == 0, to);
	must(n == 0 && close(out) == 0, to);
	close(in);
}

/* A compaction's move, as src/console/ledger_io.c makes it: a new file
 * beside old, renamed over it. errno of the first step that fails. */
static int
replace_errno(const char *dir, const char *name)
{
	char tmp[400], to[400];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s/%s.new", dir, name);
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, to, 0) != 0) {
		int e = errno;
		unlink(tmp);
		return e;
	}
	return 0;
}

/* errno of renaming path to path.x and back, 0 when both worked. */
static int
rename_errno(const char *path)
{
	char to[400];

	snprintf(to, sizeof(to), "%s.x", path);
	if (renameat2(AT_FDCWD, path, AT_FDCWD, to, 0) != 0)
		return errno;
	return renameat2(AT_FDCWD, to, AT_FDCWD, path, 0) != 0 ? errno : 0;
}

/* errno of open(path, flags), 0 when it opened. */
static int
open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int
socket_errno(int family, int type)
{
	int fd = socket(family, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Fork; the child execs (by path, or our binary fd with execveat) and
 * reports exec's errno on a pipe; 0 when the child ran and exited 0. */
static int
exec_errno(const char *path, int fd, char *const argv[])
{
	int p[2], st, e = 0;
	pid_t pid;

	must(pipe2(p, O_CLOEXEC) == 0, "pipe");
	pid = fork();
	must(pid >= 0, "fork");
	if (pid == 0) {
		char *const envp[] = { NULL };
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		if (fd >= 0)
			syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
		else
			execve(path, argv, envp);
		e = errno;
		(void)!write(p[1], &e, sizeof(e));
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = 0;
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (e == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		e = -1;
	return e;
}

static const char *
outcome_of(struct sandbox *sb, const char *plugin, const char *input)
{
	static struct plugin_result res;
	struct plugin_run r;
	char in[300];

	snprintf(in, sizeof(in), "%s/input", work);
	write_file(in, input, 0600);
	memset(&r, 0, sizeof(r));
	r.binfd = open(plugin, OPEN_RO_SAFE);
	r.inputfd = open(in, OPEN_RO_SAFE);
	if (r.binfd < 0 || r.inputfd < 0)
		return "cannot open";
	r.protocol = 1;
	r.limits.cpu_s = 5;
	r.limits.memory_bytes = 256ULL << 20;
	r.limits.wall_ms = 4000;
	r.argv0 = "plugin";
	sandbox_run(sb, &r, &res);
	close(r.binfd);
	close(r.inputfd);
	(void)unlink(in);
	return outcome_name(res.outcome);
}

static void
plugins_run(struct sandbox *sb, int argc, char **argv, const char *when)
{
	int i;

	for (i = 3; i < argc; i++) {
		char kind[16], *colon = strchr(argv[i], ':');
		const char *path = colon ? colon + 1 : argv[i], *base_name;
		char dst[512];

		snprintf(kind, sizeof(kind), "%.*s", colon ? (int)(colon - argv[i]) : 0,
		    argv[i]);
		base_name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		snprintf(dst, sizeof(dst), "%s/%s", store, base_name);
		if (strcmp(kind, "utf8") == 0) {
			tap_ok(strcmp(outcome_of(sb, dst, "h\xc3\xa9llo\n"), "answer-1") == 0,
			    "%s: %s answers 1 on UTF-8", when, base_name);
			tap_ok(strcmp(outcome_of(sb, dst, "\xff\xfe"), "answer-0") == 0,
			    "%s: %s answers 0 on bad UTF-8", when, base_name);
		} else if (strcmp(kind, "yesno") == 0) {
			tap_ok(strcmp(outcome_of(sb, dst, "yes\nmore\n"), "answer-1") == 0,
			    "%s: %s answers 1", when, base_name);
			tap_ok(strcmp(outcome_of(sb, dst, "no\nmore\n"), "answer-0") == 0,
			    "%s: %s answers 0", when, base_name);
		} else if (strcmp(kind, "one") == 0) {
			tap_ok(strcmp(outcome_of(sb, dst, "x"), "answer-1") == 0,
			    "%s: %s answers 1", when, base_name);
		} else if (strcmp(kind, "crash") == 0) {
			tap_ok(strcmp(outcome_of(sb, dst, "x"), "signaled") == 0,
			    "%s: %s is signaled, no answer", when, base_name);
		} else if (strcmp(kind, "forkbomb") == 0) {
			const char *o = outcome_of(sb, dst, "x");
			tap_ok(strncmp(o, "answer", 6) != 0, "%s: %s ends without an "
			    "answer (%s)", when, base_name, o);
		} else {
			tap_ok(0, "unknown plugin kind %s", argv[i]);
		}
	}
}

static void
setup(int argc, char **argv)
{
	char p[512];
	int i;

	snprintf(base, sizeof(base), "%s", argv[1]);
	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(store, sizeof(store), "%s/.local/share/lockfile/plugins", home);
	snprintf(work, sizeof(work), "%s/.local/state/lockfile/work", home);
	snprintf(src, sizeof(src), "%s/src", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(sockdir, sizeof(sockdir), "%s/run", base);
	snprintf(state, sizeof(state), "%s/.local/state/lockfile", home);
	snprintf(ledger, sizeof(ledger), "%s/ledger", state);
	must(mkdir_p(ledger, 0700) == 0, "the ledger's directory");
	snprintf(p, sizeof(p), "%s/policy.approved.toml", state);
	write_file(p, "approved\n", 0600);
	snprintf(p, sizeof(p), "%s/ledger", ledger);
	write_file(p, "L 1\n", 0600);
	must(mkdir_p(store, 0700) == 0 && mkdir_p(work, 0700) == 0 &&
	    mkdir(src, 0700) == 0 && mkdir(outside, 0700) == 0 &&
	    mkdir(sockdir, 0700) == 0, "directories");
	snprintf(p, sizeof(p), "%s/policy.toml", home);
	write_file(p, "in the home\n", 0600);
	snprintf(p, sizeof(p), "%s/doc.txt", src);
	write_file(p, "a source file\n", 0600);
	snprintf(p, sizeof(p), "%s/secret.txt", outside);
	write_file(p, "outside the allowed set\n", 0600);
	for (i = 3; i < argc; i++) {
		const char *colon = strchr(argv[i], ':'), *path, *b;
		path = colon ? colon + 1 : argv[i];
		b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		snprintf(p, sizeof(p), "%s/%s", store, b);
		copy_file(path, p);
	}
}

static int
status_field(const char *key)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	int v = -1;
	size_t n = strlen(key);

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = (int)strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

int
main(int argc, char **argv)
{
	struct confine_spec *spec;
	struct landlock_caps caps;
	struct sandbox sb;
	const char *why = NULL;
	char secret[256], created[256], homefile[256], srcfile[256], wfile[300];
	char wdir[300];
	char *const true_argv[] = { "true", NULL };
	char *const version_argv[] = { "lockfile", "version", NULL };
	int self_fd, devnull, sp[2], e, st, other_fd;
	pid_t other;
	void *m;

	if (argc < 3) {
		fprintf(stderr, "usage: test_confine SCRATCH LOCKFILE KIND:PLUGIN...\n");
		return 64;
	}
	if (getuid() == 0)
		tap_bail("run as a non-root account");
	spec = calloc(1, sizeof(*spec));
	must(spec != NULL, "calloc");
	setup(argc, argv);
	/* A process of ours outside the domain to come (forked before it).
	 * It leaves when our end of a pipe closes: neither a signal from us
	 * nor our parent-death signal crosses the scope once we are confined. */
	must(pipe2(sp, O_CLOEXEC) == 0, "pipe");
	other = fork();
	must(other >= 0, "fork");
	if (other == 0) {
		char c;
		int null = open("/dev/null", O_RDWR);
		close(sp[1]);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		while (read(sp[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(sp[0]);
	other_fd = sp[1];
	snprintf(secret, sizeof(secret), "%s/secret.txt", outside);
	snprintf(created, sizeof(created), "%s/new.txt", outside);
	snprintf(homefile, sizeof(homefile), "%s/policy.toml", home);
	snprintf(srcfile, sizeof(srcfile), "%s/doc.txt", src);
	snprintf(wfile, sizeof(wfile), "%s/spool", work);
	snprintf(wdir, sizeof(wdir), "%s/d", work);
	self_fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	must(self_fd >= 0 && devnull >= 0, "open the lockfile binary");
	must(sandbox_open(&sb) == 0, "sandbox_open");

	/* ---- before: every attempt works ---- */
	tap_ok(open_errno(secret, O_RDONLY) == 0, "before: a file outside the "
	    "set can be read");
	tap_ok(open_errno(created, O_WRONLY | O_CREAT) == 0 && unlink(created) == 0,
	    "before: a file outside the set can be created");
	tap_ok(open_errno("/etc/hostname", O_RDONLY) == 0, "before: /etc/hostname "
	    "can be read");
	tap_ok(socket_errno(AF_UNIX, SOCK_STREAM) == 0, "before: a Unix socket "
	    "can be made");
	tap_ok(socket_errno(AF_INET, SOCK_STREAM) == 0, "before: a TCP socket can "
	    "be made");
	tap_ok(exec_errno("/bin/true", -1, true_argv) == 0, "before: /bin/true "
	    "runs");
	tap_ok(chmod(secret, 0644) == 0 && chmod(secret, 0600) == 0, "before: a "
	    "file can be opened to others (chmod 0644)");
	tap_ok(kill(other, 0) == 0, "before: another process of ours can be "
	    "signalled");
	snprintf(wfile, sizeof(wfile), "%s/policy.approved.toml", state);
	tap_ok(rename_errno(wfile) == 0 && replace_errno(state,
	    "policy.approved.toml") == 0, "before: the approved policy can be "
	    "renamed and replaced");
	tap_ok(replace_errno(ledger, "ledger") == 0, "before: the ledger can be "
	    "replaced (a compaction)");
	snprintf(wfile, sizeof(wfile), "%s/spool", work);
	e = ptrace(PTRACE_ATTACH, other, NULL, NULL) == 0 &&
	    waitpid(other, &st, 0) == other &&
	    ptrace(PTRACE_DETACH, other, NULL, NULL) == 0;
	tap_ok(e, "before: another process of ours can be traced");
	errno = 0;
	tap_ok(ioctl(devnull, TIOCSTI, "x") < 0 && errno == ENOTTY, "before: "
	    "TIOCSTI reaches the driver (ENOTTY on /dev/null)");

	/* ---- confine, as the console does ---- */
	confine_spec_init(spec);
	must(confine_add(spec, home, CONFINE_READ, 0) == 0 &&
	    confine_add(spec, store, CONFINE_EXEC, 0) == 0 &&
	    confine_add(spec, work, CONFINE_WRITE, 0) == 0 &&
	    confine_add(spec, ledger, CONFINE_WRITE, 0) == 0 &&
	    confine_add(spec, sockdir, CONFINE_UNLINK, 0) == 0 &&
	    confine_add(spec, src, CONFINE_READ, 0) == 0 &&
	    confine_add(spec, "/proc", CONFINE_READ, 0) == 0 &&
	    confine_add(spec, "/dev/null", CONFINE_DEVICE, 0) == 0 &&
	    confine_add(spec, "/etc/passwd", CONFINE_READ, 1) == 0 &&
	    confine_add(spec, "/etc/ld.so.cache", CONFINE_READ, 1) == 0 &&
	    confine_add_fd(spec, self_fd, argv[2], CONFINE_EXEC) == 0 &&
	    confine_add_loaded_objects(spec) == 0, "the spec");
	if (landlock_probe(&caps, &why) != 0)
		tap_bail("no Landlock: %s", why);
	tap_ok(confine_apply(spec, &caps, &why) == 0, "confine_apply (%s)",
	    why ? why : "ok");
	tap_ok(status_field("Seccomp") == 2 && status_field("NoNewPrivs") == 1,
	    "after: /proc/self/status shows a filter and no_new_privs");

	/* ---- after: outside the set is refused ---- */
	tap_ok(open_errno(secret, O_RDONLY) == EACCES, "after: a file outside the "
	    "set cannot be read (EACCES)");
	tap_ok(open_errno(created, O_WRONLY | O_CREAT) == EACCES, "after: a file "
	    "outside the set cannot be created");
	tap_ok(open_errno("/etc/hostname", O_RDONLY) == EACCES, "after: "
	    "/etc/hostname cannot be read");
	tap_ok(open_errno(homefile, O_RDONLY) == 0, "after: the home is "
	    "readable");
	tap_ok(open_errno(homefile, O_WRONLY) == EACCES, "after: the home is not "
	    "writable");
	tap_ok(open_errno(srcfile, O_RDONLY) == 0, "after: a local source is "
	    "readable");
	tap_ok(open_errno(wfile, O_WRONLY | O_CREAT | O_EXCL) == 0 &&
	    chmod(wfile, 0400) == 0 && unlink(wfile) == 0, "after: the work "
	    "directory takes a spool file (create, chmod 0400, unlink)");
	tap_ok(mkdir(wdir, 0700) == 0 && rmdir(wdir) == 0, "after: the work "
	    "directory takes a subdirectory");
	tap_ok(replace_errno(ledger, "ledger") == 0, "after: the ledger's own "
	    "directory takes a compaction (a new file renamed over the ledger)");
	snprintf(wdir, sizeof(wdir), "%s/policy.approved.toml", state);
	e = rename_errno(wdir);
	tap_ok(e == EACCES, "after: the approved policy beside the ledger "
	    "cannot be renamed (errno %d)", e);
	e = replace_errno(state, "policy.approved.toml");
	tap_ok(e == EACCES, "after: nor replaced (errno %d)", e);
	snprintf(wdir, sizeof(wdir), "%s/d", work);
	tap_ok(open_errno(wfile, O_WRONLY | O_CREAT) == 0 &&
	    chmod(wfile, 0644) < 0 && errno == EPERM && unlink(wfile) == 0,
	    "after: chmod that opens a file to others is refused (EPERM)");
	tap_ok(symlink("/etc", wdir) < 0 && errno == EPERM, "after: no symlink, "
	    "even in the work directory");
	tap_ok(getpwuid(getuid()) != NULL, "after: the password database (NSS) "
	    "is readable");
	tap_ok(socket_errno(AF_UNIX, SOCK_STREAM) == EPERM, "after: no Unix "
	    "socket (pathname connect is not covered by Landlock)");
	tap_ok(socket_errno(AF_INET, SOCK_STREAM) == EPERM &&
	    socket_errno(AF_INET6, SOCK_DGRAM) == EPERM, "after: no inet socket "
	    "without a network profile");
	tap_ok(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0 &&
	    close(sp[0]) == 0 && close(sp[1]) == 0, "after: socketpair (the "
	    "parser worker's) still works");
	e = exec_errno("/bin/true", -1, true_argv);
	tap_ok(e == EACCES, "after: /bin/true cannot be executed (errno "
	    "%d)", e);
	e = exec_errno(NULL, self_fd, version_argv);
	tap_ok(e == 0, "after: our own dynamic binary still execs through its fd "
	    "(the parser worker; errno %d)", e);
	tap_ok(ptrace(PTRACE_ATTACH, other, NULL, NULL) < 0 && errno == EPERM,
	    "after: ptrace of another process is refused (by the filter; by "
	    "Landlock too)");
	tap_ok(unshare(CLONE_NEWUSER) < 0 && errno == EPERM, "after: no new "
	    "namespaces");
	tap_ok(syscall(SYS_memfd_create, "x", 0) < 0 && errno == EPERM,
	    "after: no memfd");
	errno = 0;
	tap_ok(ioctl(devnull, TIOCSTI, "x") < 0 && errno == EPERM, "after: "
	    "TIOCSTI is refused by the filter");
	tap_ok(kill(other, 0) < 0 && errno == EPERM, "after: a process outside "
	    "the domain cannot be signalled (Landlock scope)");
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#if LOCKFILE_SANITIZED
	tap_skip("allowed in sanitized builds (docs/isolation.md)",
	    "after: executable anonymous memory");
#else
	tap_ok(m == MAP_FAILED && errno == EPERM, "after: no executable anonymous "
	    "memory");
#endif
	if (m != MAP_FAILED)
		munmap(m, 4096);
	tap_ok(syscall(SYS_clone3, NULL, 0) < 0 && errno == ENOSYS, "after: "
	    "clone3 answers ENOSYS (glibc falls back to clone)");

	/* ---- plugins still run sandboxed, on top of it ---- */
	tap_ok(sb.ready, "the sandbox is ready");
	plugins_run(&sb, argc, argv, "after");
	sandbox_close(&sb);
	confine_spec_free(spec);
	free(spec);
	close(other_fd);	/* the child of before leaves */
	(void)waitpid(other, &st, 0);
	return tap_done();
}
