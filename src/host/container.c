/* Container mode's /proc conditions (see host/container.h,
 * docs/isolation.md "Container mode"): the pid namespace is the
 * container's own, with nobody but root and the console account in it.
 * Every fact is read from the kernel at the moment of the check, except
 * the two that only the pre-confinement snapshot can see (the container's
 * seccomp filter and no_new_privs). */
#include "host/container.h"
#include "host/declare.h"
#include "host/mountinfo.h"
#include "host/proc.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The inode of the initial (host) pid namespace, fixed by the kernel. */
#define PROC_PID_INIT_INO 0xEFFFFFFCULL
/* linux/pidfd.h (6.11); Debian 12's headers predate it. */
#define LF_PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5)

#define DECLARATION "container.toml"
#define DECLARATION_MAX 4096
#define MAX_TASKS 65536		/* a container with more is refused */

int
iso_container_declaration(struct iso_report *r)
{
	char why[ISO_DETAIL_MAX];
	json_t *v;

	if (iso_declaration_read(DECLARATION, DECLARATION_MAX, "container", &v,
	    why, sizeof(why)) != 0) {
		if (errno == ENOENT)
			return -1;
		r->container = 1;
		iso_add(r, "container.declaration", 0, "%s", why);
		return 0;
	}
	r->container = 1;
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) > 32 ||
	    strspn(json_string_value(v), "abcdefghijklmnopqrstuvwxyz0123456789-")
	    != json_string_length(v)) {
		iso_add(r, "container.declaration", 0, "%s must hold exactly "
		    "container = \"<runtime>\" (lowercase word)", DECLARATION);
	} else {
		iso_add(r, "container.declaration", 1, "%s declares a %s "
		    "container", DECLARATION, json_string_value(v));
	}
	json_decref(v);
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

	if (!iso_is_procfs()) {
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
	if (iso_proc_mount_read(&m) != 0 || m.bad_opts) {
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

/* The console's own confinement: what the snapshot saw before it
 * confined itself, and its capabilities now. */
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

void
iso_container_checks(uid_t console_uid, const struct iso_snapshot *s,
    struct iso_report *r)
{
	check_own_procfs(r);
	check_pid_namespace(r);
	check_processes(r, console_uid);
	check_self(s, r);
}
