/* The /proc isolation checks (see isolation.h). Boundary (seed,
 * "Preconditions"): no other account sees the plugins' processes. Host
 * mode relies on hidepid; container mode on the pid namespace being the
 * container's own, with nobody but root and the console account in it.
 * Every fact is read from the kernel at the moment of the check, except
 * the two that only the pre-confinement snapshot can see (the container's
 * seccomp filter and no_new_privs). */
#include "console/isolation.h"
#include "console/mountinfo.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/sysconf.h"
#include "lib/toml.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
/* The inode of the initial (host) pid namespace, fixed by the kernel. */
#define PROC_PID_INIT_INO 0xEFFFFFFCULL
/* linux/pidfd.h (6.11); Debian 12's headers predate it. */
#define LF_PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5)

#define DECLARATION "container.toml"
#define DECLARATION_MAX 4096
#define MOUNTINFO_LINE (4 * PATH_MAX + 4096)
#define MAX_TASKS 65536		/* a container with more is refused */

/* ---- the procfs on /proc ---- */

void
iso_parse_proc_opts(char *opts, struct proc_mount *m)
{
	char *cur = opts, *o;

	m->hidepid = 0;
	m->gid = 0;
	while ((o = iso_tok_next(&cur, ',')) != NULL) {
		if (strncmp(o, "hidepid=", 8) == 0) {
			const char *v = o + 8;
			if (strcmp(v, "invisible") == 0 || strcmp(v, "2") == 0)
				m->hidepid = 2;
			else if (strcmp(v, "noaccess") == 0 || strcmp(v, "1") == 0)
				m->hidepid = 1;
			else if (strcmp(v, "ptraceable") == 0 || strcmp(v, "4") == 0)
				m->hidepid = 4;
			else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
				m->hidepid = 0;
			else
				m->bad_opts = 1;
		} else if (strncmp(o, "gid=", 4) == 0) {
			if (parse_u64(o + 4, 0, 0xfffffffeULL, &m->gid) != 0)
				m->bad_opts = 1;
		}
	}
}

int
iso_mountinfo_each(const char *path,
    int (*fn)(struct mount_entry *e, void *arg), void *arg)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (f == NULL)
		return -1;
	while (ret == 0 && (len = getline(&line, &cap, f)) > 0) {
		/* id parent maj:min root mountpoint opts [tags...] - type src super */
		char *tok[64], *cur = line, *t;
		int n = 0, sep = -1, i;
		struct mount_entry e;

		/* A mount point is at most PATH_MAX bytes, four times that
		 * escaped; a line beyond is not one we can read: fail closed. */
		if (len > MOUNTINFO_LINE) {
			ret = -1;
			break;
		}
		line[strcspn(line, "\n")] = '\0';
		while (n < 64 && (t = iso_tok_next(&cur, ' ')) != NULL)
			tok[n++] = t;
		for (i = 6; i < n; i++)
			if (strcmp(tok[i], "-") == 0) {
				sep = i;
				break;
			}
		if (n < 7 || sep < 0 || sep + 3 >= n ||
		    parse_u64(tok[0], 0, ULLONG_MAX, &e.id) != 0 ||
		    parse_u64(tok[1], 0, ULLONG_MAX, &e.parent) != 0) {
			ret = -1;
			break;
		}
		e.mountpoint = tok[4];
		e.fstype = tok[sep + 1];
		e.super_opts = tok[sep + 3];
		ret = fn(&e, arg);
	}
	if (ferror(f))
		ret = -1;
	free(line);
	fclose(f);
	return ret;
}

struct find_mount {
	unsigned long long id;
	struct proc_mount *m;
};

static int
find_mount(struct mount_entry *e, void *arg)
{
	struct find_mount *fm = arg;

	if (e->id != fm->id)
		return 0;
	fm->m->found = 1;
	if (strcmp(e->fstype, "proc") != 0)
		fm->m->bad_opts = 1;
	else
		iso_parse_proc_opts(e->super_opts, fm->m);
	return 1;
}

/* Find the mount that /proc is (by its mount id, so an over-mount or a
 * mount below /proc cannot be mistaken for it) and read its options. */
static int
proc_mount_read(struct proc_mount *m)
{
	struct statx sx;
	struct find_mount fm = { .m = m };

	memset(m, 0, sizeof(*m));
	if (statx(AT_FDCWD, "/proc", AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) != 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return -1;
	fm.id = sx.stx_mnt_id;
	if (iso_mountinfo_each("/proc/self/mountinfo", find_mount, &fm) < 0)
		return -1;
	return m->found ? 0 : -1;
}

static int
is_procfs(void)
{
	struct statfs sf;

	return statfs("/proc", &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

static void
check_host(const struct iso_agents *a, struct iso_report *r)
{
	struct proc_mount m;
	char who[160];

	if (!is_procfs()) {
		iso_add(r, "proc.procfs", 0, "/proc is not a procfs");
		return;
	}
	iso_add(r, "proc.procfs", 1, "/proc is a procfs");
	if (proc_mount_read(&m) != 0 || m.bad_opts) {
		iso_add(r, "proc.hidepid", 0, "the mount options of /proc cannot "
		    "be read");
		return;
	}
	if (m.hidepid != 2) {
		/* no declaration: a host, so name the host's fix, not the
		 * container's file (docs/host.md, step 3; issue 32) */
		iso_add(r, "proc.hidepid", 0, "/proc is not mounted "
		    "hidepid=invisible (hidepid=%d): on a host, as root: mount -o "
		    "remount,hidepid=invisible /proc, and hidepid=invisible in its "
		    "fstab line (docs/host.md, step 3)", m.hidepid);
		return;
	}
	iso_add(r, "proc.hidepid", 1, "/proc is mounted hidepid=invisible");
	if (iso_agent_has_gid(a, (gid_t)m.gid, who, sizeof(who)))
		iso_add(r, "proc.hidepid-gid", 0, "gid=%llu sees every process "
		    "and %s", m.gid, who);
	else
		iso_add(r, "proc.hidepid-gid", 1, "gid=%llu is no agent's group",
		    m.gid);
	/* What the console sees hides; now whether the agents see the same:
	 * isolation_host.c. */
	iso_check_host_declared(a, r);
}

/* ---- container mode ---- */

/* The declaration: -1 when absent (host mode), 0 when present (a check is
 * added, passing or failing). */
static int
check_declaration(struct iso_report *r)
{
	const char *why = NULL, *k;
	struct toml_error terr;
	size_t len = 0;
	char *text;
	json_t *doc, *v;
	int ok = 1;

	errno = 0;
	text = sysconf_read(DECLARATION, DECLARATION_MAX, &len, &why);
	if (text == NULL && errno == ENOENT)
		return -1;
	r->container = 1;
	if (text == NULL) {
		iso_add(r, "container.declaration", 0, "%s: %s", DECLARATION, why);
		return 0;
	}
	doc = toml_parse(text, len, &terr);
	free(text);
	if (doc == NULL) {
		iso_add(r, "container.declaration", 0, "%s is not valid TOML "
		    "(line %d: %s)", DECLARATION, terr.line, terr.msg);
		return 0;
	}
	json_object_foreach(doc, k, v)
		if (strcmp(k, "container") != 0)
			ok = 0;
	v = json_object_get(doc, "container");
	if (!ok || !json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) > 32 ||
	    strspn(json_string_value(v), "abcdefghijklmnopqrstuvwxyz0123456789-")
	    != json_string_length(v)) {
		iso_add(r, "container.declaration", 0, "%s must hold exactly "
		    "container = \"<runtime>\" (lowercase word)", DECLARATION);
	} else {
		iso_add(r, "container.declaration", 1, "%s declares a %s "
		    "container", DECLARATION, json_string_value(v));
	}
	json_decref(doc);
	return 0;
}

/* /proc is the procfs of our own pid namespace and hides nothing from us
 * (the process listing below must be complete). */
static void
check_own_procfs(struct iso_report *r)
{
	struct proc_status ps;
	struct proc_mount m;
	char link[32];
	ssize_t n;
	unsigned long long self;

	if (!is_procfs()) {
		iso_add(r, "container.procfs", 0, "/proc is not a procfs");
		return;
	}
	n = readlink("/proc/self", link, sizeof(link) - 1);
	if (n <= 0) {
		iso_add(r, "container.procfs", 0, "/proc/self does not resolve: "
		    "/proc belongs to another pid namespace");
		return;
	}
	link[n] = '\0';
	if (parse_u64(link, 1, INT_MAX, &self) != 0 ||
	    self != (unsigned long long)getpid()) {
		iso_add(r, "container.procfs", 0, "/proc/self is not this process "
		    "(%lld): /proc belongs to another pid namespace",
		    (long long)getpid());
		return;
	}
	if (proc_status_read("/proc/self/status", &ps) != 0 || ps.nnspid != 1) {
		iso_add(r, "container.procfs", 0, "/proc/self/status shows %d "
		    "NSpid levels: /proc is an ancestor namespace's", ps.nnspid);
		return;
	}
	if (proc_mount_read(&m) != 0 || m.bad_opts) {
		iso_add(r, "container.procfs", 0, "the mount options of /proc "
		    "cannot be read");
		return;
	}
	if (m.hidepid != 0) {
		iso_add(r, "container.procfs", 0, "/proc hides processes "
		    "(hidepid=%d): the console cannot see who shares its "
		    "namespace", m.hidepid);
		return;
	}
	iso_add(r, "container.procfs", 1, "/proc is this pid namespace's own "
	    "procfs");
}

static void
check_pid_namespace(struct iso_report *r)
{
	struct stat st, pst;
	int pidfd, nsfd = -1, have_proc;

	have_proc = stat("/proc/self/ns/pid", &pst) == 0;
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd >= 0) {
		nsfd = ioctl(pidfd, LF_PIDFD_GET_PID_NAMESPACE, 0);
		close(pidfd);
	}
	if (nsfd >= 0) {
		/* The kernel's own answer, independent of what /proc shows. */
		int ok = fstat(nsfd, &st) == 0;
		close(nsfd);
		if (!ok) {
			iso_add(r, "container.pid-namespace", 0, "the pid namespace "
			    "cannot be inspected");
		} else if (st.st_ino == PROC_PID_INIT_INO) {
			iso_add(r, "container.pid-namespace", 0, "the console runs "
			    "in the host's pid namespace (--pid=host?)");
		} else if (have_proc && pst.st_ino != st.st_ino) {
			iso_add(r, "container.pid-namespace", 0, "/proc/self/ns/pid "
			    "disagrees with the kernel");
		} else {
			iso_add(r, "container.pid-namespace", 1, "pid namespace "
			    "%llu is not the host's", (unsigned long long)st.st_ino);
		}
		return;
	}
	/* Kernels before 6.11: /proc/self/ns/pid (only meaningful once /proc
	 * was found to be our own procfs, which the procfs check decides). */
	if (!have_proc)
		iso_add(r, "container.pid-namespace", 0, "the pid namespace "
		    "cannot be inspected");
	else if (pst.st_ino == PROC_PID_INIT_INO)
		iso_add(r, "container.pid-namespace", 0, "the console runs in the "
		    "host's pid namespace (--pid=host?)");
	else
		iso_add(r, "container.pid-namespace", 1, "pid namespace %llu is "
		    "not the host's", (unsigned long long)pst.st_ino);
}

/* 1 when every uid field is root or the console account. */
static int
uids_ok(const struct proc_status *ps, uid_t console)
{
	int i;

	for (i = 0; i < 4; i++)
		if (ps->uid[i] != 0 && ps->uid[i] != (unsigned long long)console)
			return 0;
	return 1;
}

static int
numeric(const char *s)
{
	return s[0] >= '1' && s[0] <= '9' && strspn(s, "0123456789") == strlen(s);
}

static void
foreign(struct iso_report *r, const char *pid, const struct proc_status *ps)
{
	char name[80];

	iso_escape(ps->name, name, sizeof(name));
	iso_add(r, "container.processes", 0, "pid %s (%s) runs as uid %llu/%llu/"
	    "%llu/%llu: another account shares the pid namespace", pid, name,
	    ps->uid[0], ps->uid[1], ps->uid[2], ps->uid[3]);
}

/* Every task of every listed process (a thread may carry other
 * credentials than its leader). A task that vanished meanwhile is skipped;
 * one that cannot be read fails. A snapshot: a process may join later,
 * which is why this runs again just before each plugin. */
static void
check_processes(struct iso_report *r, uid_t console)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	unsigned long ntasks = 0;

	if (d == NULL) {
		iso_add(r, "container.processes", 0, "/proc cannot be listed");
		return;
	}
	while ((de = readdir(d)) != NULL) {
		char path[64];
		struct proc_status ps;
		DIR *td;
		struct dirent *te;

		if (!numeric(de->d_name) || strlen(de->d_name) > 10)
			continue;
		/* at most 10 digits (checked above): these always fit */
		ASSERT(str_fmt(path, sizeof(path), "/proc/%.10s/status",
		    de->d_name) == STR_OK);
		if (proc_status_read(path, &ps) != 0) {
			if (errno == ENOENT || errno == ESRCH)
				continue;
			iso_add(r, "container.processes", 0, "the status of pid %.10s "
			    "cannot be read", de->d_name);
			goto out;
		}
		if (!uids_ok(&ps, console)) {
			foreign(r, de->d_name, &ps);
			goto out;
		}
		ASSERT(str_fmt(path, sizeof(path), "/proc/%.10s/task",
		    de->d_name) == STR_OK);
		td = opendir(path);
		if (td == NULL)
			continue;	/* exited meanwhile */
		while ((te = readdir(td)) != NULL) {
			char tpath[96];
			if (!numeric(te->d_name) || strlen(te->d_name) > 10)
				continue;
			if (++ntasks > MAX_TASKS) {
				closedir(td);
				iso_add(r, "container.processes", 0, "more than %d "
				    "tasks", MAX_TASKS);
				goto out;
			}
			ASSERT(str_fmt(tpath, sizeof(tpath),
			    "/proc/%.10s/task/%.10s/status", de->d_name,
			    te->d_name) == STR_OK);
			if (proc_status_read(tpath, &ps) != 0) {
				if (errno == ENOENT || errno == ESRCH)
					continue;
				closedir(td);
				iso_add(r, "container.processes", 0, "the status of "
				    "task %.10s cannot be read", te->d_name);
				goto out;
			}
			if (!uids_ok(&ps, console)) {
				closedir(td);
				foreign(r, te->d_name, &ps);
				goto out;
			}
		}
		closedir(td);
	}
	iso_add(r, "container.processes", 1, "%lu tasks, all root or the "
	    "console account", ntasks);
out:
	closedir(d);
}

static void
check_self(const struct iso_snapshot *s, struct iso_report *r)
{
	struct proc_status ps;

	if (s->seccomp_mode != 2)
		iso_add(r, "container.seccomp", 0, "the console did not start "
		    "under a seccomp filter (seccomp=unconfined?)");
	else if (!s->filter_refuses && s->probe_errno == EINVAL)
		iso_add(r, "container.seccomp", 0, "the seccomp filter refuses "
		    "nothing (an allow-all profile: clone3 answered EINVAL)");
	else if (!s->filter_refuses)
		iso_add(r, "container.seccomp", 0, "the seccomp filter lets %s "
		    "through: neither the shipped profile nor Docker's default "
		    "(docs/docker.md)", s->probe_passed);
	else
		iso_add(r, "container.seccomp", 1, "started under a seccomp filter "
		    "(clone3, unshare, keyctl and add_key refused; clone3 with "
		    "errno %d)", s->probe_errno);
	if (proc_status_read("/proc/self/status", &ps) != 0 || ps.have_caps != 3)
		iso_add(r, "container.capabilities", 0, "the console's "
		    "capabilities cannot be read");
	else if (ps.capeff != 0 || ps.capprm != 0 || ps.capamb != 0)
		iso_add(r, "container.capabilities", 0, "the console holds "
		    "capabilities (effective %llx, permitted %llx, ambient %llx)",
		    ps.capeff, ps.capprm, ps.capamb);
	else
		iso_add(r, "container.capabilities", 1, "no capabilities");
	if (s->nnp != 1)
		iso_add(r, "container.no-new-privs", 0, "the console did not start "
		    "with no_new_privs (--security-opt no-new-privileges)");
	else
		iso_add(r, "container.no-new-privs", 1, "started with "
		    "no_new_privs");
}

/* Whether a filter refuses calls that both the shipped profile and
 * Docker's default refuse, each asked with arguments on which the kernel
 * itself answers otherwise, and each harmless when let through: clone3 with
 * no arguments (the kernel: EINVAL; Docker: ENOSYS), unshare(0) (a no-op
 * that succeeds; both profiles: EPERM without CAP_SYS_ADMIN), keyctl with
 * an unknown operation (EOPNOTSUPP) and add_key with no type (EFAULT; the
 * key calls are EPERM in both). One refused call alone, say clone3, is not
 * enough (docs/docker.md). Returns 1 when every probe was refused; else 0
 * with *passed naming the first the kernel answered. */
static int
seccomp_probe(int *clone3_errno, const char **passed)
{
	long ret;

	errno = 0;
	ret = syscall(SYS_clone3, NULL, 0);
	*clone3_errno = errno;
	if (!(ret < 0 && errno != EINVAL)) {
		*passed = "clone3";
		return 0;
	}
	if (syscall(SYS_unshare, 0) == 0) {
		*passed = "unshare";
		return 0;
	}
	errno = 0;
	if (!(syscall(SYS_keyctl, -1L, 0L, 0L, 0L, 0L) < 0 &&
	    errno != EOPNOTSUPP)) {
		*passed = "keyctl";
		return 0;
	}
	errno = 0;
	if (!(syscall(SYS_add_key, NULL, NULL, NULL, 0L, 0L) < 0 &&
	    errno != EFAULT)) {
		*passed = "add_key";
		return 0;
	}
	*passed = NULL;
	return 1;
}

void
isolation_snapshot(struct iso_snapshot *s)
{
	struct proc_status ps;

	memset(s, 0, sizeof(*s));
	s->seccomp_mode = s->nnp = -1;
	if (proc_status_read("/proc/self/status", &ps) == 0) {
		s->seccomp_mode = ps.seccomp;
		s->nnp = ps.nnp;
	}
	s->filter_refuses = seccomp_probe(&s->probe_errno, &s->probe_passed);
	s->taken = 1;
}

int
isolation_proc_report(const struct iso_agents *a,
    const struct iso_snapshot *s, struct iso_report *r)
{
	struct iso_snapshot fresh;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (s == NULL || !s->taken) {
		isolation_snapshot(&fresh);
		s = &fresh;
	}
	if (check_declaration(r) != 0) {
		check_host(a, r);
		isolation_kernel_host(a, r);
	} else {
		check_own_procfs(r);
		check_pid_namespace(r);
		check_processes(r, a->console_uid);
		check_self(s, r);
	}
	for (i = 0; i < r->n; i++)
		if (!r->c[i].ok)
			return -1;
	return 0;
}

int
isolation_proc_hidden(const struct iso_agents *a, struct isolation *iso,
    const char **why)
{
	struct iso_report r;

	if (isolation_proc_report(a, &iso->snap, &r) == 0)
		return 0;
	isolation_first_failure(&r, iso->why, sizeof(iso->why));
	*why = iso->why;
	return -1;
}
