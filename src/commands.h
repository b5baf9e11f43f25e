/* The command table: every subcommand, where it lives and who runs it.
 * A module adds its command here and declares it in its own cmd header. */
#ifndef LOCKFILE_COMMANDS_H
#define LOCKFILE_COMMANDS_H

#include "client/cmd.h"
#include "console/cmd.h"
#include "console/doctor.h"
#include "sandbox/cmd.h"
#include "sigstore/cmd.h"
#include "store/cmd.h"
#include "update/cmd.h"

#define COMMAND_TABLE \
	{ "console", cmd_console, "console", \
	    "serve agents on the socket and the human on this terminal" }, \
	{ "policy", cmd_policy, "console", \
	    "show or approve the policy (show|approve)" }, \
	{ "audit", cmd_audit, "console", "print the audit log" }, \
	{ "hub-key", cmd_hub_key, "console", \
	    "hub mode: make and print this console's instance key" }, \
	{ "plugin", cmd_plugin, "console", \
	    "install, update, verify, list or remove signed plugins" }, \
	{ "update", cmd_update, "root", \
	    "install a newer signed lockfile release (--check, --rollback)" }, \
	{ "doctor", cmd_doctor, "console", \
	    "check every precondition, one line per condition" }, \
	{ "sandbox-run", cmd_sandbox_run, "console", \
	    "run one plugin in the sandbox (diagnostic)" }, \
	{ "verify-bundle", cmd_verify_bundle, "any", \
	    "verify a Sigstore bundle offline (diagnostic)" }, \
	{ "status", cmd_client_status, "agent", \
	    "is the console up, and how is it set (busy when serving)" }, \
	{ "sources", cmd_client_sources, "agent", \
	    "the profiles a plan may name" }, \
	{ "plugins", cmd_client_plugins, "agent", \
	    "the installed plugins and their signed questions" }, \
	{ "ask", cmd_client_ask, "agent", \
	    "ask yes/no questions about a file (a human approves)" }, \
	{ "plan", cmd_client_ask, "agent", "the same as ask" }, \
	{ "run", cmd_client_run, "agent", \
	    "run a remotely approved plan (hub mode)" }, \
	{ "release", cmd_client_release, "agent", \
	    "delete the console's copy of a fetched file" }, \
	{ "request-change", cmd_client_request_change, "agent", \
	    "queue a text for the human" }, \
	{ "mcp", cmd_mcp, "agent", "an MCP server on stdio for agent hosts" }, \
	{ "__parse-worker", cmd_parse_worker, "internal", "" },

#endif
