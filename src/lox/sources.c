/* lox's --source NAME=HOSTDIR: a host directory mounted read-only at
 * /srv/lockfile/NAME in the console's container (lox run, and the one-off
 * containers of lox policy/doctor/plugin, which must see the same sources:
 * policy approval checks each local profile's directory, docs/docker.md). */
#include "config.h"
#include "lox/lox.h"
#include "lib/paths.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
lox_plain_value(const char *v)
{
	const unsigned char *p;

	if (v[0] == '\0')
		return 0;
	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			return 0;
	return 1;
}

/* 1 when dir is path or one of its ancestors. */
static int
covers(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* A host directory that holds (or is above) the engine's socket, or a
 * kernel file system, would give the console's container the engine or
 * the host: refused. */
static int
unsafe_source(const char *dir)
{
	static const char *const sockets[] = {
		"/var/run/docker.sock", "/run/docker.sock",
		"/run/containerd/containerd.sock", "/var/lib/docker",
		"/var/lib/containerd", "/proc", "/sys", "/dev",
	};
	const char *host = getenv("DOCKER_HOST");
	char real[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(sockets) / sizeof(sockets[0]); i++) {
		if (covers(dir, sockets[i]) || covers(sockets[i], dir))
			return 1;
		if (realpath(sockets[i], real) != NULL &&
		    (covers(dir, real) || covers(real, dir)))
			return 1;
	}
	if (host != NULL && strncmp(host, "unix://", 7) == 0 &&
	    (covers(dir, host + 7) ||
	    (realpath(host + 7, real) != NULL && covers(dir, real))))
		return 1;
	return 0;
}

int
lox_add_source(struct lox_sources *s, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char name[40], real[PATH_MAX];
	struct stat st;
	size_t len, i;

	if (eq == NULL || eq == spec || (size_t)(eq - spec) >= sizeof(name)) {
		lox_err("--source NAME=HOSTDIR: %s", spec);
		return -1;
	}
	len = (size_t)(eq - spec);
	memcpy(name, spec, len);
	name[len] = '\0';
	if (!((name[0] >= 'a' && name[0] <= 'z') ||
	    (name[0] >= '0' && name[0] <= '9')) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != len) {
		lox_err("--source: the name %s must be a-z 0-9 _ -", name);
		return -1;
	}
	for (i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0) {
			lox_err("--source: %s given twice", name);
			return -1;
		}
	if (s->n == LOX_MAX_SOURCES) {
		lox_err("--source: at most %d", LOX_MAX_SOURCES);
		return -1;
	}
	if (eq[1] != '/' || realpath(eq + 1, real) == NULL ||
	    stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		lox_err("--source %s: %s is not an absolute path to a directory",
		    name, eq + 1);
		return -1;
	}
	/* The --mount syntax separates fields with commas. */
	if (strpbrk(real, ",:\"'") != NULL || !lox_plain_value(real)) {
		lox_err("--source %s: the path may not hold , : or quotes", name);
		return -1;
	}
	if (unsafe_source(real)) {
		lox_err("refused: --source %s=%s holds or lies above the Docker "
		    "socket or a kernel file system", name, real);
		return -1;
	}
	memcpy(s->names[s->n++], name, len + 1);
	argv_add(&s->mounts, "--mount");
	argv_addf(&s->mounts, "type=bind,source=%s,target=%s/%s,readonly", real,
	    LF_IMAGE_SOURCES, name);
	return 0;
}
