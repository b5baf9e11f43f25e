/* lockfile-console: the console account's and root's commands (docs/
 * hacking.md, "Executables"). Users type them as `lockfile COMMAND`: the
 * agent's lockfile forwards them here by exec. The hostile lines the
 * console reads are parsed in lockfile-parse-worker, and `sandbox-run`
 * is lockfile-sandbox-run: neither maps what this executable links. */
#include "console/cmd.h"
#include "console/doctor.h"
#include "lib/cmdtable.h"
#include "lib/exe.h"
#include "lib/paths.h"
#include "sigstore/cmd.h"
#include "store/cmd.h"
#include "update/cmd.h"

static const struct command commands[] = {
	{ "console", cmd_console, NULL, 0, "console",
	    "serve agents on the socket and the human on this terminal" },
	{ "policy", cmd_policy, NULL, 0, "console",
	    "show or approve the policy (show|approve)" },
	{ "audit", cmd_audit, NULL, 0, "console", "print the audit log" },
	{ "hub-key", cmd_hub_key, NULL, 0, "console",
	    "hub mode: make and print this console's instance key" },
	{ "plugin", cmd_plugin, NULL, 0, "console",
	    "install, update, verify, list or remove signed plugins" },
	{ "update", cmd_update, NULL, 0, "root",
	    "install a newer signed lockfile release (--check, --rollback)" },
	{ "doctor", cmd_doctor, NULL, 0, "console",
	    "check every precondition, one line per condition" },
	{ "verify-bundle", cmd_verify_bundle, NULL, 0, "any",
	    "verify a Sigstore bundle offline (diagnostic)" },
};

int
main(int argc, char **argv)
{
	exe_start(LF_EXE_CONSOLE);
	return cmdtable_main(commands, sizeof(commands) / sizeof(commands[0]),
	    "the console's commands (lockfile help lists the agent's too):",
	    argc, argv);
}
