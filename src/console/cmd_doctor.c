/* `lockfile doctor` (see doctor.h). Every condition is evaluated by the
 * same code the console uses (src/host/: isolation.c, terminal.c; the
 * sandbox probes, the policy parser, the store); doctor only gathers and
 * prints.
 * It reads; it never changes a file or a mode. */
#include "config.h"
#include "console/doctor.h"
#include "term/home.h"
#include "host/declare.h"
#include "host/isolation.h"
#include "host/kernel.h"
#include "host/terminal.h"
#include "console/listener.h"
#include "console/policy.h"
#include "sandbox/sandbox.h"
#include "store/store.h"
#include "update/update.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/paths.h"
#include "lib/render.h"
#include "lib/sysconf.h"
#include "lib/text.h"
#include "lib/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <jansson.h>

static const char usage_text[] =
"usage: lockfile doctor [--home DIR] [--socket PATH] [--clients-group NAME]\n"
"                       [--allowed-uids UID,...] [--json]\n"
"       lockfile doctor --declare-host [--clients-group NAME]\n"
"                       [--allowed-uids UID,...] [--json]      (as root)\n"
"\n"
"Checks every precondition of the console, one line per condition:\n"
"Landlock and seccomp, /proc hiding (host hidepid or the container\n"
"declaration and its conditions), the terminal, owners and modes of the\n"
"home, socket, binary and trust configuration, the approved policy, the\n"
"installed and yanked plugins, free space for the workspace cap.\n"
"Run it as the console account, where the console runs.\n"
"  --declare-host  as root: check that pid 1's mount namespace (the host's)\n"
"           has /proc mounted hidepid=invisible, every procfs in it hiding,\n"
"           and if so write host.toml naming that /proc (host mode needs it)\n"
"  --json   one JSON object: {\"ok\": bool, \"checks\": [{name, ok, detail}]}\n"
"Exit status: 0 every condition holds, 1 some condition fails, 64 usage.\n";

#define MAX_LINES 96

struct doctor {
	size_t n;
	struct { char name[80]; int ok; char detail[ISO_DETAIL_MAX + 64]; }
	    line[MAX_LINES];
	char home[PATH_MAX];
	const char *sockpath;
	struct iso_agents agents;
	struct policy pol;
	int have_policy;
};

/* A detail cut by its buffer ends on a whole character: rendered values
 * hold UTF-8, and --json needs valid UTF-8 (a cut one would drop it). */
static void
trim_utf8(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && !utf8_valid((const uint8_t *)s, n, 0))
		s[--n] = '\0';
}

static void add(struct doctor *d, const char *name, int ok,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
add(struct doctor *d, const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	if (d->n >= MAX_LINES)
		fatal("doctor: too many lines");
	if (str_fmt(d->line[d->n].name, sizeof(d->line[0].name), "%s",
	    name) != STR_OK)
		fatal("doctor: check name too long");
	d->line[d->n].ok = ok;
	va_start(ap, fmt);
	str_vmsg(d->line[d->n].detail, sizeof(d->line[0].detail), fmt, ap);
	va_end(ap);
	trim_utf8(d->line[d->n].detail);
	d->n++;
}

static void
add_report(struct doctor *d, const struct iso_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		add(d, r->c[i].name, r->c[i].ok, "%s", r->c[i].detail);
}

/* A file-derived value (a path, a name, a parser's message) as a human
 * reads it (lib/render.h): readable text as it is (in a UTF-8 locale),
 * everything else as a visible escape. */
static void
esc(const char *in, char *out, size_t outlen)
{
	render_text(in, strlen(in), render_locale_flags(), 0, out, outlen, NULL);
}

/* ---- sandbox ---- */

/* The kernel's own answer on filter mode and the actions the plugin
 * filter returns (errno, kill), without loading anything. */
static int
seccomp_actions_available(void)
{
	static const uint32_t acts[] = { SECCOMP_RET_ERRNO,
	    SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ALLOW };
	size_t i;

	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		uint32_t a = acts[i];
		if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &a) != 0)
			return 0;
	}
	return 1;
}

static void
check_sandbox(struct doctor *d)
{
	struct landlock_caps caps;
	struct bpf_program prog;
	const char *why = NULL;

	if (landlock_probe(&caps, &why) != 0)
		add(d, "landlock", 0, "%s: plugins cannot run", why);
	else
		add(d, "landlock", 1, "ABI %d; scopes: %s", caps.abi,
		    caps.scoped ? "signal, abstract-unix" :
		    "none (ABI < 6: signals and abstract sockets unscoped)");
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		add(d, "seccomp", 0, "seccomp is not supported by this kernel: "
		    "plugins cannot run");
	else if (!seccomp_actions_available())
		add(d, "seccomp", 0, "this kernel offers no seccomp filter with "
		    "the actions the plugin filter uses: plugins cannot run");
	else if (plugin_filter_build(&prog, &why) != 0)
		add(d, "seccomp", 0, "the plugin filter cannot be built: %s", why);
	else {
		add(d, "seccomp", 1, "filter mode; the plugin filter has %zu "
		    "instructions", prog.len);
		plugin_filter_free(&prog);
	}
}

/* ---- owners and modes ---- */

static void
check_home(struct doctor *d)
{
	struct stat st;
	char h[PATH_MAX * 2];

	esc(d->home, h, sizeof(h) / 4);
	if (lstat(d->home, &st) != 0 || !S_ISDIR(st.st_mode))
		add(d, "home", 0, "%s is not a directory", h);
	else if (st.st_uid != getuid())
		add(d, "home", 0, "%s belongs to uid %u, not the console account",
		    h, (unsigned)st.st_uid);
	else if (st.st_mode & 077)
		add(d, "home", 0, "%s has mode %04o (want 0700)", h,
		    (unsigned)(st.st_mode & 07777));
	else
		add(d, "home", 1, "%s, 0700, the console account's", h);
}

static void
check_socket(struct doctor *d)
{
	char dir[PATH_MAX], p[PATH_MAX], why[ISO_DETAIL_MAX + 64];
	const char *slash = strrchr(d->sockpath, '/');
	struct stat st;

	esc(d->sockpath, p, sizeof(p) / 4);
	if (slash == NULL || slash == d->sockpath ||
	    (size_t)(slash - d->sockpath) >= sizeof(dir)) {
		add(d, "socket-dir", 0, "%s has no directory", p);
		return;
	}
	memcpy(dir, d->sockpath, (size_t)(slash - d->sockpath));
	dir[slash - d->sockpath] = '\0';
	if (listener_check_dir(dir, getuid(), d->agents.have_clients_gid,
	    d->agents.clients_gid, why, sizeof(why)) != 0)
		add(d, "socket-dir", 0, "%s", why);
	else
		add(d, "socket-dir", 1, "2750, the console account's, the clients "
		    "group");
	if (lstat(d->sockpath, &st) != 0)
		add(d, "socket", 1, "%s not present (no console running)", p);
	else if (!S_ISSOCK(st.st_mode) || st.st_uid != getuid())
		add(d, "socket", 0, "%s is not the console account's socket", p);
	else if ((st.st_mode & 0777) != 0660 || (d->agents.have_clients_gid &&
	    st.st_gid != d->agents.clients_gid))
		add(d, "socket", 0, "%s: mode %04o group %u (want 0660, the "
		    "clients group)", p, (unsigned)(st.st_mode & 07777),
		    (unsigned)st.st_gid);
	else
		add(d, "socket", 1, "%s, 0660, the clients group", p);
}

/* The binary the console runs: root's, closed to writes, in root-owned
 * directories ("The agent cannot replace the binary the console runs"). */
static void
check_binary(struct doctor *d)
{
	char why[ISO_DETAIL_MAX + 64];
	int ok = sysconf_check_binary(why, sizeof(why)) == 0;

	add(d, "binary", ok, "%s", why);
}

/* Which signed release this binary is, checked now (src/update/,
 * docs/releases.md): a build says so and passes. */
static void
check_launcher(struct doctor *d)
{
	char detail[sizeof(d->line[0].detail)];
	int ok = update_report(detail, sizeof(detail));

	add(d, "launcher", ok, "%s", detail);
}

/* /etc/lockfile: the trusted root, marketplaces, system.toml and the
 * container declaration, each root-owned and closed to writes. */
static void
check_trust(struct doctor *d)
{
	const char *why = NULL, *dir = sysconf_dir(&why);
	char bad[128] = "", e[256];
	struct dirent *de;
	size_t files = 0;
	DIR *dd;

	if (dir == NULL) {
		add(d, "trust-config", 0, "%s", why);
		return;
	}
	esc(dir, e, sizeof(e));
	dd = opendir(dir);
	if (dd == NULL) {
		add(d, "trust-config", 0, "%s cannot be listed", e);
		return;
	}
	while ((de = readdir(dd)) != NULL) {
		int fd;
		if (de->d_name[0] == '.')
			continue;
		fd = sysconf_open(de->d_name, &why);
		files++;
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (bad[0] == '\0')
			esc(de->d_name, bad, sizeof(bad));
	}
	closedir(dd);
	if (bad[0] != '\0')
		add(d, "trust-config", 0, "%s/%s: %s", e, bad, why);
	else
		add(d, "trust-config", 1, "%s and its %zu files are root's and "
		    "closed to writes", e, files);
}

/* ---- policy, plugins, space ---- */

static void
check_policy(struct doctor *d)
{
	char edit[PATH_MAX + 64], approved[PATH_MAX + 64], why[256];
	const char *rwhy = NULL;
	char *text, *etext;
	size_t len = 0, elen = 0;

	policy_paths(d->home, edit, sizeof(edit), approved, sizeof(approved));
	text = policy_read_file(approved, &len, &rwhy);
	if (text == NULL) {
		add(d, "policy.approved", 0, "no approved policy (%s): lockfile "
		    "policy approve", rwhy);
		return;
	}
	if (policy_parse(text, len, d->home, &d->pol, why, sizeof(why)) != 0) {
		char e[256];
		esc(why, e, sizeof(e));
		add(d, "policy.approved", 0, "the approved policy is invalid: %s", e);
		free(text);
		return;
	}
	d->have_policy = 1;
	add(d, "policy.approved", 1, "approved, %zu profile%s", d->pol.nprofiles,
	    d->pol.nprofiles == 1 ? "" : "s");
	etext = policy_read_file(edit, &elen, &rwhy);
	if (etext != NULL && (elen != len || memcmp(etext, text, len) != 0))
		add(d, "policy.edit", 0, "policy.toml has an edit that is not "
		    "approved (lockfile policy approve)");
	else
		add(d, "policy.edit", 1, "no unapproved edit");
	free(etext);
	free(text);
}

/* Each profile as the console would open it: who may read a local
 * directory (sources/local.h), with the path and the mode refused. */
static void
check_sources(struct doctor *d)
{
	char why[ISO_DETAIL_MAX + 32], name[80];
	size_t i;

	for (i = 0; d->have_policy && i < d->pol.nprofiles; i++) {
		const struct profile *pr = &d->pol.profiles[i];
		if (pr->kind->check == NULL)
			continue;
		/* a profile name is at most 64 bytes: it fits */
		str_msg(name, sizeof(name), "source.%s", pr->name);
		if (pr->kind->check(pr->table, why, sizeof(why)) != 0)
			add(d, name, 0, "%s", why);
		else
			add(d, name, 1, "only the console account can read it");
	}
}

static void
check_plugins(struct doctor *d)
{
	static struct store s;
	char yanked[160] = "", bad[200] = "";
	const char *why = NULL;
	size_t i, ny = 0, nok = 0;

	if (store_open(&s, d->home, &why) != 0) {
		add(d, "plugins", 0, "plugins.lock: %s", why);
		return;
	}
	for (i = 0; i < s.db.n; i++) {
		const struct lock_entry *e = &s.db.e[i];
		struct opened_plugin op;
		char name[80], n[48], v[32];

		/* plugins.lock is a file: its names are rendered too */
		esc(e->name, n, sizeof(n));
		esc(e->version, v, sizeof(v));
		str_msg(name, sizeof(name), "%s@%s", n, v);
		if (e->yanked) {
			size_t l = strlen(yanked);
			if (l + strlen(name) + 3 < sizeof(yanked))
				str_msg(yanked + l, sizeof(yanked) - l, "%s%s",
				    ny ? ", " : "", name);
			ny++;
			continue;
		}
		if (store_open_plugin(&s, e->name, e->version, &op, &why) !=
		    STORE_OK) {
			if (bad[0] == '\0')
				str_msg(bad, sizeof(bad), "%s: %s", name, why);
			continue;
		}
		close(op.binfd);
		nok++;
	}
	if (bad[0] != '\0')
		add(d, "plugins", 0, "%s", bad);
	else
		add(d, "plugins", 1, "%zu installed, hashes match plugins.lock", nok);
	if (ny > 0)
		add(d, "plugins.yanked", 0, "recorded as yanked (they do not run; "
		    "update or remove them): %s", yanked);
	else
		add(d, "plugins.yanked", 1, "none recorded as yanked");
}

static void
check_space(struct doctor *d)
{
	char p[PATH_MAX];
	struct statvfs sv;
	unsigned long long avail;

	if (!d->have_policy) {
		add(d, "workspace.space", 0, "no approved policy to read the cap "
		    "from");
		return;
	}
	/* The work directory may not exist yet: its nearest ancestor. */
	if (str_fmt(p, sizeof(p), "%s", d->pol.work_dir) != STR_OK) {
		add(d, "workspace.space", 0, "work_dir is too long");
		return;
	}
	while (statvfs(p, &sv) != 0) {
		char *slash = strrchr(p, '/');
		if (slash == NULL || slash == p) {
			memcpy(p, "/", 2);
			if (statvfs(p, &sv) != 0) {
				add(d, "workspace.space", 0, "no filesystem found");
				return;
			}
			break;
		}
		*slash = '\0';
	}
	avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
	if (avail < d->pol.max_workspace_bytes)
		add(d, "workspace.space", 0, "%llu bytes free, the cap is %llu",
		    avail, d->pol.max_workspace_bytes);
	else
		add(d, "workspace.space", 1, "%llu bytes free for a cap of %llu",
		    avail, d->pol.max_workspace_bytes);
}

/* ---- the agents (as the console would see them) ---- */

/* The console's own builder (agents_build, host/agents.h) on the same
 * inputs: the clients group as listener_open resolves it, the build-time
 * uids, the policy's (when it loads) and --allowed-uids. */
static int
agents_init(struct doctor *d, const char *group, const char *uids)
{
	struct group *gr = getgrnam(group);
	struct agents_in in = {
		.console_uid = getuid(),
		.have_clients_gid = gr != NULL,
		.clients_gid = gr != NULL ? gr->gr_gid : 0,
		.build_uids = LOCKFILE_ALLOWED_UIDS,
		.policy_uids = d->have_policy ? d->pol.allowed_uids : NULL,
		.npolicy = d->have_policy ? d->pol.nallowed : 0,
		.cli_uids = uids,
	};

	return agents_build(&in, &d->agents) == AGENTS_OK ? 0 : -1;
}

static int
print(const struct doctor *d, int as_json)
{
	size_t i;
	int fail = 0;

	for (i = 0; i < d->n; i++)
		fail |= !d->line[i].ok;
	if (as_json) {
		json_t *doc = json_object(), *arr = json_array();
		char *s;
		for (i = 0; i < d->n; i++) {
			json_t *o = json_object();
			json_object_set_new(o, "name", json_string(d->line[i].name));
			json_object_set_new(o, "ok", json_boolean(d->line[i].ok));
			json_object_set_new(o, "detail",
			    json_string(d->line[i].detail));
			json_array_append_new(arr, o);
		}
		json_object_set_new(doc, "ok", json_boolean(!fail));
		json_object_set_new(doc, "checks", arr);
		s = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII);
		if (s == NULL)
			fatal_f("out of memory");
		printf("%s\n", s);
		free(s);
		json_decref(doc);
	} else {
		/* Details are our text with file-derived values escaped. */
		for (i = 0; i < d->n; i++)
			printf("%-4s %-24s %s\n", d->line[i].ok ? "ok" : "FAIL",
			    d->line[i].name, d->line[i].detail);
		printf("%s\n", fail ? "doctor: some conditions fail" :
		    "doctor: every condition holds");
	}
	return fail ? 1 : 0;
}

/* host.toml, atomically, root's and 0644: what the console compares its
 * own /proc with (host/declared.c). */
static int
write_declaration(unsigned long long id, char *path, size_t pathlen)
{
	const char *why = NULL, *dir = sysconf_dir(&why);
	char tmp[PATH_MAX + 64], text[512];
	int fd, dfd, n;

	if (dir == NULL) {
		logit("%s (make install creates it)", why);
		return -1;
	}
	if (str_fmt(path, pathlen, "%s/%s", dir, LF_SYS_HOST) != STR_OK ||
	    str_fmt(tmp, sizeof(tmp), "%s.tmp", path) != STR_OK) {
		logit("the system configuration path is too long");
		return -1;
	}
	if (str_fmt(text, sizeof(text), "# Written by `lockfile doctor "
	    "--declare-host` (root): the mount of the host's /proc (pid 1's\n"
	    "# mount namespace), every procfs of which hides other accounts' "
	    "processes.\n# Host mode runs plugins only for a console whose "
	    "/proc is this mount\n# (docs/isolation.md). Run it again after "
	    "/proc is mounted anew.\nproc_mount_id = %llu\n", id) != STR_OK) {
		logit("the declaration does not fit its buffer");
		return -1;
	}
	n = (int)strlen(text);
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fchmod(fd, 0644) != 0 ||
	    write_full(fd, text, (size_t)n) != 0 || fsync(fd) != 0 ||
	    close(fd) != 0 || rename(tmp, path) != 0) {
		logit_errno("cannot write %s", path);
		(void)unlink(tmp);
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* `lockfile doctor --declare-host`, as root. */
static int
declare_host(struct doctor *d, int as_json)
{
	struct iso_report r;
	unsigned long long id = 0;
	char path[PATH_MAX + 32], e[PATH_MAX];
	int ret;

	(void)isolation_host_report(&d->agents, &r, &id);
	add_report(d, &r);
	ret = print(d, as_json);
	if (ret != 0 || id == 0) {
		if (!as_json)
			printf("doctor: nothing declared: fix the host's /proc first "
			    "(docs/host.md)\n");
		return 1;
	}
	if (write_declaration(id, path, sizeof(path)) != 0)
		return 1;
	esc(path, e, sizeof(e));
	if (!as_json)
		printf("doctor: declared %s (proc_mount_id = %llu)\n", e, id);
	return 0;
}

int
cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "socket", required_argument, NULL, 's' },
		{ "allowed-uids", required_argument, NULL, 'u' },
		{ "clients-group", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "declare-host", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct doctor doc;
	struct doctor *d = &doc;
	const char *home = NULL, *group = LF_CLIENTS_GROUP, *uids = NULL;
	struct iso_report r;
	int ch, as_json = 0, tty, ret, declare = 0;

	d->sockpath = LF_SOCKET;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'H': home = optarg; break;
		case 's': d->sockpath = optarg; break;
		case 'u': uids = optarg; break;
		case 'g': group = optarg; break;
		case 'j': as_json = 1; break;
		case 'D': declare = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 64;
		}
	}
	if (optind != argc) {
		fputs(usage_text, stderr);
		return 64;
	}
	if (declare) {
		if (getuid() != 0 || geteuid() != 0 || home != NULL) {
			logit("--declare-host runs as root, without --home");
			return 64;
		}
		if (agents_init(d, group, uids) != 0) {
			logit("--allowed-uids: a comma-separated list of uids above 0");
			return 64;
		}
		return declare_host(d, as_json);
	}
	if (getuid() == 0 || geteuid() == 0) {
		logit("run doctor as the console account, where the console runs "
		    "(as root, only --declare-host)");
		return 64;
	}
	if (home == NULL) {
		struct passwd *pw = getpwuid(getuid());
		if (pw == NULL || pw->pw_dir == NULL) {
			logit("the account has no home directory");
			return 64;
		}
		home = pw->pw_dir;
	}
	if (home[0] != '/' || strlen(home) >= sizeof(d->home) - 128) {
		logit("--home must be an absolute path");
		return 64;
	}
	if (str_fmt(d->home, sizeof(d->home), "%s", home) != STR_OK) {
		logit("--home must be an absolute path");
		return 64;
	}

	check_sandbox(d);
	check_policy(d);
	if (agents_init(d, group, uids) != 0) {
		logit("--allowed-uids: a comma-separated list of uids above 0");
		return 64;
	}
	add(d, "agents", 1, "%zu allowed uid%s%s", d->agents.nallowed,
	    d->agents.nallowed == 1 ? "" : "s",
	    d->agents.have_clients_gid ? " and the clients group" :
	    " (no clients group on this system)");
	(void)isolation_proc_report(&d->agents, NULL, &r);
	add(d, "isolation.mode", 1, "%s", r.container ? "container (the "
	    "declaration exists)" : "host (no container declaration)");
	add_report(d, &r);
	isolation_kernel_report(&d->agents, r.container, &r);
	add_report(d, &r);
	tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	(void)isolation_terminal_report(tty, &d->agents, &r);
	if (tty >= 0)
		close(tty);
	add_report(d, &r);
	check_home(d);
	check_socket(d);
	check_binary(d);
	check_launcher(d);
	check_trust(d);
	check_sources(d);
	check_plugins(d);
	check_space(d);
	ret = print(d, as_json);
	if (d->have_policy)
		policy_free(&d->pol);
	return ret;
}
