/* Unit tests of the isolation checks' parsers and decisions that need no
 * namespace set-up (the situations themselves are in test_*.py): the
 * strict /proc/<pid>/status reader on crafted files, the field splitter,
 * which groups the allowed agents have (this machine's accounts from
 * tests/setup-accounts.sh), and the container declaration's own checks
 * (owner, mode, content) through a test system configuration directory.
 * Runs as root (it makes root-owned and non-root-owned files); TAP. */
#include "host/agents.h"
#include "host/isolation.h"
#include "host/proc.h"
#include "host/report.h"
#include "lib/fd.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void
put(const char *name, const char *text, mode_t mode, uid_t owner)
{
	char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	(void)unlink(p);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_full(fd, text, strlen(text)) != 0 ||
	    fchmod(fd, mode) != 0 || fchown(fd, owner, 0) != 0 || close(fd) != 0)
		tap_bail("cannot write %s", p);
}

static int
status_of(const char *text, struct proc_status *ps)
{
	put("status", text, 0644, 0);
	{
		char p[128];
		snprintf(p, sizeof(p), "%s/status", dir);
		return proc_status_read(p, ps);
	}
}

static void
test_status(void)
{
	struct proc_status ps;
	char *big;
	size_t i, off;

	tap_ok(status_of("Name:\ttmux: server\nPPid:\t7\nUid:\t1002\t1002\t1002\t"
	    "1002\nNSpid:\t41\t3\nThreads:\t2\nCapEff:\t0000000000000000\n"
	    "CapPrm:\t0000000000000400\nCapAmb:\t0000000000000000\n"
	    "NoNewPrivs:\t1\nSeccomp:\t2\n", &ps) == 0 &&
	    strcmp(ps.name, "tmux: server") == 0 && ps.ppid == 7 &&
	    ps.uid[3] == 1002 && ps.nnspid == 2 && ps.nspid_last == 3 &&
	    ps.threads == 2 && ps.capprm == 0x400 && ps.have_caps == 3 &&
	    ps.nnp == 1 && ps.seccomp == 2, "status: every field parsed");
	tap_ok(status_of("Name:\tx\nUid:\t1\t2\t3\n", &ps) != 0 && errno == EINVAL,
	    "status: three uid fields refused");
	tap_ok(status_of("Name:\tx\nUid:\t1\t2\t3\t4\t5\n", &ps) != 0,
	    "status: five uid fields refused");
	tap_ok(status_of("Name:\tx\nUid:\t1\t2\t-3\t4\n", &ps) != 0,
	    "status: a signed uid refused");
	tap_ok(status_of("Name:\tx\nUid:\t1\t2\t 3\t4\n", &ps) != 0,
	    "status: a padded uid refused");
	tap_ok(status_of("Name:\tx\nUid:\t1\t2\t3\t4\nCapEff:\tffffzzzz\n", &ps)
	    != 0, "status: bad capability hex refused");
	tap_ok(status_of("Name:\tx\n", &ps) != 0, "status: no Uid line "
	    "refused");
	/* A Groups line longer than the reader's chunk: its tail must never be
	 * taken for a field, even when it looks like one. */
	big = malloc(20000);
	off = (size_t)snprintf(big, 20000, "Name:\tx\nGroups:\t");
	for (i = 0; i < 1500; i++)
		off += (size_t)snprintf(big + off, 20000 - off, "%zu ", i + 100);
	snprintf(big + off, 20000 - off, "\nUid:\t5\t5\t5\t5\nNSpid:\t9\n");
	tap_ok(status_of(big, &ps) == 0 && ps.uid[0] == 5 && ps.nnspid == 1,
	    "status: a long Groups line is skipped whole");
	free(big);
	/* Past PROC_STATUS_MAX the file is cut (one read): the line the cut
	 * falls in is never taken for a field ("Threads:\t1" of 12), and the
	 * fields after it stay unknown. */
	big = malloc(PROC_STATUS_MAX + 64);
	off = (size_t)snprintf(big, PROC_STATUS_MAX + 64,
	    "Name:\tx\nUid:\t5\t5\t5\t5\nGroups:\t");
	while (off < PROC_STATUS_MAX - sizeof("\nThreads:\t1") + 1)
		big[off++] = '7';
	snprintf(big + off, PROC_STATUS_MAX + 64 - off,
	    "\nThreads:\t12\nSeccomp:\t2\n");
	tap_ok(status_of(big, &ps) == 0 && ps.uid[0] == 5 && ps.threads == -1 &&
	    ps.seccomp == -1, "status: a file past PROC_STATUS_MAX is cut at "
	    "its last whole line");
	free(big);
	tap_ok(proc_status_read("/proc/self/status", &ps) == 0 &&
	    ps.uid[0] == (unsigned long long)getuid() && ps.nnspid >= 1,
	    "status: /proc/self/status parses");
}

static void
test_tok(void)
{
	char s[] = "a,,b", *cur = s, *t1, *t2, *t3, *t4;

	t1 = iso_tok_next(&cur, ',');
	t2 = iso_tok_next(&cur, ',');
	t3 = iso_tok_next(&cur, ',');
	t4 = iso_tok_next(&cur, ',');
	tap_ok(strcmp(t1, "a") == 0 && strcmp(t2, "") == 0 &&
	    strcmp(t3, "b") == 0 && t4 == NULL, "tok: separators are not merged");
}

static int
account(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(name);	/* static storage: copy */

	if (pw == NULL)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

static void
test_agents(void)
{
	uid_t agent, con, allowed, out;
	gid_t agent_g, con_g, allowed_g, out_g;
	struct group *clients = getgrnam("lockfile-clients");
	struct iso_agents a;
	char who[160];

	if (account("agent", &agent, &agent_g) != 0 ||
	    account("lockfile", &con, &con_g) != 0 ||
	    account("lf-allowed", &allowed, &allowed_g) != 0 ||
	    account("lf-outsider", &out, &out_g) != 0 || clients == NULL)
		tap_bail("tests/setup-accounts.sh has not been run");
	memset(&a, 0, sizeof(a));
	a.console_uid = con;
	a.have_clients_gid = 1;
	a.clients_gid = clients->gr_gid;
	tap_ok(iso_agent_has_gid(&a, a.clients_gid, who, sizeof(who)) == 1,
	    "agents: the clients group itself (%s)", who);
	tap_ok(iso_agent_has_gid(&a, agent_g, who, sizeof(who)) == 1,
	    "agents: agent's own group (%s)", who);
	tap_ok(iso_agent_has_gid(&a, 0, who, sizeof(who)) == 0,
	    "agents: no agent has group 0 (the hidepid default)");
	tap_ok(iso_agent_has_gid(&a, con_g, who, sizeof(who)) == 0,
	    "agents: the console account's group is no agent's");
	tap_ok(iso_agent_has_gid(&a, out_g, who, sizeof(who)) == 0,
	    "agents: an outsider's group is no agent's");
	tap_ok(iso_agent_has_gid(&a, allowed_g, who, sizeof(who)) == 0,
	    "agents: lf-allowed's group is no agent's while it is not allowed");
	a.allowed[0] = allowed;
	a.nallowed = 1;
	tap_ok(iso_agent_has_gid(&a, allowed_g, who, sizeof(who)) == 1,
	    "agents: an allowed uid's group (%s)", who);
	a.allowed[1] = 4000123;	/* no account */
	a.nallowed = 2;
	tap_ok(iso_agent_has_gid(&a, out_g, who, sizeof(who)) == 1 &&
	    strstr(who, "no account") != NULL, "agents: an allowed uid without "
	    "an account fails closed (%s)", who);
	/* The store's prompts: every other account counts. */
	memset(&a, 0, sizeof(a));
	a.console_uid = con;
	a.everyone = 1;
	tap_ok(iso_agent_has_gid(&a, out_g, who, sizeof(who)) == 1,
	    "everyone: an outsider's group (%s)", who);
	tap_ok(iso_agent_has_gid(&a, agent_g, who, sizeof(who)) == 1,
	    "everyone: the agent's group (%s)", who);
	tap_ok(iso_agent_has_gid(&a, con_g, who, sizeof(who)) == 0,
	    "everyone: the console account's own group is nobody else's");
	tap_ok(iso_agent_has_gid(&a, 0, who, sizeof(who)) == 0,
	    "everyone: root's group 0 is nobody else's");
}

static const struct iso_check *
find(const struct iso_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->c[i].name, name) == 0)
			return &r->c[i];
	return NULL;
}

static void
test_declaration(void)
{
	struct iso_agents a;
	struct iso_report r;
	const struct iso_check *c;
	uid_t con;
	gid_t con_g;

	if (account("lockfile", &con, &con_g) != 0)
		exit(1);
	memset(&a, 0, sizeof(a));
	a.console_uid = con;
	setenv("LOCKFILE_SYSCONFDIR", dir, 1);
	{
		char p[128];
		snprintf(p, sizeof(p), "%s/status", dir);
		(void)unlink(p);
	}
	(void)isolation_proc_report(&a, NULL, &r);
	tap_ok(!r.container && find(&r, "proc.hidepid") != NULL,
	    "declaration: absent means host mode");
	put("container.toml", "container = \"docker\"\n", 0644, 0);
	(void)isolation_proc_report(&a, NULL, &r);
	c = find(&r, "container.declaration");
	tap_ok(r.container && c != NULL && c->ok, "declaration: a valid one "
	    "holds (%s)", c ? c->detail : "missing");
	tap_ok(find(&r, "container.pid-namespace") != NULL &&
	    find(&r, "container.processes") != NULL &&
	    find(&r, "container.seccomp") != NULL &&
	    find(&r, "container.no-new-privs") != NULL &&
	    find(&r, "container.capabilities") != NULL &&
	    find(&r, "container.procfs") != NULL,
	    "declaration: container mode names every condition");
	c = find(&r, "container.pid-namespace");
	tap_ok(c != NULL && !c->ok, "declaration: this test runs in the host's "
	    "pid namespace, and that fails (%s)", c ? c->detail : "");
	put("container.toml", "container = \"docker\"\n", 0664, 0);
	(void)isolation_proc_report(&a, NULL, &r);
	c = find(&r, "container.declaration");
	tap_ok(r.container && c != NULL && !c->ok, "declaration: group-writable "
	    "fails (%s)", c ? c->detail : "");
	put("container.toml", "container = \"docker\"\n", 0644, con);
	(void)isolation_proc_report(&a, NULL, &r);
	c = find(&r, "container.declaration");
	tap_ok(r.container && c != NULL && !c->ok, "declaration: not root-owned "
	    "fails (%s)", c ? c->detail : "");
	put("container.toml", "container = \"docker\"\nhidepid = false\n", 0644,
	    0);
	(void)isolation_proc_report(&a, NULL, &r);
	c = find(&r, "container.declaration");
	tap_ok(c != NULL && !c->ok, "declaration: an unknown key fails");
	put("container.toml", "container = \"Docker \\u001b[2J\"\n", 0644, 0);
	(void)isolation_proc_report(&a, NULL, &r);
	c = find(&r, "container.declaration");
	tap_ok(c != NULL && !c->ok && strchr(c->detail, 0x1b) == NULL,
	    "declaration: a runtime name that is not a plain word fails, "
	    "nothing echoed");
	put("container.toml", "container = [\n", 0644, 0);
	(void)isolation_proc_report(&a, NULL, &r);
	c = find(&r, "container.declaration");
	tap_ok(c != NULL && !c->ok, "declaration: bad TOML fails (%s)",
	    c ? c->detail : "");
	chmod(dir, 0775);
	put("container.toml", "container = \"docker\"\n", 0644, 0);
	(void)isolation_proc_report(&a, NULL, &r);
	c = find(&r, "container.declaration");
	tap_ok(r.container && c != NULL && !c->ok, "declaration: a group-writable "
	    "directory fails closed, never host mode (%s)", c ? c->detail : "");
	chmod(dir, 0755);
	setenv("LOCKFILE_SYSCONFDIR", "/nonexistent-lockfile-sysconf", 1);
	(void)isolation_proc_report(&a, NULL, &r);
	tap_ok(!r.container, "declaration: a missing directory means host "
	    "mode");
	unsetenv("LOCKFILE_SYSCONFDIR");
}

int
main(void)
{
	char p[128];

	if (getuid() != 0)
		tap_bail("run as root (it makes root-owned files)");
	snprintf(dir, sizeof(dir), "/tmp/lfiso-XXXXXX");
	if (mkdtemp(dir) == NULL || chmod(dir, 0755) != 0)
		tap_bail("mkdtemp");
	test_status();
	test_tok();
	test_agents();
	test_declaration();
	snprintf(p, sizeof(p), "%s/container.toml", dir);
	(void)unlink(p);
	snprintf(p, sizeof(p), "%s/status", dir);
	(void)unlink(p);
	(void)rmdir(dir);
	return tap_done();
}
