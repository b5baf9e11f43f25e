/* lox: the docker command lines and what every command shares (lox.h). */
#include "config.h"
#include "lox/lox.h"
#include "lox_seccomp_pin.h"
#include "lib/crypto.h"
#include "lib/escape.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROFILE_MAX (1 << 20)

void
argv_add(struct argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;

		a->v = xreallocarray(a->v, cap, sizeof(*a->v));
		a->cap = cap;
	}
	a->v[a->n] = xstrdup(s);
	a->v[++a->n] = NULL;
}

void
argv_addf(struct argv *a, const char *fmt, ...)
{
	char buf[PATH_MAX + 128];
	va_list ap;
	enum str_err r;

	va_start(ap, fmt);
	r = str_vfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r != STR_OK)
		fatal("argument too long");
	argv_add(a, buf);
}

void
argv_free(struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* Quoted for a POSIX shell: plain words as they are, anything else in
 * single quotes; a word that is not printable ASCII is escaped (\xHH) so
 * the line never carries control bytes to a terminal. */
static void
print_word(FILE *f, const char *s)
{
	size_t len = strlen(s);

	if (len > 0 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
	    "TUVWXYZ0123456789_-./:=,@%+") == len) {
		fputs(s, f);
		return;
	}
	if (!text_is_plain(s, len)) {
		char esc[1024];
		escape_text(s, len, esc, sizeof(esc));
		fprintf(f, "$'%s'", esc);
		return;
	}
	fputc('\'', f);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

void
argv_print(FILE *f, const struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (i)
			fputc(' ', f);
		print_word(f, a->v[i]);
	}
	fputc('\n', f);
}

int
lox_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		lox_err("%s needs a value", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

int
lox_set_instance(struct lox *l, const char *name)
{
	const char *sep = "-";

	if (name == NULL) {
		name = "";
		sep = "";
	} else if (strlen(name) > 32 || !((name[0] >= 'a' && name[0] <= 'z') ||
	    (name[0] >= '0' && name[0] <= '9')) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
	    strlen(name)) {
		lox_err("--instance: 1-32 characters of a-z 0-9 _ -, starting "
		    "with a letter or digit");
		return -1;
	}
	if (str_fmt(l->instance, sizeof(l->instance), "%s", name) != STR_OK ||
	    str_fmt(l->container, sizeof(l->container), "lockfile%s%s-console",
	    sep, name) != STR_OK ||
	    str_fmt(l->home_volume, sizeof(l->home_volume), "lockfile%s%s-home",
	    sep, name) != STR_OK ||
	    str_fmt(l->run_volume, sizeof(l->run_volume), "lockfile%s%s-run",
	    sep, name) != STR_OK) {
		lox_err("--instance: 1-32 characters of a-z 0-9 _ -, starting "
		    "with a letter or digit");
		return -1;
	}
	return 0;
}

/* The profile the console's container runs under: the shipped profile's
 * bytes and no other (their sha256 is compiled in, LOX_SECCOMP_SHA256).
 * Checking keys instead was a parser differential: docker reads profile
 * keys case-insensitively, last one wins, so a "DefaultAction" after a
 * checked "defaultAction" turned the filter into allow-all. The checked
 * bytes go to docker in a sealed memfd it reads as /dev/fd/N, never as a
 * path it could read again after the check (docs/docker.md). */
int
lox_seccomp_fd(void)
{
	const char *p = getenv("LOX_SECCOMP");
	char path[PATH_MAX], *data = NULL, hex[2 * SHA256_LEN + 1];
	uint8_t d[SHA256_LEN];
	struct stat st;
	ssize_t n;
	int fd = -1, mfd = -1;

	if (p == NULL || p[0] == '\0')
		p = LOX_SECCOMP_DEFAULT;
	if (realpath(p, path) == NULL) {
		lox_err("the seccomp profile %s: %s", p, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size <= 0 || st.st_size > PROFILE_MAX) {
		lox_err("the seccomp profile %s is not a readable file of at most "
		    "1 MiB", path);
		goto out;
	}
	data = xmalloc((size_t)st.st_size);
	n = read(fd, data, (size_t)st.st_size);
	if (n != (ssize_t)st.st_size) {
		lox_err("the seccomp profile %s could not be read", path);
		goto out;
	}
	sha256_mem(data, (size_t)n, d);
	hex_encode(d, SHA256_LEN, hex);
	if (strcmp(hex, LOX_SECCOMP_SHA256) != 0) {
		lox_err("the seccomp profile %s is not the one this lox ships "
		    "(its sha256 differs): refused; only the shipped profile "
		    "runs lox's containers (docs/docker.md)", path);
		goto out;
	}
	mfd = memfd_create("lockfile-seccomp.json", MFD_ALLOW_SEALING);
	if (mfd < 0 || write(mfd, data, (size_t)n) != n ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
	    F_SEAL_SEAL) != 0) {
		lox_err("the seccomp profile: memfd: %s", strerror(errno));
		if (mfd >= 0)
			close(mfd);
		mfd = -1;
	}
out:
	free(data);
	if (fd >= 0)
		close(fd);
	return mfd;
}

/* The flags every long-lived lox container shares (the console's,
 * lockhub's): docker-init as pid 1, never a pull (an image missing here
 * is an error, never a pull from whatever registry the daemon knows:
 * docs/docker.md), the account, no capabilities and no privilege gain,
 * the shipped profile from the checked bytes in profile_fd, a read-only
 * root with a small noexec /tmp, and the pids and memory bounds. */
void
lox_hardened(struct argv *a, const char *user, int profile_fd,
    const char *pids, const char *memory)
{
	argv_add(a, "--init");
	argv_add(a, "--pull");
	argv_add(a, "never");
	argv_add(a, "--user");
	argv_add(a, user);
	argv_add(a, "--cap-drop");
	argv_add(a, "ALL");
	argv_add(a, "--security-opt");
	argv_add(a, "no-new-privileges");
	argv_add(a, "--security-opt");
	argv_addf(a, "seccomp=/dev/fd/%d", profile_fd);
	argv_add(a, "--read-only");
	argv_add(a, "--tmpfs");
	argv_add(a, "/tmp:rw,nosuid,nodev,noexec,size=16m");
	argv_add(a, "--pids-limit");
	argv_add(a, pids);
	argv_add(a, "--memory");
	argv_add(a, memory);
}

int
lox_console_flags(const struct lox *l, struct argv *a, int network)
{
	int profile;

	if (!network && l->hub.on && !l->dry_run &&
	    lox_hub_network(l, &l->hub) != 0)
		return -1;
	if ((profile = lox_seccomp_fd()) < 0)
		return -1;
	/* docker-init as pid 1 reaps and forwards signals; the console runs
	 * as its account with nothing to gain (no capabilities, no setuid
	 * gain, the shipped profile), on a read-only root with a small
	 * noexec /tmp, bounded, with no log of its screen (docker logs would
	 * replay every prompt and keystroke). The core limit is 1, not 0: a
	 * core_pattern pipe on the host ignores a limit of 0 but honours 1,
	 * and the sandbox gives plugins 1 (docs/isolation.md, "The kernel
	 * log"). */
	/* Room for the console, its parser worker and a plugin's threads
	 * (Go starts several); the plugin's own limits are RLIMIT_NPROC and
	 * its manifest's memory. */
	lox_hardened(a, LF_CONSOLE_ACCOUNT, profile, "256", "1g");
	argv_add(a, "--ulimit");
	argv_add(a, "core=1");
	argv_add(a, "--log-driver");
	argv_add(a, "none");
	if (!network && l->hub.on) {
		/* Hub mode: the instance's own network, where the hub is and
		 * no agent ever is (lox agent never names it); the console's
		 * self-confinement then lets it connect to the hub's port
		 * only (docs/docker.md, "Hub mode"). The CA is lox's checked
		 * copy (instance.c), read-only. */
		argv_add(a, "--network");
		argv_add(a, l->hub.network);
		if (l->hub.ca[0] != '\0') {
			argv_add(a, "--mount");
			argv_addf(a, "type=bind,src=%s,dst=%s,readonly",
			    l->hub.ca, LOX_HUB_CA);
		}
	} else if (!network) {
		argv_add(a, "--network");
		argv_add(a, "none");
	}
	argv_add(a, "--volume");
	argv_addf(a, "%s:%s", l->home_volume, LF_IMAGE_HOME);
	argv_add(a, "--volume");
	argv_addf(a, "%s:%s", l->run_volume, LF_SOCKET_DIR);
	return 0;
}

/* Run `docker ARGS...` and keep the first len-1 bytes of its standard
 * output (NUL-terminated). 0 when it exited 0, else -1. */
static int
docker_output(const struct lox *l, const char *const *args, char *buf,
    size_t len)
{
	const char *argv[8];
	size_t got = 0, i;
	int fds[2], status, devnull;
	ssize_t n;
	pid_t pid;

	argv[0] = l->docker;
	for (i = 0; args[i] != NULL && i + 2 < sizeof(argv) / sizeof(argv[0]);
	    i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	buf[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		devnull = open("/dev/null", O_RDWR);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(fds[1], 1) < 0 ||
		    dup2(devnull, 2) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while (got < len - 1 &&
	    (n = read(fds[0], buf + got, len - 1 - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
lox_hub_network(const struct lox *l, const struct lox_hub *h)
{
	static const char fmt[] = "{{index .Labels \"" LOX_HUB_NET_LABEL
	    "\"}}";
	const char *insp[] = { "network", "inspect", "--format", fmt,
	    h->network, NULL };
	char label[96], want[64];
	const char *mk[] = { "network", "create", "--label", label,
	    h->network, NULL };
	char buf[128];

	if (str_fmt(label, sizeof(label), "%s=%s", LOX_HUB_NET_LABEL,
	    l->instance) != STR_OK || str_fmt(want, sizeof(want), "%s\n",
	    l->instance) != STR_OK)
		return -1;
	if (docker_output(l, insp, buf, sizeof(buf)) == 0) {
		/* A network lox did not make (or made for another instance)
		 * could hold anything, agents included: refused. */
		if (strcmp(buf, want) == 0)
			return 0;
		lox_err("the network %s exists without the label %s=%s: not "
		    "the instance's hub network (remove it, or create it with "
		    "that label: docs/docker.md, \"Hub mode\")", h->network,
		    LOX_HUB_NET_LABEL, l->instance);
		return -1;
	}
	if (docker_output(l, mk, buf, sizeof(buf)) != 0) {
		lox_err("docker network create %s failed", h->network);
		return -1;
	}
	return 0;
}

int
lox_console_running(const struct lox *l)
{
	const char *args[] = { "container", "inspect", "--format",
	    "{{.State.Running}}", l->container, NULL };
	char buf[16];

	return docker_output(l, args, buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "true\n") == 0;
}

int
lox_console_uid(const struct lox *l, unsigned long *uid)
{
	static const char fmt[] = "{{index .Config.Labels \"" LOX_UID_LABEL
	    "\"}}";
	const char *ctr[] = { "container", "inspect", "--format", fmt,
	    l->container, NULL };
	char id[80];
	const char *img[] = { "image", "inspect", "--format", fmt, id, NULL };
	char buf[32], *end;

	/* The instance's container says which image it runs; without one,
	 * the console image lox runs (its recorded ID: images.c). */
	if (docker_output(l, ctr, buf, sizeof(buf)) != 0 &&
	    (lox_image("console", id, sizeof(id)) != 0 ||
	    docker_output(l, img, buf, sizeof(buf)) != 0))
		return -1;
	if (buf[0] < '0' || buf[0] > '9')
		return -1;
	*uid = strtoul(buf, &end, 10);
	return strcmp(end, "\n") == 0 && *uid <= 0x7fffffffUL ? 0 : -1;
}

int
lox_image_uid(const struct lox *l, const char *image, const char *label,
    unsigned long *uid)
{
	char fmt[128], buf[32], *end;
	const char *args[] = { "image", "inspect", "--format", fmt, image,
	    NULL };

	if (str_fmt(fmt, sizeof(fmt), "{{index .Config.Labels \"%s\"}}",
	    label) != STR_OK || docker_output(l, args, buf, sizeof(buf)) != 0 ||
	    buf[0] < '0' || buf[0] > '9')
		return -1;
	*uid = strtoul(buf, &end, 10);
	return strcmp(end, "\n") == 0 && *uid <= 0x7fffffffUL ? 0 : -1;
}

int
lox_image_allows_uid(const struct lox *l, const char *image,
    unsigned long uid)
{
	const char *args[] = { "image", "inspect", "--format",
	    "{{index .Config.Labels \"" LOX_ALLOWED_LABEL "\"}}", image, NULL };
	char buf[512], *p, *end;
	unsigned long u;

	if (docker_output(l, args, buf, sizeof(buf)) != 0)
		return 0;
	/* "UID,UID...\n" as the Dockerfile's ALLOWED_UIDS (digits and
	 * commas, checked there); anything else allows nobody. */
	for (p = buf; *p >= '0' && *p <= '9'; p = end + 1) {
		errno = 0;
		u = strtoul(p, &end, 10);
		if (errno != 0 || (*end != ',' && *end != '\n'))
			return 0;
		if (u == uid)
			return 1;
		if (*end == '\n')
			break;
	}
	return 0;
}

int
lox_spawn(const struct lox *l, struct argv *a)
{
	int status;
	pid_t pid;

	if (l->dry_run) {
		argv_print(stdout, a);
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(a->v[0], a->v);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
lox_exec(const struct lox *l, struct argv *a)
{
	if (l->dry_run) {
		argv_print(stdout, a);
		fflush(stdout);
		return 0;
	}
	fflush(stdout);
	execvp(a->v[0], a->v);
	lox_err("cannot run %s: %s", a->v[0], strerror(errno));
	return LOX_EX_UNAVAILABLE;
}
