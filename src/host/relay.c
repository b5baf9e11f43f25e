/* terminal.master: who holds the console's pseudo-terminal's master
 * (docs/isolation.md, "terminal.master"; issue 32). Whoever holds the
 * master reads every key the human types and writes what the human sees:
 * it is the relay, whatever it is called.
 *
 * Why this and not the ancestry: with /proc mounted hidepid the console
 * sees only its own account's (dumpable) processes, so a relay run by
 * another account (root's `runuser -P`, `su -P`, root's `script`) is an
 * invisible parent, and the walk in terminal.c ends there silently. What the
 * console can still see does not tell them from a login either: its
 * session leader and the terminal's foreground group are its own shell's
 * (runuser -P and su -P call setsid in the child), and runuser -P and su -P
 * chown the new pty to the target account, so terminal.owner and
 * terminal.mode pass. The one fact left is positive: the master is a ptmx
 * descriptor whose fdinfo names the pty's index (tty-index), and the
 * console can read the descriptors of the processes it sees. A multiplexer
 * of the console account (its tmux server) holds it, visibly; when no
 * process the console sees holds it, another account's program does
 * (runuser, su, script, sshd's session process, which is not dumpable),
 * and that is refused on a host unless system.toml accepts it.
 *
 * In a container the runtime holds it from outside the pid namespace
 * (docker run -it): the declared container passes, with that said. */
#include "host/relay.h"
#include "host/proc.h"
#include "lib/fd.h"
#include "lib/num.h"
#include "lib/str.h"
#include "lib/sysconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FDINFO_MAX 4096
#define CONTAINER_DECLARATION "container.toml"

/* The index of the pseudo-terminal with device rdev, or -1 when it is not
 * one (Unix 98 ptys: majors 136..143). */
static long
pty_index(dev_t rdev)
{
	unsigned maj = major(rdev), min = minor(rdev);

	if (maj < 136 || maj > 143)
		return -1;
	return (long)(maj - 136) * 256 + (long)min;
}

/* The tty-index of /proc/<pid>/fdinfo/<fd>, or -1 (none, unreadable). */
static long
fdinfo_tty_index(const char *pid, const char *fd)
{
	char path[96], buf[FDINFO_MAX];
	ssize_t n;
	char *line, *cur;
	int f;

	if (str_fmt(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd) !=
	    STR_OK)
		return -1;
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read_full(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	cur = buf;
	while ((line = iso_tok_next(&cur, '\n')) != NULL) {
		unsigned long long v;

		if (strncmp(line, "tty-index:\t", 11) == 0 &&
		    parse_u64(line + 11, 0, 1UL << 20, &v) == 0)
			return (long)v;
	}
	return -1;
}

/* 1 when process pid (a /proc entry we may read) holds the master of pty
 * idx, 0 otherwise (hidden, gone, or no such descriptor). */
static int
holds_master(const char *pid, long idx)
{
	char path[64], target[64];
	struct dirent *e;
	DIR *d;
	int found = 0;

	if (str_fmt(path, sizeof(path), "/proc/%s/fd", pid) != STR_OK ||
	    (d = opendir(path)) == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		ssize_t n;
		const char *base;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		base = strrchr(target, '/');
		/* /dev/ptmx, or /dev/pts/ptmx (a container's devpts) */
		if (base == NULL || strcmp(base, "/ptmx") != 0)
			continue;
		found = fdinfo_tty_index(pid, e->d_name) == idx;
	}
	closedir(d);
	return found;
}

/* The first process /proc shows that holds the master of pty idx: its pid,
 * or 0 when none is seen. Only the console account's processes are
 * readable (and with hidepid, listed); a holder of another devpts
 * instance with the same index would be one of them too. */
static long long
find_master(long idx, struct proc_status *ps)
{
	struct dirent *e;
	long long pid = 0;
	DIR *d = opendir("/proc");

	if (d == NULL)
		return 0;
	while (pid == 0 && (e = readdir(d)) != NULL) {
		unsigned long long v;
		char path[64];

		if (parse_u64(e->d_name, 1, 0x7fffffff, &v) != 0 ||
		    !holds_master(e->d_name, idx))
			continue;
		if (str_fmt(path, sizeof(path), "/proc/%s/status", e->d_name) ==
		    STR_OK && proc_status_read(path, ps) == 0)
			pid = (long long)v;
	}
	closedir(d);
	return pid;
}

static int
console_account(const struct proc_status *ps, uid_t u)
{
	int i;

	if (ps->nuid != 4)
		return 0;
	for (i = 0; i < 4; i++)
		if (ps->uid[i] != (unsigned long long)u)
			return 0;
	return 1;
}

/* A declared container (container.toml exists in the system configuration
 * directory; the container.* checks say whether it holds). */
static int
container_declared(void)
{
	const char *why = NULL;
	int fd = sysconf_open(CONTAINER_DECLARATION, &why);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

void
check_master(int fd, const struct iso_agents *a, int unseen_ok,
    struct iso_report *r)
{
	struct proc_status ps;
	unsigned int dev;
	char name[80];
	long long pid;
	long idx;

	/* the terminal itself, as tty_node in terminal.c asks for it: an fd
	 * opened through /dev/tty stats as /dev/tty */
	if (ioctl(fd, TIOCGDEV, &dev) != 0 ||
	    (idx = pty_index(makedev(major(dev), minor(dev)))) < 0) {
		iso_add(r, "terminal.master", 1, "not a pseudo-terminal: no "
		    "program holds a master for it");
		return;
	}
	memset(&ps, 0, sizeof(ps));
	pid = find_master(idx, &ps);
	if (pid > 0) {
		iso_escape(ps.name, name, sizeof(name));
		if (console_account(&ps, a->console_uid))
			iso_add(r, "terminal.master", 1, "pid %lld (%s), the "
			    "console account's, holds pts/%ld's master", pid, name,
			    idx);
		else
			iso_add(r, "terminal.master", 0, "pid %lld (%s), uid %llu, "
			    "holds pts/%ld's master (it reads what you type): use "
			    "tmux started as the console account (docs/host.md)",
			    pid, name, ps.uid[0], idx);
		return;
	}
	if (unseen_ok)
		iso_add(r, "terminal.master", 1, "no process the console sees "
		    "holds pts/%ld's master; system.toml accepts it "
		    "(unseen_relay = \"allow\")", idx);
	else if (container_declared())
		iso_add(r, "terminal.master", 1, "pts/%ld's master is held "
		    "outside the container (the runtime's: docker run -it)", idx);
	else
		iso_add(r, "terminal.master", 0, "no process the console sees "
		    "holds pts/%ld's master: a hidden relay (runuser -P, su -P, "
		    "root's script, ssh): use tmux started as the console account "
		    "(docs/host.md)", idx);
}
