/* Self-confinement of the console (see confine.h): the Landlock ruleset
 * and the glue that builds it from the console's own state. */
#include "console/confine.h"
#include "host/proc.h"
#include "sandbox/landlock_abi.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/sysconf.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define R_READ	(LF_FS_READ_FILE | LF_FS_READ_DIR)
#define R_EXEC	(R_READ | LF_FS_EXECUTE)
#define R_WRITE	(R_READ | LF_FS_WRITE_FILE | LF_FS_TRUNCATE | LF_FS_MAKE_DIR | \
    LF_FS_MAKE_REG | LF_FS_REMOVE_DIR | LF_FS_REMOVE_FILE)
#define R_DEV	(LF_FS_READ_FILE | LF_FS_WRITE_FILE | LF_FS_IOCTL_DEV)

/* Read-only files glibc opens after start: the password and group
 * databases for the approval card and the isolation checks (NSS), the
 * loader cache for an NSS module loaded late, the time zone (the first
 * gmtime_r reads it). */
static const char *const nss_files[] = {
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/ld.so.cache",
	"/etc/host.conf", "/etc/localtime",
};
/* Network profiles (S3, SFTP): the resolver and the CA certificates. */
static const char *const net_files[] = {
	"/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/services",
	"/etc/protocols", "/etc/ssl", "/usr/lib/ssl", "/usr/share/ca-certificates",
	"/usr/local/share/ca-certificates", "/etc/ca-certificates",
};

static uint64_t
kind_rights(int kind)
{
	switch (kind) {
	case CONFINE_READ: return R_READ;
	case CONFINE_EXEC: return R_EXEC;
	case CONFINE_WRITE: return R_WRITE;
	case CONFINE_DEVICE: return R_DEV;
	case CONFINE_UNLINK: return LF_FS_REMOVE_FILE;
	default: fatal("confine: unknown kind %d", kind);
	}
}

void
confine_spec_init(struct confine_spec *s)
{
	memset(s, 0, sizeof(*s));
}

void
confine_spec_free(struct confine_spec *s)
{
	size_t i;

	for (i = 0; i < s->npaths; i++)
		free(s->paths[i].path);
	memset(s, 0, sizeof(*s));
}

static int
add(struct confine_spec *s, const char *path, int fd, uint64_t rights,
    int optional)
{
	struct confine_path *p;
	size_t i;

	for (i = 0; i < s->npaths && fd < 0; i++)
		if (s->paths[i].fd < 0 && strcmp(s->paths[i].path, path) == 0) {
			s->paths[i].rights |= rights;
			s->paths[i].optional &= optional;
			return 0;
		}
	if (s->npaths >= CONFINE_MAX_PATHS)
		return -1;
	p = &s->paths[s->npaths++];
	p->path = xstrdup(path);
	p->fd = fd;
	p->rights = rights;
	p->optional = optional;
	return 0;
}

int
confine_add(struct confine_spec *s, const char *path, int kind, int optional)
{
	return add(s, path, -1, kind_rights(kind), optional);
}

int
confine_add_fd(struct confine_spec *s, int fd, const char *name, int kind)
{
	return add(s, name, fd, kind_rights(kind), 0);
}

int
confine_add_loaded_objects(struct confine_spec *s)
{
	char line[PATH_MAX + 256];
	FILE *f = fopen("/proc/self/maps", "re");
	int ret = 0, cont = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* start-end perms offset dev inode   path */
		char *path = strchr(line, '/'), *slash, *base;
		int whole = strchr(line, '\n') != NULL;

		if (cont || path == NULL) {
			cont = !whole;
			continue;
		}
		cont = !whole;
		path[strcspn(path, "\n")] = '\0';
		if (strstr(path, " (deleted)") != NULL)
			continue;
		base = strrchr(path, '/') + 1;
		/* The dynamic loader executes (exec of a dynamic binary runs
		 * it); every other object is only read. */
		if (strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "ld-musl", 7) == 0)
			ret |= add(s, path, -1, LF_FS_READ_FILE | LF_FS_EXECUTE, 0);
		slash = strrchr(path, '/');
		if (slash == path)
			continue;	/* never all of "/" */
		*slash = '\0';
		ret |= add(s, path, -1, LF_FS_READ_FILE, 0);
	}
	fclose(f);
	return ret;
}

static int
single_threaded(void)
{
	struct proc_status ps;

	return proc_status_read("/proc/self/status", &ps) == 0 &&
	    ps.threads == 1;
}

static int
apply_landlock(const struct confine_spec *s, const struct landlock_caps *in,
    const char **why)
{
	struct landlock_caps caps = *in;
	size_t i;
	int rs;

	/* A network profile connects only to its endpoints' ports (the
	 * hosts are the resolver's business); binding a TCP port stays
	 * refused either way. */
	rs = landlock_ruleset_create(&caps);
	if (rs < 0) {
		*why = "landlock refused the console's ruleset";
		return -1;
	}
	for (i = 0; i < s->npaths; i++) {
		const struct confine_path *p = &s->paths[i];
		int fd = p->fd, r;

		if (fd < 0)
			fd = open(p->path, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			if (p->optional && (errno == ENOENT || errno == ENOTDIR))
				continue;
			logit("confine: %s cannot be opened", p->path);
			*why = "a path the console needs cannot be opened";
			close(rs);
			return -1;
		}
		r = landlock_allow_fd(rs, &caps, fd, p->rights);
		if (p->fd < 0)
			close(fd);
		if (r != 0) {
			logit_errno("confine: landlock rule for %s", p->path);
			*why = "landlock refused a rule of the console";
			close(rs);
			return -1;
		}
	}
	for (i = 0; s->network && i < s->nports; i++) {
		if ((caps.net & LF_NET_CONNECT_TCP) &&
		    landlock_allow_connect_port(rs, &caps, s->ports[i]) != 0) {
			logit_errno("confine: landlock rule for TCP port %u",
			    s->ports[i]);
			*why = "landlock refused a port rule of the console";
			close(rs);
			return -1;
		}
	}
	if (landlock_enforce(rs, &caps) != 0) {
		*why = "landlock_restrict_self failed";
		return -1;
	}
	return 0;
}

int
confine_apply(const struct confine_spec *s, const struct landlock_caps *caps,
    const char **why)
{
	if (!single_threaded()) {
		*why = "the console is not single-threaded (landlock would "
		    "leave a thread unconfined)";
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		*why = "prctl(PR_SET_NO_NEW_PRIVS) failed";
		return -1;
	}
	if (caps->abi > 0 && apply_landlock(s, caps, why) != 0)
		return -1;
	return confine_filter_load(s->network, why);
}

int
confine_add_system(struct confine_spec *s)
{
	const char *swhy = NULL, *sc;
	size_t i;
	int r = 0;

	sc = sysconf_dir(&swhy);
	if (sc != NULL)
		r |= confine_add(s, sc, CONFINE_READ, 1);
	r |= confine_add(s, "/proc", CONFINE_READ, 0);
	r |= confine_add(s, "/dev/null", CONFINE_DEVICE, 0);
	r |= confine_add(s, "/dev/tty", CONFINE_DEVICE, 1);
	r |= confine_add(s, "/dev/urandom", CONFINE_READ, 1);
	for (i = 0; i < sizeof(nss_files) / sizeof(nss_files[0]); i++)
		r |= confine_add(s, nss_files[i], CONFINE_READ, 1);
	if (s->network)
		for (i = 0; i < sizeof(net_files) / sizeof(net_files[0]); i++)
			r |= confine_add(s, net_files[i], CONFINE_READ, 1);
	if (r != 0 || confine_add_loaded_objects(s) != 0)
		return -1;
	return 0;
}
