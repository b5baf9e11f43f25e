/* lox agent: run a command in an agent container.
 *
 *   lox agent [--instance NAME] [--image IMAGE] [--uid UID[:GID]]
 *             [--network] [--print] -- CMD...
 *
 * As `agent` in the clients group (or UID[:GID], in the clients group only
 * when the agent image was built to allow it: ALLOWED_UIDS), never uid or
 * gid 0: root with Docker's default capabilities passes the socket's modes
 * (CAP_DAC_OVERRIDE) and only the console's own peer check stops it. The
 * container gets the socket volume and nothing else of the console's, no
 * capabilities, no-new-privileges, a read-only root, no network unless
 * --network. --print prints the equivalent docker run line, for hosts
 * that start their agents themselves. */
#include "config.h"
#include "lox/lox.h"
#include "lib/paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "UID" or "UID:GID", decimal, neither 0. */
static int
parse_ids(const char *s, unsigned long *uid, unsigned long *gid)
{
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	*uid = strtoul(s, &end, 10);
	*gid = *uid;
	if (*end == ':') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		*gid = strtoul(end + 1, &end, 10);
	}
	if (*end != '\0' || *uid > 0x7fffffffUL || *gid > 0x7fffffffUL)
		return -1;
	return 0;
}

/* The console's own uid is never an agent's (docs/security.md): it would
 * share the kernel's per-uid task count with the plugins, and the console
 * refuses it on its socket anyway. The image's label says which uid that
 * is (docs/docker.md); with no engine to ask (--dry-run, --print on
 * another machine), the images' default. 0, or -1 after lox_err(). */
static int
console_uid(const struct lox *l, unsigned long uid)
{
	unsigned long cu = LOX_CONSOLE_UID_DEFAULT;

	if (!l->dry_run && lox_console_uid(l, &cu) != 0)
		cu = LOX_CONSOLE_UID_DEFAULT;
	if (uid != cu)
		return 0;
	lox_err("refused: uid %lu is the console account's (an agent never "
	    "runs as it: it would share the plugins' task count; the console "
	    "refuses it too)", uid);
	return -1;
}

int
cmd_agent(struct lox *l, int argc, char **argv)
{
	struct argv a = { 0 };
	const char *image = NULL, *ids = NULL, *v;
	char id[LOX_IMAGE_ID_MAX];
	unsigned long uid = 0, gid = 0;
	int k, r, network = 0, print = 0, ret = LOX_EX_USAGE;

	for (k = 1; k < argc; k++) {
		if ((r = lox_opt(argc, argv, &k, "--instance", &v)) != 0) {
			if (r < 0 || lox_set_instance(l, v) != 0)
				goto out;
		} else if ((r = lox_opt(argc, argv, &k, "--image", &v)) != 0) {
			if (r < 0 || lox_check_image(v) != 0)
				goto out;
			image = v;
		} else if ((r = lox_opt(argc, argv, &k, "--uid", &v)) != 0) {
			if (r < 0)
				goto out;
			if (parse_ids(v, &uid, &gid) != 0) {
				lox_err("--uid UID[:GID], decimal: %s", v);
				goto out;
			}
			if (uid == 0 || gid == 0) {
				lox_err("refused: an agent never runs as uid or gid "
				    "0 (root passes the socket's modes; the console "
				    "refuses it too)");
				goto out;
			}
			ids = v;
		} else if (strcmp(argv[k], "--network") == 0) {
			network = 1;
		} else if (strcmp(argv[k], "--print") == 0) {
			print = 1;
		} else if (strcmp(argv[k], "--") == 0) {
			k++;
			break;
		} else {
			lox_err("refused: lox agent %s (the command goes after --)",
			    argv[k]);
			goto out;
		}
	}
	if (k >= argc) {
		lox_err("lox agent: no command (lox agent -- lockfile status)");
		goto out;
	}
	if (ids != NULL && console_uid(l, uid) != 0)
		goto out;
	if (image == NULL) {
		if (lox_image("agent", id, sizeof(id)) != 0) {
			ret = LOX_EX_NOINPUT;
			goto out;
		}
		image = id;
	}
	argv_add(&a, print ? "docker" : l->docker);
	argv_add(&a, "run");
	argv_add(&a, "--rm");
	argv_add(&a, "-i");
	if (!print && isatty(0) && isatty(1))
		argv_add(&a, "-t");
	argv_add(&a, "--init");
	argv_add(&a, "--pull");
	argv_add(&a, "never");
	/* An agent container is bounded by default: a fork bomb or a memory
	 * hog in it must not starve the console's host (docs/docker.md). */
	argv_add(&a, "--pids-limit");
	argv_add(&a, "256");
	argv_add(&a, "--memory");
	argv_add(&a, "1g");
	argv_add(&a, "--user");
	if (ids != NULL) {
		argv_addf(&a, "%lu:%lu", uid, gid);
		/* The 2750 socket directory lets in the clients group only: a
		 * uid the agent image was built to allow (ALLOWED_UIDS, its
		 * label) gets that group, any other uid does not, and cannot
		 * reach the console (docs/docker.md, "Several agents"). */
		if (lox_image_allows_uid(l, image, uid)) {
			argv_add(&a, "--group-add");
			argv_add(&a, LF_CLIENTS_GROUP);
		}
	} else {
		argv_add(&a, LF_AGENT_ACCOUNT);
		argv_add(&a, "--group-add");
		argv_add(&a, LF_CLIENTS_GROUP);
	}
	argv_add(&a, "--cap-drop");
	argv_add(&a, "ALL");
	argv_add(&a, "--security-opt");
	argv_add(&a, "no-new-privileges");
	argv_add(&a, "--read-only");
	argv_add(&a, "--tmpfs");
	argv_add(&a, "/tmp:rw,nosuid,nodev,size=64m");
	if (!network) {
		argv_add(&a, "--network");
		argv_add(&a, "none");
	}
	argv_add(&a, "--volume");
	argv_addf(&a, "%s:%s:ro", l->run_volume, LF_SOCKET_DIR);
	/* Per-container /proc counters where the host runs LXCFS: a fetch
	 * does not show on them (docs/docker.md, "Host-wide counters"). */
	lox_lxcfs_mounts(&a);
	argv_add(&a, image);
	for (; k < argc; k++)
		argv_add(&a, argv[k]);
	if (print) {
		argv_print(stdout, &a);
		ret = 0;
	} else {
		ret = lox_exec(l, &a);
	}
out:
	argv_free(&a);
	return ret;
}
