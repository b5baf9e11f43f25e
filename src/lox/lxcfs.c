/* lox: per-container counters through LXCFS (docs/docker.md, "Host-wide
 * counters").
 *
 * An agent container reads the host's /proc/meminfo, /proc/diskstats,
 * /proc/stat...: during its own question, a fetch moves them. Where the
 * host runs LXCFS (Debian's lxcfs, mounted at /var/lib/lxcfs), each agent
 * container gets LXCFS's per-container view of the /proc files runc lets
 * be overlaid. /proc/vmstat and the pressure files cannot be (runc refuses
 * a mount there): the console's size classes are what covers them. */
#include "config.h"
#include "lox/lox.h"
#include "lib/str.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LXCFS_ROOT "/var/lib/lxcfs"

/* The files LXCFS serves that runc allows over /proc. */
static const char *const files[] = {
	"proc/cpuinfo", "proc/diskstats", "proc/loadavg", "proc/meminfo",
	"proc/stat", "proc/swaps", "proc/uptime",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

/* $LOX_LXCFS names another mount point (tests); the default is Debian's. */
static const char *
root(void)
{
	const char *r = getenv("LOX_LXCFS");

	return r != NULL && r[0] == '/' ? r : LXCFS_ROOT;
}

/* 1 when LXCFS serves proc/meminfo under the root: its mount point is an
 * empty directory when LXCFS does not run. */
int
lox_lxcfs_available(void)
{
	char p[512];
	struct stat st;

	if (str_fmt(p, sizeof(p), "%s/proc/meminfo", root()) != STR_OK)
		return 0;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

void
lox_lxcfs_mounts(struct argv *a)
{
	const char *r = root();
	char p[512];
	struct stat st;
	size_t i;

	if (!lox_lxcfs_available())
		return;
	for (i = 0; i < NFILES; i++) {
		if (str_fmt(p, sizeof(p), "%s/%s", r, files[i]) != STR_OK ||
		    strpbrk(p, ":,") != NULL || stat(p, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		argv_add(a, "--volume");
		argv_addf(a, "%s:/%s:ro", p, files[i]);
	}
}
