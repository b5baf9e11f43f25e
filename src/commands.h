/* The command table: every subcommand, where it lives and who runs it.
 * A module adds its command here and declares it in its own cmd header. */
#ifndef LOCKFILE_COMMANDS_H
#define LOCKFILE_COMMANDS_H

#include "sandbox/cmd.h"

#define COMMAND_TABLE \
	{ "sandbox-run", cmd_sandbox_run, "console", \
	    "run one plugin in the sandbox (diagnostic)" },

#endif
