/* lockfile: the agent's executable, git-style subcommands. The agent-side
 * commands run here (they only talk to the socket: jansson and libc, no
 * more); the console-side ones are forwarded, by exec in the same process,
 * to the executable of their role beside this one (docs/hacking.md,
 * "Executables"), so the names users type stay the same and an agent's
 * `lockfile status` never maps the console's libraries. */
#include "config.h"
#include "client/cmd.h"
#include "lib/exe.h"
#include "lib/log.h"
#include "lib/paths.h"

#include <stdio.h>
#include <string.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int, char **);	/* run here, or */
	const char *exe;		/* forwarded to this executable */
	int keep_name;			/* forwarded with the command's name */
	const char *side;		/* who runs it */
	const char *summary;
} commands[] = {
	{ "console", NULL, LF_EXE_CONSOLE, 1, "console",
	    "serve agents on the socket and the human on this terminal" },
	{ "policy", NULL, LF_EXE_CONSOLE, 1, "console",
	    "show or approve the policy (show|approve)" },
	{ "audit", NULL, LF_EXE_CONSOLE, 1, "console", "print the audit log" },
	{ "hub-key", NULL, LF_EXE_CONSOLE, 1, "console",
	    "hub mode: make and print this console's instance key" },
	{ "plugin", NULL, LF_EXE_CONSOLE, 1, "console",
	    "install, update, verify, list or remove signed plugins" },
	{ "update", NULL, LF_EXE_CONSOLE, 1, "root",
	    "install a newer signed lockfile release (--check, --rollback)" },
	{ "doctor", NULL, LF_EXE_CONSOLE, 1, "console",
	    "check every precondition, one line per condition" },
	{ "sandbox-run", NULL, LF_EXE_SANDBOX_RUN, 0, "console",
	    "run one plugin in the sandbox (diagnostic)" },
	{ "verify-bundle", NULL, LF_EXE_CONSOLE, 1, "any",
	    "verify a Sigstore bundle offline (diagnostic)" },
	{ "status", cmd_client_status, NULL, 0, "agent",
	    "is the console up, and how is it set (busy when serving)" },
	{ "sources", cmd_client_sources, NULL, 0, "agent",
	    "the profiles a plan may name" },
	{ "plugins", cmd_client_plugins, NULL, 0, "agent",
	    "the installed plugins and their signed questions" },
	{ "ask", cmd_client_ask, NULL, 0, "agent",
	    "ask yes/no questions about a file (a human approves)" },
	{ "plan", cmd_client_ask, NULL, 0, "agent", "the same as ask" },
	{ "run", cmd_client_run, NULL, 0, "agent",
	    "run a remotely approved plan (hub mode)" },
	{ "release", cmd_client_release, NULL, 0, "agent",
	    "delete the console's copy of a fetched file" },
	{ "request-change", cmd_client_request_change, NULL, 0, "agent",
	    "queue a text for the human" },
	{ "mcp", cmd_mcp, NULL, 0, "agent",
	    "an MCP server on stdio for agent hosts" },
	{ "version", cmd_version, NULL, 0, "any", "print the version" },
	{ "help", cmd_help, NULL, 0, "any", "list the commands" },
};

static int
cmd_help(int argc, char **argv)
{
	size_t i;

	printf("usage: lockfile COMMAND [ARGS...]   (lockfile COMMAND --help)\n\n");
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
	const char *why = NULL;
	size_t i;

	exe_start(LF_EXE_AGENT);
	if (argc < 2) {
		cmd_help(0, NULL);
		return 64;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(0, NULL);
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version(0, NULL);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *c = &commands[i];

		if (strcmp(argv[1], c->name) != 0)
			continue;
		log_init(c->name);
		if (c->fn != NULL)
			return c->fn(argc - 1, argv + 1);
		exe_sibling_exec(c->exe, argv + (c->keep_name ? 1 : 2), &why);
		logit("%s: %s", c->exe, why);
		return 69;	/* EX_UNAVAILABLE */
	}
	logit("unknown command (see lockfile help)");
	return 64;
}
