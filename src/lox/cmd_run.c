/* lox run: start the console in its container on this terminal.
 *
 *   lox run [--instance NAME] [--source NAME=HOSTDIR]... [--network]
 *           [--hub URL [--hub-ca FILE] | --no-hub] [IMAGE] [-- OPTION...]
 *
 * Hub mode (docs/docker.md, "Hub mode"): --hub is kept for the instance
 * (instance.c), so a restart, lox doctor and the one-off containers use
 * the same hub; the console starts with --hub, lox's checked copy of the
 * CA and --hub-instance NAME, the instance name lox run gives.
 *
 * The docker run line is built here: -it, --rm, the name, the hardened
 * flags of lox_console_flags(), each source read-only under
 * /srv/lockfile/NAME. Options after "--" pass on only from a short list of
 * resource and label options; everything that would change who can see or
 * reach the console (another pid, ipc, uts, user or cgroup namespace,
 * privileges or capabilities, security options, mounts, devices, the
 * environment, the user, the log driver) is refused, by name where it is a
 * known danger. */
#include "config.h"
#include "lox/lox.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Options that would open the console: refused, with the reason. */
static const struct {
	const char *opt;
	const char *why;
} refused[] = {
	{ "--pid", "the console needs a pid namespace of its own "
	    "(--pid=host or --pid=container: let other accounts see the "
	    "plugins)" },
	{ "--ipc", "the console's IPC namespace is its own" },
	{ "--uts", "host namespaces are refused" },
	{ "--cgroupns", "host namespaces are refused" },
	{ "--userns", "a user-namespace opt-out is refused" },
	{ "--privileged", "the console runs with no privileges" },
	{ "--cap-add", "the console runs with no capabilities" },
	{ "--security-opt", "lox sets the security options itself "
	    "(no-new-privileges, the shipped seccomp profile): "
	    "seccomp=unconfined and the like are refused" },
	{ "--device", "no devices" },
	{ "--device-cgroup-rule", "no devices" },
	{ "--volume", "mounts are refused (the Docker socket must never be "
	    "mounted); sources come with --source, read-only" },
	{ "-v", "mounts are refused (the Docker socket must never be "
	    "mounted); sources come with --source, read-only" },
	{ "--mount", "mounts are refused (the Docker socket must never be "
	    "mounted); sources come with --source, read-only" },
	{ "--volumes-from", "mounts are refused" },
	{ "--tmpfs", "lox sets the mounts" },
	{ "--user", "the console runs as lockfile" },
	{ "-u", "the console runs as lockfile" },
	{ "--group-add", "the console runs as lockfile" },
	{ "--network", "use lox run --network" },
	{ "--net", "use lox run --network" },
	{ "--log-driver", "docker logs would replay the console's screen" },
	{ "--log-opt", "docker logs would replay the console's screen" },
	{ "--env", "the environment is the image's (LD_PRELOAD, DISPLAY...)" },
	{ "-e", "the environment is the image's (LD_PRELOAD, DISPLAY...)" },
	{ "--env-file", "the environment is the image's" },
	{ "--entrypoint", "the image's command is the console" },
	{ "--runtime", "the runtime is the engine's default" },
	{ "--sysctl", "kernel parameters are refused" },
	{ "--ulimit", "lox sets the limits" },
	{ "--init", "lox sets it" },
	{ "--read-only", "lox sets it" },
	{ "--rm", "lox sets it" },
	{ "--name", "use lox run --instance" },
	{ "--detach", "the console needs this terminal" },
	{ "-d", "the console needs this terminal" },
};

/* Options passed on (each takes a value). */
static const char *const passed[] = {
	"--cpus", "--cpu-shares", "--cpuset-cpus", "--memory", "-m",
	"--memory-swap", "--pids-limit", "--label", "-l", "--hostname",
	"--stop-timeout", "--dns", "--add-host",
};

/* The extra options after "--": 0 when all pass on, -1 after lox_err. */
static int
check_extra(int argc, char **argv, struct argv *out)
{
	int i;
	size_t k;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t flen = eq ? (size_t)(eq - a) : strlen(a);
		const char *val = NULL;

		if (a[0] != '-') {
			lox_err("refused: %s (only options may follow --; the "
			    "image's command is the console)", a);
			return -1;
		}
		for (k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
			if (strlen(refused[k].opt) == flen &&
			    strncmp(a, refused[k].opt, flen) == 0) {
				lox_err("refused: %s: %s", a, refused[k].why);
				return -1;
			}
		for (k = 0; k < sizeof(passed) / sizeof(passed[0]); k++)
			if (strlen(passed[k]) == flen &&
			    strncmp(a, passed[k], flen) == 0)
				break;
		if (k == sizeof(passed) / sizeof(passed[0])) {
			lox_err("refused: %s is not an option lox passes on "
			    "(only --cpus --cpu-shares --cpuset-cpus --memory "
			    "--memory-swap --pids-limit --label --hostname "
			    "--stop-timeout --dns --add-host)", a);
			return -1;
		}
		if (eq != NULL)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		if (val == NULL || !lox_plain_value(val) || val[0] == '-') {
			lox_err("refused: %s needs a plain value", a);
			return -1;
		}
		argv_addf(out, "%.*s", (int)flen, a);
		argv_add(out, val);
	}
	return 0;
}

/* --hub, --hub-ca, --no-hub, or the instance's kept settings, into
 * l->hub. 0, or -1 after lox_err. */
static int
hub_opts(struct lox *l, const char *url, const char *ca, int no_hub,
    int network)
{
	if ((url != NULL && no_hub) || (ca != NULL && url == NULL)) {
		lox_err("--hub URL [--hub-ca FILE], or --no-hub");
		return -1;
	}
	if (url != NULL) {
		if (lox_hub_save(l, url, ca, !l->dry_run, &l->hub) != 0)
			return -1;
	} else if (no_hub) {
		memset(&l->hub, 0, sizeof(l->hub));
		return l->dry_run || l->instance[0] == '\0' ? 0 :
		    lox_hub_forget(l) < 0 ? -1 : 0;
	} else if (lox_hub_load(l, &l->hub) < 0) {
		return -1;
	}
	if (l->hub.on && network) {
		lox_err("refused: --network in hub mode (the console's network "
		    "is the instance's hub network, %s)", l->hub.network);
		return -1;
	}
	return 0;
}

/* The image's own command (docker/Dockerfile's CMD, which adds the
 * image's --allowed-uids) with the hub options after it. The values are
 * the shell's positional parameters, never part of the script. exec:
 * /bin/sh cannot fork under the console's profile, and needs not. */
static void
hub_command(const struct lox *l, struct argv *a)
{
	argv_add(a, "/bin/sh");
	argv_add(a, "-c");
	argv_add(a, "exec /usr/local/bin/lockfile console "
	    "${LOCKFILE_ALLOWED_UIDS:+--allowed-uids \"$LOCKFILE_ALLOWED_UIDS\"} "
	    "\"$@\"");
	argv_add(a, "lockfile-console");
	argv_add(a, "--hub");
	argv_add(a, l->hub.url);
	if (l->hub.ca[0] != '\0') {
		argv_add(a, "--hub-ca");
		argv_add(a, LOX_HUB_CA);
	}
	argv_add(a, "--hub-instance");
	argv_add(a, l->instance);
}

int
cmd_run(struct lox *l, int argc, char **argv)
{
	struct argv a = { 0 }, extra = { 0 };
	const char *image = NULL, *v;
	char id[LOX_IMAGE_ID_MAX];
	const char *hub_url = NULL, *hub_ca = NULL;
	size_t i;
	int network = 0, no_hub = 0, r, ret = LOX_EX_USAGE, k;

	for (k = 1; k < argc; k++) {
		if ((r = lox_opt(argc, argv, &k, "--instance", &v)) != 0) {
			if (r < 0 || lox_set_instance(l, v) != 0)
				goto out;
		} else if ((r = lox_opt(argc, argv, &k, "--source", &v)) != 0) {
			if (r < 0 || lox_add_source(&l->sources, v) != 0)
				goto out;
		} else if (strcmp(argv[k], "--network") == 0) {
			network = 1;
		} else if ((r = lox_opt(argc, argv, &k, "--hub-ca", &v)) != 0) {
			if (r < 0)
				goto out;
			hub_ca = v;
		} else if ((r = lox_opt(argc, argv, &k, "--hub", &v)) != 0) {
			if (r < 0)
				goto out;
			hub_url = v;
		} else if (strcmp(argv[k], "--no-hub") == 0) {
			no_hub = 1;
		} else if (strcmp(argv[k], "--") == 0) {
			if (check_extra(argc - k - 1, argv + k + 1, &extra) != 0)
				goto out;
			break;
		} else if (argv[k][0] == '-') {
			lox_err("refused: lox run %s (docker options go after --, "
			    "see lox --help)", argv[k]);
			goto out;
		} else if (image == NULL) {
			if (lox_check_image(argv[k]) != 0)
				goto out;
			image = argv[k];
		} else {
			lox_err("lox run takes one image");
			goto out;
		}
	}
	if (hub_opts(l, hub_url, hub_ca, no_hub, network) != 0)
		goto out;
	if (!l->dry_run && (!isatty(0) || !isatty(1))) {
		lox_err("lox run needs a terminal: the console asks you on it");
		goto out;
	}
	if (image == NULL) {
		if (lox_image("console", id, sizeof(id)) != 0) {
			ret = LOX_EX_NOINPUT;
			goto out;
		}
		image = id;
	}
	argv_add(&a, l->docker);
	argv_add(&a, "run");
	argv_add(&a, "-it");
	argv_add(&a, "--rm");
	argv_add(&a, "--name");
	argv_add(&a, l->container);
	argv_add(&a, "--detach-keys");
	argv_add(&a, LOX_DETACH_KEYS);
	if (lox_console_flags(l, &a, network) != 0) {
		ret = LOX_EX_NOINPUT;
		goto out;
	}
	for (i = 0; i < l->sources.mounts.n; i++)
		argv_add(&a, l->sources.mounts.v[i]);
	for (i = 0; i < extra.n; i++)
		argv_add(&a, extra.v[i]);
	argv_add(&a, image);
	if (l->hub.on)
		hub_command(l, &a);
	ret = lox_exec(l, &a);
out:
	argv_free(&a);
	argv_free(&extra);
	return ret;
}
