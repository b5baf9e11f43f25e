/* lox: main and the command table (see lox.h). */
#include "config.h"
#include "lox/lox.h"
#include "lox/hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	const char *args;
	const char *summary;
	int (*fn)(struct lox *, int, char **);
};

static const struct command commands[] = {
	{ "run", "[--instance NAME] [--source NAME=HOSTDIR]... [--network] "
	    "[--hub URL [--hub-ca FILE] | --no-hub] [IMAGE] [-- OPTION...]",
	    "start the console in its container, on this terminal", cmd_run },
	{ "attach", "[--instance NAME]",
	    "reach the running console's terminal (detach: ctrl-] ctrl-])",
	    cmd_attach },
	{ "agent", "[--instance NAME] [--image IMAGE] [--uid UID[:GID]] "
	    "[--network] [--print] -- CMD...",
	    "run CMD in an agent container with only the socket", cmd_agent },
	{ "doctor", "[--instance NAME] [--image IMAGE] [--source NAME=HOSTDIR]... [--json]",
	    "lockfile doctor as the console account, in its container",
	    cmd_doctor },
	{ "policy", "[--instance NAME] [--image IMAGE] [--source NAME=HOSTDIR]... show|approve|load FILE",
	    "show, approve (on this terminal) or load the console's policy",
	    cmd_policy },
	{ "plugin", "[--instance NAME] [--image IMAGE] [--source NAME=HOSTDIR]... [--network] VERB [ARG...]",
	    "lockfile plugin install|update|verify|list|remove, in the "
	    "console's container", cmd_plugin },
	{ "hub-key", "[--instance NAME] [--image IMAGE]",
	    "hub mode: make and show the instance key of the console NAME",
	    cmd_hub_key },
	{ "hub-run", "--instance NAME [--image IMAGE] init|migrate | "
	    "--instance NAME [--image IMAGE] --tls-cert FILE --tls-key FILE "
	    "[--ip ADDR] [--publish [HOSTADDR:]PORT] [--poll-s N]",
	    "hub mode: lockhub in its container (init: make its key; migrate: "
	    "its database's schema after an upgrade; else serve, detached)",
	    cmd_hub_run },
	{ "image", "console|agent|hub",
	    "the image ID the build recorded (for docker-compose)", cmd_image },
	/* Hub mode (docs/hub.md): the approver's side of lockhub. */
	{ "enroll", "[--hub URL] [--ca FILE] [--new] | --instance NAME=KEY",
	    "hub mode: this device's key and the hub, or a console's instance "
	    "key", cmd_enroll },
	{ "tickets", "[--wait]",
	    "hub mode: the pending tickets, checked against the pinned "
	    "instance keys", cmd_tickets },
	{ "approve", "TICKET",
	    "hub mode: show the ticket's signed fields, type its values, "
	    "approve", cmd_approve },
	{ "deny", "TICKET [REASON...]",
	    "hub mode: deny the ticket (the reason stays here)", cmd_deny },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lox [--dry-run] COMMAND [ARGS...]   (lox COMMAND "
	    "--help)\n\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  lox %s %s\n      %s\n", commands[i].name,
		    commands[i].args, commands[i].summary);
	fprintf(f, "\n"
	    "lox builds each docker command itself and runs the docker client\n"
	    "($LOX_DOCKER, else docker on PATH; DOCKER_HOST as docker uses it).\n"
	    "--dry-run prints the command instead. The console's container\n"
	    "gets the seccomp profile $LOX_SECCOMP, else %s.\n\n"
	    "WHOEVER CAN RUN DOCKER COMMANDS ON THIS HOST IS AN OPERATOR.\n"
	    "docker attach types into the console, docker exec runs commands\n"
	    "as its account and writes on its screen, docker logs and docker\n"
	    "cp read what it shows and holds. That is outside lockfile's\n"
	    "boundary: give Docker access (the docker group, the socket) only\n"
	    "to the humans who approve plans, never to an agent.\n",
	    LOX_SECCOMP_DEFAULT);
}

int
main(int argc, char **argv)
{
	struct lox l;
	const char *d = getenv("LOX_DOCKER");
	int i = 1;
	size_t c;

	memset(&l, 0, sizeof(l));
	l.docker = d != NULL && d[0] != '\0' ? d : "docker";
	lox_set_instance(&l, NULL);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--dry-run") == 0) {
			l.dry_run = 1;
		} else if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("lox %s\n", LOCKFILE_VERSION);
			return 0;
		} else {
			lox_err("unknown option %s", argv[i]);
			usage(stderr);
			return LOX_EX_USAGE;
		}
	}
	if (i == argc || strcmp(argv[i], "help") == 0) {
		usage(i == argc ? stderr : stdout);
		return i == argc ? LOX_EX_USAGE : 0;
	}
	for (c = 0; c < NCOMMANDS; c++)
		if (strcmp(argv[i], commands[c].name) == 0)
			break;
	if (c == NCOMMANDS) {
		lox_err("unknown command %s", argv[i]);
		usage(stderr);
		return LOX_EX_USAGE;
	}
	if (i + 1 < argc && (strcmp(argv[i + 1], "--help") == 0 ||
	    strcmp(argv[i + 1], "-h") == 0)) {
		printf("usage: lox %s %s\n  %s\n", commands[c].name,
		    commands[c].args, commands[c].summary);
		return 0;
	}
	i = commands[c].fn(&l, argc - i, argv + i);
	argv_free(&l.sources.mounts);
	return i;
}
