/* Commands provided by the sandbox module. */
#ifndef LOCKFILE_SANDBOX_CMD_H
#define LOCKFILE_SANDBOX_CMD_H

#include "sandbox/sandbox.h"

int cmd_sandbox_run(int argc, char **argv);
/* Exit status of `sandbox-run` for an outcome class. */
int sandbox_exit_code(enum outcome o);

#endif
