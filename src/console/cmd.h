/* Commands provided by the console module. */
#ifndef LOCKFILE_CONSOLE_CMD_H
#define LOCKFILE_CONSOLE_CMD_H

#include "console/audit.h"
#include "console/console.h"
#include "console/parser_worker.h"
#include "console/policy_cmd.h"

#endif
