/* lockfile-console: the console account's and root's commands (docs/
 * hacking.md, "Executables"). Users type them as `lockfile COMMAND`: the
 * agent's lockfile forwards them here by exec. The hostile lines the
 * console reads are parsed in lockfile-parse-worker, and `sandbox-run`
 * is lockfile-sandbox-run: neither maps what this executable links. */
#include "config.h"
#include "console/cmd.h"
#include "console/doctor.h"
#include "lib/exe.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "sigstore/cmd.h"
#include "store/cmd.h"
#include "update/cmd.h"

#include <stdio.h>
#include <string.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *side;	/* who runs it */
	const char *summary;
} commands[] = {
	{ "console", cmd_console, "console",
	    "serve agents on the socket and the human on this terminal" },
	{ "policy", cmd_policy, "console",
	    "show or approve the policy (show|approve)" },
	{ "audit", cmd_audit, "console", "print the audit log" },
	{ "hub-key", cmd_hub_key, "console",
	    "hub mode: make and print this console's instance key" },
	{ "plugin", cmd_plugin, "console",
	    "install, update, verify, list or remove signed plugins" },
	{ "update", cmd_update, "root",
	    "install a newer signed lockfile release (--check, --rollback)" },
	{ "doctor", cmd_doctor, "console",
	    "check every precondition, one line per condition" },
	{ "verify-bundle", cmd_verify_bundle, "any",
	    "verify a Sigstore bundle offline (diagnostic)" },
	{ "version", cmd_version, "any", "print the version" },
	{ "help", cmd_help, "any", "list the commands" },
};

static int
cmd_help(int argc, char **argv)
{
	size_t i;

	printf("usage: lockfile COMMAND [ARGS...]   (lockfile COMMAND --help)\n"
	    "the console's commands (lockfile help lists the agent's too):\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-16s %-8s %s\n", commands[i].name,
		    commands[i].side, commands[i].summary);
	return 0;
}

static int
cmd_version(int argc, char **argv)
{
	printf("lockfile %s\n", LOCKFILE_VERSION);
	return 0;
}

int
main(int argc, char **argv)
{
	size_t i;

	exe_start(LF_EXE_CONSOLE);
	if (argc < 2) {
		cmd_help(0, NULL);
		return 64;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(0, NULL);
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version(0, NULL);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			log_init(commands[i].name);
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	logit("unknown command (see lockfile help)");
	return 64;
}
