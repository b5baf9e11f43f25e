/* The kernel log conditions (see host/kernel.h, docs/isolation.md "The
 * kernel log"). A plugin that crashes at an address built from its file
 * gets ~140 bits of it printed by the kernel's unhandled-signal report
 * (debug.exception-trace); whoever reads the kernel log reads them. In host
 * mode a plan needs the log closed to every agent: kernel.dmesg_restrict
 * (the kernel's own interface, syslog(2) and /dev/kmsg) and the usual
 * copies on disk not readable by an agent's account or groups. Doctor also
 * reports exception-trace and a core_pattern that hands crashes to a
 * helper. Everything is read with stat and from /proc/sys: the confined
 * console may not list /var/log nor read extended attributes. */
#include "host/kernel.h"
#include "lib/fd.h"
#include "lib/num.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSCTL_MAX 256

/* The copies of the kernel log the usual loggers keep (rsyslog, sysklogd,
 * the boot-time dmesg dump, and their first rotation). Compressed
 * rotations and a remote log server are outside what can be checked. */
static const char *const log_files[] = {
	"/var/log/kern.log", "/var/log/kern.log.1",
	"/var/log/syslog", "/var/log/syslog.1",
	"/var/log/messages", "/var/log/messages.1",
	"/var/log/dmesg", "/var/log/dmesg.0",
};
/* systemd-journald's system journals hold the kernel's messages; their
 * files are 0640 in the directory's group (systemd-journal), so the
 * directory's owner and group say who reads them. */
static const char *const journal_dirs[] = {
	"/var/log/journal", "/run/log/journal",
};

/* A sysctl's first line, without its newline. 0, or -1 when unreadable. */
static int
sysctl_read(const char *path, char *out, size_t outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read_full(fd, out, outlen - 1);
	close(fd);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

static int
sysctl_u64(const char *path, unsigned long long *v)
{
	char buf[32];

	return sysctl_read(path, buf, sizeof(buf)) == 0 &&
	    parse_u64(buf, 0, 0xffffffffULL, v) == 0 ? 0 : -1;
}

/* 1 when uid is an agent's: allowed by uid, or a member of the clients
 * group (listed in it, or with it as primary group). */
static int
agent_uid(const struct iso_agents *a, uid_t uid)
{
	struct passwd *pw;
	struct group *gr;
	char name[256], **m;
	size_t i;

	if (uid == 0 || uid == a->console_uid)
		return 0;
	for (i = 0; i < a->nallowed; i++)
		if (a->allowed[i] == uid)
			return 1;
	if (!a->have_clients_gid)
		return 0;
	pw = getpwuid(uid);
	if (pw == NULL)
		return 0;
	if (pw->pw_gid == a->clients_gid)
		return 1;
	/* getgrgid may reuse the buffer pw points into: copy the name. */
	if (str_fmt(name, sizeof(name), "%s", pw->pw_name) != STR_OK)
		return 1;	/* cannot be compared: counted as an agent */
	gr = getgrgid(a->clients_gid);
	for (m = gr ? gr->gr_mem : NULL; m != NULL && *m != NULL; m++)
		if (strcmp(*m, name) == 0)
			return 1;
	return 0;
}

/* 1 when an agent may read what st describes (file: read; directory: its
 * owner and group only, see journal_dirs), with why. */
static int
agent_reads(const struct iso_agents *a, const struct stat *st, int dir,
    char *why, size_t whylen)
{
	char who[160];

	if (!dir && (st->st_mode & S_IROTH)) {
		str_msg(why, whylen, "every account reads it (mode %04o)",
		    (unsigned)(st->st_mode & 07777));
		return 1;
	}
	if ((st->st_mode & S_IRUSR) && agent_uid(a, st->st_uid)) {
		str_msg(why, whylen, "it is agent uid %u's", (unsigned)st->st_uid);
		return 1;
	}
	if ((st->st_mode & S_IRGRP) && st->st_gid != 0 &&
	    iso_agent_has_gid(a, st->st_gid, who, sizeof(who))) {
		str_msg(why, whylen, "its group %u reads it and %s",
		    (unsigned)st->st_gid, who);
		return 1;
	}
	return 0;
}

static void
check_dmesg_restrict(struct iso_report *r)
{
	unsigned long long v;

	if (sysctl_u64("/proc/sys/kernel/dmesg_restrict", &v) != 0)
		iso_add(r, "kernel.dmesg-restrict", 0, "kernel.dmesg_restrict "
		    "cannot be read");
	else if (v == 0)
		iso_add(r, "kernel.dmesg-restrict", 0, "kernel.dmesg_restrict = 0: "
		    "every account reads the kernel log, where a plugin's crash "
		    "report carries bits of its choosing");
	else
		iso_add(r, "kernel.dmesg-restrict", 1, "kernel.dmesg_restrict = "
		    "%llu: only CAP_SYSLOG reads the kernel log", v);
}

static void
check_log_files(const struct iso_agents *a, struct iso_report *r)
{
	char why[240], path[80];
	struct stat st;
	size_t i, seen = 0;

	for (i = 0; i < sizeof(log_files) / sizeof(log_files[0]) +
	    sizeof(journal_dirs) / sizeof(journal_dirs[0]); i++) {
		size_t nf = sizeof(log_files) / sizeof(log_files[0]);
		const char *p = i < nf ? log_files[i] : journal_dirs[i - nf];
		int dir;

		if (stat(p, &st) != 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			iso_add(r, "kernel.log-files", 0, "%s cannot be checked "
			    "(errno %d)", p, errno);
			return;
		}
		seen++;
		dir = S_ISDIR(st.st_mode);
		if (agent_reads(a, &st, dir, why, sizeof(why))) {
			iso_escape(p, path, sizeof(path));
			iso_add(r, "kernel.log-files", 0, "%s holds the kernel log "
			    "and %s", path, why);
			return;
		}
	}
	iso_add(r, "kernel.log-files", 1, "%zu cop%s of the kernel log on disk, "
	    "none readable by an agent (journal ACLs are not seen: "
	    "docs/isolation.md)", seen, seen == 1 ? "y" : "ies");
}

void
isolation_kernel_host(const struct iso_agents *a, struct iso_report *r)
{
	check_dmesg_restrict(r);
	check_log_files(a, r);
}

static int
named_ok(const struct iso_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->c[i].name, name) == 0)
			return r->c[i].ok;
	return 0;
}

void
isolation_kernel_report(const struct iso_agents *a, int container,
    struct iso_report *r)
{
	struct iso_report host;
	unsigned long long trace;
	char pattern[SYSCTL_MAX], helper[80];
	struct rlimit rl;
	int closed;

	memset(r, 0, sizeof(*r));
	r->container = container;
	/* In container mode the log is the host's: its readers are the
	 * host's accounts, which no check here sees (docs/isolation.md). */
	if (container)
		check_dmesg_restrict(r);
	memset(&host, 0, sizeof(host));
	isolation_kernel_host(a, &host);
	closed = !container && named_ok(&host, "kernel.dmesg-restrict") &&
	    named_ok(&host, "kernel.log-files");

	if (sysctl_u64("/proc/sys/debug/exception-trace", &trace) != 0)
		iso_add(r, "kernel.exception-trace", 0, "debug.exception-trace "
		    "cannot be read");
	else if (trace == 0)
		iso_add(r, "kernel.exception-trace", 1, "debug.exception-trace = "
		    "0: a crashing plugin is not reported in the kernel log");
	else if (closed)
		iso_add(r, "kernel.exception-trace", 1, "debug.exception-trace = "
		    "%llu: a crashing plugin's fault address and registers reach "
		    "the kernel log, which no agent reads", trace);
	else
		iso_add(r, "kernel.exception-trace", 0, "debug.exception-trace = "
		    "%llu: a crashing plugin's fault address and registers (~140 "
		    "bits of its choosing) reach a kernel log %s: set it to 0",
		    trace, container ? "the host's accounts read" :
		    "an agent reads");

	if (sysctl_read("/proc/sys/kernel/core_pattern", pattern,
	    sizeof(pattern)) != 0) {
		iso_add(r, "kernel.core-pattern", 0, "kernel.core_pattern cannot "
		    "be read");
		return;
	}
	iso_escape(pattern, helper, sizeof(helper));
	if (pattern[0] == '@')
		iso_add(r, "kernel.core-pattern", 0, "a socket (%s) receives every "
		    "crash whatever the core limit, a plugin's memory included",
		    helper);
	else if (pattern[0] != '|')
		iso_add(r, "kernel.core-pattern", 1, "a file (%s): plugins run "
		    "with RLIMIT_CORE 1, too small for any core", helper);
	else if (getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_max >= 1)
		iso_add(r, "kernel.core-pattern", 1, "a pipe (%s): plugins run "
		    "with RLIMIT_CORE 1, which the kernel never pipes", helper);
	else
		iso_add(r, "kernel.core-pattern", 0, "a pipe (%s) ignores "
		    "RLIMIT_CORE 0, and this account's hard limit is 0 (so "
		    "plugins cannot get 1): start the console with a hard core "
		    "limit of at least 1", helper);
}
