/* Host mode: whether the /proc the agents see is the one the console
 * checked (docs/isolation.md, "Host mode"). Boundary (seed,
 * "Preconditions"): no other account sees the plugins' processes.
 *
 * hidepid is an option of one procfs mount. A console in a mount namespace
 * of its own (a unit with ProtectProc=, an unshare, a test harness) can
 * mount a hidepid /proc that only it uses, while the agents, on the host's
 * /proc, see everything. The console cannot see the host's mounts from
 * there (pid 1 is invisible under hidepid), so root declares them:
 * `lockfile doctor --declare-host` reads pid 1's mount namespace, checks
 * that every procfs in it hides, and writes host.toml naming the mount id
 * of its /proc. The console accepts host mode only on that very mount: a
 * private namespace's /proc is a copy with another id. Without the
 * declaration host mode is refused: nobody can tell. */
#include "host/declare.h"
#include "host/mountinfo.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/str.h"
#include "lib/sysconf.h"
#include "lib/toml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOST_MAX 4096
#define MAX_AT_PROC 32		/* mounts stacked on /proc */

struct scan {
	const struct iso_agents *a;
	int nprocfs;
	char bad[512];		/* the first procfs that does not hide */
	size_t nat;
	unsigned long long at_id[MAX_AT_PROC], at_parent[MAX_AT_PROC];
	struct proc_mount at_opts[MAX_AT_PROC];
};

static int
scan_one(struct mount_entry *e, void *arg)
{
	struct scan *sc = arg;
	struct proc_mount m;
	char mp[128], who[160];
	int at_proc = strcmp(e->mountpoint, "/proc") == 0;

	if (at_proc && sc->nat < MAX_AT_PROC) {
		sc->at_id[sc->nat] = e->id;
		sc->at_parent[sc->nat] = e->parent;
		memset(&sc->at_opts[sc->nat], 0, sizeof(sc->at_opts[0]));
		sc->at_opts[sc->nat].bad_opts = strcmp(e->fstype, "proc") != 0;
	}
	if (strcmp(e->fstype, "proc") != 0) {
		if (at_proc && sc->nat < MAX_AT_PROC)
			sc->nat++;
		return 0;
	}
	memset(&m, 0, sizeof(m));
	iso_parse_proc_opts(e->super_opts, &m);
	if (at_proc && sc->nat < MAX_AT_PROC)
		sc->at_opts[sc->nat++] = m;
	sc->nprocfs++;
	if (sc->bad[0] != '\0')
		return 0;
	escape_text(e->mountpoint, strlen(e->mountpoint), mp, sizeof(mp));
	if (m.bad_opts || m.hidepid != 2)
		str_msg(sc->bad, sizeof(sc->bad), "the procfs at %s (mount %llu) "
		    "is not hidepid=invisible: every account reads the plugins' "
		    "/proc entries through it", mp, e->id);
	else if (iso_agent_has_gid(sc->a, (gid_t)m.gid, who, sizeof(who)))
		str_msg(sc->bad, sizeof(sc->bad), "the procfs at %s (mount %llu) "
		    "exempts gid=%llu and %s", mp, e->id, m.gid, who);
	return 0;
}

/* Every mount of the namespace whose mountinfo is at path; -1 when it
 * cannot be read. */
static int
scan(const char *path, const struct iso_agents *a, struct scan *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->a = a;
	return iso_mountinfo_each(path, scan_one, sc) < 0 ? -1 : 0;
}

/* The mount on top at /proc: the one no other mount at /proc sits on.
 * -1 when there is none, or more than one (cannot tell). */
static int
top_at_proc(const struct scan *sc)
{
	size_t i, j;
	int top = -1;

	for (i = 0; i < sc->nat; i++) {
		int covered = 0;
		for (j = 0; j < sc->nat; j++)
			if (j != i && sc->at_parent[j] == sc->at_id[i])
				covered = 1;
		if (covered)
			continue;
		if (top >= 0)
			return -1;
		top = (int)i;
	}
	return sc->nat >= MAX_AT_PROC ? -1 : top;
}

static void
add_mounts_check(struct iso_report *r, const char *name, const struct scan *sc)
{
	if (sc->bad[0] != '\0')
		iso_add(r, name, 0, "%s", sc->bad);
	else
		iso_add(r, name, 1, "%d procfs mount%s, each hidepid=invisible "
		    "with no agent's gid", sc->nprocfs, sc->nprocfs == 1 ? "" : "s");
}

int
iso_declaration_read(const char *name, size_t max, const char *key,
    json_t **val, char *why, size_t whylen)
{
	const char *swhy = NULL, *k;
	struct toml_error terr;
	size_t len = 0;
	char *text;
	json_t *doc, *v;
	int ok = 1;

	*val = NULL;
	errno = 0;
	text = sysconf_read(name, max, &len, &swhy);
	if (text == NULL) {
		int e = errno;
		str_msg(why, whylen, "%s: %s", name, swhy);
		errno = e;
		return -1;
	}
	doc = toml_parse(text, len, &terr);
	free(text);
	if (doc == NULL) {
		str_msg(why, whylen, "%s is not valid TOML (line %d: %s)", name,
		    terr.line, terr.msg);
		errno = EINVAL;
		return -1;
	}
	json_object_foreach(doc, k, v)
		if (strcmp(k, key) != 0)
			ok = 0;
	v = json_object_get(doc, key);
	if (ok && v != NULL)
		*val = json_incref(v);
	json_decref(doc);
	return 0;
}

/* host.toml: 0 with *id, -1 when absent (errno ENOENT) or refused (why). */
static int
read_declaration(unsigned long long *id, char *why, size_t whylen)
{
	json_t *v;

	if (iso_declaration_read(LF_SYS_HOST, HOST_MAX, "proc_mount_id", &v,
	    why, whylen) != 0)
		return -1;
	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		str_msg(why, whylen, "%s must hold exactly proc_mount_id = <the "
		    "host's /proc mount> (written by lockfile doctor "
		    "--declare-host)", LF_SYS_HOST);
		json_decref(v);
		errno = EINVAL;
		return -1;
	}
	*id = (unsigned long long)json_integer_value(v);
	json_decref(v);
	return 0;
}

void
iso_check_host_declared(const struct iso_agents *a, struct iso_report *r)
{
	struct scan sc;
	struct statx sx;
	unsigned long long id;
	char why[ISO_DETAIL_MAX];

	if (scan("/proc/self/mountinfo", a, &sc) != 0)
		iso_add(r, "proc.mounts", 0, "the mounts of this namespace cannot "
		    "be read");
	else
		add_mounts_check(r, "proc.mounts", &sc);
	if (read_declaration(&id, why, sizeof(why)) != 0) {
		if (errno == ENOENT)
			iso_add(r, "proc.host", 0, "no host declaration (%s): as "
			    "root, with /proc mounted hidepid=invisible, run lockfile "
			    "doctor --declare-host (docs/host.md); until then nothing "
			    "tells whether the agents' /proc hides the plugins",
			    LF_SYS_HOST);
		else
			iso_add(r, "proc.host", 0, "%s", why);
		return;
	}
	if (statx(AT_FDCWD, "/proc", AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) != 0 ||
	    !(sx.stx_mask & STATX_MNT_ID)) {
		iso_add(r, "proc.host", 0, "the mount id of /proc cannot be read");
		return;
	}
	if (sx.stx_mnt_id != id)
		/* /proc mounted anew since the declaration, or the console
		 * in a mount namespace of its own: name both fixes; a running
		 * console's confinement holds the old mount (issue 32) */
		iso_add(r, "proc.host", 0, "/proc is mount %llu, not %s's (%llu): "
		    "/proc mounted anew? as root run lockfile doctor "
		    "--declare-host, then restart the console; else it is in a "
		    "mount namespace of its own",
		    (unsigned long long)sx.stx_mnt_id, LF_SYS_HOST, id);
	else
		iso_add(r, "proc.host", 1, "/proc is the host's (mount %llu, "
		    "declared in %s)", id, LF_SYS_HOST);
}

int
isolation_host_report(const struct iso_agents *a, struct iso_report *r,
    unsigned long long *proc_mount_id)
{
	struct scan sc;
	size_t i;
	int top;

	memset(r, 0, sizeof(*r));
	*proc_mount_id = 0;
	if (scan("/proc/1/mountinfo", a, &sc) != 0) {
		iso_add(r, "host.proc", 0, "/proc/1/mountinfo (the mounts of pid "
		    "1, the host) cannot be read");
		return -1;
	}
	top = top_at_proc(&sc);
	if (top < 0)
		iso_add(r, "host.proc", 0, "pid 1's mount namespace has no single "
		    "mount on /proc");
	else if (sc.at_opts[top].bad_opts)
		iso_add(r, "host.proc", 0, "/proc of pid 1's mount namespace (mount "
		    "%llu) is not a procfs with readable options", sc.at_id[top]);
	else if (sc.at_opts[top].hidepid != 2)
		iso_add(r, "host.proc", 0, "/proc of pid 1's mount namespace (mount "
		    "%llu) is not mounted hidepid=invisible (hidepid=%d): add "
		    "hidepid=invisible to its fstab line, then mount -o "
		    "remount,hidepid=invisible /proc", sc.at_id[top],
		    sc.at_opts[top].hidepid);
	else {
		iso_add(r, "host.proc", 1, "/proc of pid 1's mount namespace is "
		    "mount %llu, hidepid=invisible", sc.at_id[top]);
		*proc_mount_id = sc.at_id[top];
	}
	add_mounts_check(r, "host.mounts", &sc);
	for (i = 0; i < r->n; i++)
		if (!r->c[i].ok)
			return -1;
	return 0;
}
