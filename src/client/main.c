/* lockfile: the agent's executable, git-style subcommands. The agent-side
 * commands run here (they only talk to the socket: jansson and libc, no
 * more); the console-side ones are forwarded, by exec in the same process,
 * to the executable of their role beside this one (docs/hacking.md,
 * "Executables"), so the names users type stay the same and an agent's
 * `lockfile status` never maps the console's libraries. */
#include "client/cmd.h"
#include "lib/cmdtable.h"
#include "lib/exe.h"
#include "lib/paths.h"

static const struct command commands[] = {
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
};

int
main(int argc, char **argv)
{
	exe_start(LF_EXE_AGENT);
	return cmdtable_main(commands, sizeof(commands) / sizeof(commands[0]),
	    NULL, argc, argv);
}
