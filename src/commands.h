/* The command table: every subcommand, where it lives and who runs it.
 * A module adds its command here and declares it in its own cmd header. */
#ifndef LOCKFILE_COMMANDS_H
#define LOCKFILE_COMMANDS_H

#include "console/cmd.h"
#include "sandbox/cmd.h"
#include "sigstore/cmd.h"

#define COMMAND_TABLE \
	{ "console", cmd_console, "console", \
	    "serve agents on the socket and the human on this terminal" }, \
	{ "policy", cmd_policy, "console", \
	    "show or approve the policy (show|approve)" }, \
	{ "audit", cmd_audit, "console", "print the audit log" }, \
	{ "sandbox-run", cmd_sandbox_run, "console", \
	    "run one plugin in the sandbox (diagnostic)" }, \
	{ "verify-bundle", cmd_verify_bundle, "any", \
	    "verify a Sigstore bundle offline (diagnostic)" }, \
	{ "__parse-worker", cmd_parse_worker, "internal", "" },

#endif
