/* lox doctor, lox policy, lox plugin: the console account's own commands,
 * run as `lockfile` in the console's container, on the human's terminal.
 *
 *   lox doctor [--instance NAME] [--image IMAGE] [--source N=DIR]... [--json]
 *   lox policy [--instance NAME] [--image IMAGE] [--source N=DIR]...
 *              show|approve|load FILE
 *   lox plugin [--instance NAME] [--image IMAGE] [--source N=DIR]...
 *              [--network] VERB [ARG...]
 *   lox hub-key [--instance NAME] [--image IMAGE]
 *
 * While the console runs they are `docker exec` in its container (doctor
 * then judges the container the console really runs in); otherwise a
 * one-off container of the console image with the console's flags and
 * volumes, which is how a policy is approved before the first `lox run`.
 * `policy load FILE` copies a policy written on the host into the home
 * volume (~/.config/lockfile/policy.toml); it runs only once approved on
 * the console's terminal (`lox policy approve`). */
#include "config.h"
#include "lox/lox.h"
#include "lib/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POLICY_MAX (1 << 20)
#define POLICY_PATH LF_IMAGE_HOME "/" LF_HOME_POLICY

struct exec_opts {
	const char *image;
	int network;
	int tty;		/* -t: the command talks to the human */
};

/* The common options of the three commands; *k is left on the first
 * other argument. */
static int
common_opts(struct lox *l, int argc, char **argv, int *k,
    struct exec_opts *o, int allow_network)
{
	const char *v;
	int r;

	for (*k = 1; *k < argc; (*k)++) {
		if ((r = lox_opt(argc, argv, k, "--instance", &v)) != 0) {
			if (r < 0 || lox_set_instance(l, v) != 0)
				return -1;
		} else if ((r = lox_opt(argc, argv, k, "--image", &v)) != 0) {
			if (r < 0 || lox_check_image(v) != 0)
				return -1;
			o->image = v;
		} else if ((r = lox_opt(argc, argv, k, "--source", &v)) != 0) {
			if (r < 0 || lox_add_source(&l->sources, v) != 0)
				return -1;
		} else if (allow_network && strcmp(argv[*k], "--network") == 0) {
			o->network = 1;
		} else {
			break;
		}
	}
	return 0;
}

/* docker exec into the running console, or a one-off container; then
 * `lockfile ARGS`. */
static int
run_lockfile(struct lox *l, const struct exec_opts *o, const char *const *args)
{
	struct argv a = { 0 };
	size_t i;
	int ret;

	argv_add(&a, l->docker);
	if (lox_console_running(l)) {
		/* The running console has the sources it was started with. */
		if (l->sources.n > 0) {
			lox_err("refused: --source is for a console that is not "
			    "running (this one runs with its own sources)");
			argv_free(&a);
			return LOX_EX_USAGE;
		}
		argv_add(&a, "exec");
		argv_add(&a, "-i");
		if (o->tty)
			argv_add(&a, "-t");
		argv_add(&a, "--user");
		argv_add(&a, LF_CONSOLE_ACCOUNT);
		argv_add(&a, "--workdir");
		argv_add(&a, LF_IMAGE_HOME);
		argv_add(&a, l->container);
	} else {
		argv_add(&a, "run");
		argv_add(&a, "--rm");
		argv_add(&a, "-i");
		if (o->tty)
			argv_add(&a, "-t");
		/* the instance's hub mode: its network and CA, as lox run */
		if (lox_hub_load(l, &l->hub) < 0 ||
		    lox_console_flags(l, &a, o->network) != 0) {
			argv_free(&a);
			return LOX_EX_NOINPUT;
		}
		for (i = 0; i < l->sources.mounts.n; i++)
			argv_add(&a, l->sources.mounts.v[i]);
		if (o->image != NULL) {
			argv_add(&a, o->image);
		} else {
			char id[LOX_IMAGE_ID_MAX];
			if (lox_image("console", id, sizeof(id)) != 0) {
				argv_free(&a);
				return LOX_EX_NOINPUT;
			}
			argv_add(&a, id);
		}
	}
	for (; *args != NULL; args++)
		argv_add(&a, *args);
	ret = lox_exec(l, &a);
	argv_free(&a);
	return ret;
}

static int
want_tty(const struct lox *l, const char *what)
{
	if (l->dry_run || (isatty(0) && isatty(1)))
		return 1;
	lox_err("%s needs a terminal: it asks you on it", what);
	return 0;
}

int
cmd_doctor(struct lox *l, int argc, char **argv)
{
	struct exec_opts o = { 0 };
	const char *args[] = { "lockfile", "doctor", NULL, NULL };
	int k;

	if (common_opts(l, argc, argv, &k, &o, 0) != 0)
		return LOX_EX_USAGE;
	if (k < argc && strcmp(argv[k], "--json") == 0) {
		args[2] = "--json";
		k++;
	}
	if (k < argc) {
		lox_err("refused: lox doctor %s", argv[k]);
		return LOX_EX_USAGE;
	}
	/* The terminal conditions are judged on doctor's own terminal. */
	o.tty = isatty(0) && isatty(1);
	/* The host's side, which the console's doctor cannot see: whether
	 * agents get per-container counters (docs/docker.md). */
	fprintf(stderr, "lox: lxcfs: %s\n", lox_lxcfs_available() ?
	    "the host serves per-container /proc files; lox agent gives them "
	    "to agent containers" : "not on this host: agent containers read "
	    "host-wide /proc counters (apt-get install lxcfs)");
	return run_lockfile(l, &o, args);
}

int
cmd_policy(struct lox *l, int argc, char **argv)
{
	struct exec_opts o = { 0 };
	const char *args[] = { "lockfile", "policy", NULL, NULL, NULL };
	struct stat st;
	int k, fd;

	if (common_opts(l, argc, argv, &k, &o, 0) != 0)
		return LOX_EX_USAGE;
	/* The options may also follow show or approve, as the README
	 * writes them (`lox policy approve --source N=DIR`). */
	if (k < argc && (strcmp(argv[k], "show") == 0 ||
	    strcmp(argv[k], "approve") == 0) && k + 1 < argc) {
		int rest;

		if (common_opts(l, argc - k, argv + k, &rest, &o, 0) != 0)
			return LOX_EX_USAGE;
		if (rest == argc - k)
			argc = k + 1;	/* every word after the verb was an option */
	}
	if (k + 1 == argc && strcmp(argv[k], "show") == 0) {
		args[2] = "show";
		return run_lockfile(l, &o, args);
	}
	if (k + 1 == argc && strcmp(argv[k], "approve") == 0) {
		if (!want_tty(l, "lox policy approve"))
			return LOX_EX_USAGE;
		o.tty = 1;
		args[2] = "approve";
		return run_lockfile(l, &o, args);
	}
	if (k + 2 == argc && strcmp(argv[k], "load") == 0) {
		fd = open(argv[k + 1], O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
		    st.st_size > POLICY_MAX) {
			lox_err("lox policy load: %s is not a readable file of at "
			    "most 1 MiB", argv[k + 1]);
			if (fd >= 0)
				close(fd);
			return LOX_EX_NOINPUT;
		}
		/* The file is the command's standard input; cp writes it as
		 * the console account (an existing file keeps its mode). */
		if (!l->dry_run && (dup2(fd, 0) < 0)) {
			lox_err("lox policy load: %s", strerror(errno));
			close(fd);
			return LOX_EX_SOFTWARE;
		}
		close(fd);
		args[0] = "cp";
		args[1] = "/dev/stdin";
		args[2] = POLICY_PATH;
		return run_lockfile(l, &o, args);
	}
	lox_err("usage: lox policy [--instance NAME] [--image IMAGE] "
	    "[--source NAME=DIR]... show|approve|load FILE");
	return LOX_EX_USAGE;
}

int
cmd_plugin(struct lox *l, int argc, char **argv)
{
	static const char *const verbs[] = {
		"install", "update", "verify", "list", "remove",
	};
	struct exec_opts o = { 0 };
	const char *args[40];
	size_t i, n = 0;
	int k;

	if (common_opts(l, argc, argv, &k, &o, 1) != 0)
		return LOX_EX_USAGE;
	for (i = 0; k < argc && i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(argv[k], verbs[i]) == 0)
			break;
	if (k >= argc || i == sizeof(verbs) / sizeof(verbs[0])) {
		lox_err("usage: lox plugin [--instance NAME] [--image IMAGE] "
		    "[--network] install|update|verify|list|remove [ARG...]");
		return LOX_EX_USAGE;
	}
	if (argc - k > 32) {
		lox_err("lox plugin: too many arguments");
		return LOX_EX_USAGE;
	}
	args[n++] = "lockfile";
	args[n++] = "plugin";
	for (; k < argc; k++) {
		/* The home is the account's own, in its volume. */
		if (strncmp(argv[k], "--home", 6) == 0) {
			lox_err("refused: lox plugin %s", argv[k]);
			return LOX_EX_USAGE;
		}
		args[n++] = argv[k];
	}
	args[n] = NULL;
	/* update asks on the terminal when a plugin loosens. */
	o.tty = isatty(0) && isatty(1);
	return run_lockfile(l, &o, args);
}

/* lox hub-key: make (once) and show the instance key of the console of
 * NAME, and what to do with it: the name is the one lox run gives the
 * console (--hub-instance), so the hub enrols the key under it
 * (docs/docker.md, "Hub mode"). */
int
cmd_hub_key(struct lox *l, int argc, char **argv)
{
	struct exec_opts o = { 0 };
	const char *args[] = { "lockfile", "hub-key", NULL };
	int k;

	if (common_opts(l, argc, argv, &k, &o, 0) != 0)
		return LOX_EX_USAGE;
	if (k < argc || l->sources.n > 0) {
		lox_err("usage: lox hub-key [--instance NAME] [--image IMAGE]");
		return LOX_EX_USAGE;
	}
	if (l->instance[0] == '\0') {
		lox_err("hub mode names its instance: lox hub-key --instance "
		    "NAME (the NAME of lox run --instance NAME --hub URL)");
		return LOX_EX_USAGE;
	}
	fprintf(stderr, "lox: the instance key of %s; then, with KEY as "
	    "printed below:\n"
	    "  on the hub:  lockhub enroll instance %s KEY --state DIR\n"
	    "  each approver: lox enroll --instance %s=KEY\n",
	    l->instance, l->instance, l->instance);
	fflush(stderr);
	return run_lockfile(l, &o, args);
}
