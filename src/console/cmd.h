/* Commands provided by the console module, for lockfile-console's table
 * (main.c): the entry points only. It does not include console.h, so the command table
 * never sees struct console (docs/hacking.md, "Layers"). */
#ifndef LOCKFILE_CONSOLE_CMD_H
#define LOCKFILE_CONSOLE_CMD_H

#include "console/hub.h"		/* cmd_hub_key */

/* `lockfile audit [--home DIR] [--json] [--ledger [--key K] [--uid U]
 * [--repair]]` (cmd_audit.c) */
int cmd_audit(int argc, char **argv);
/* `lockfile console` (console.c) */
int cmd_console(int argc, char **argv);
/* `lockfile policy` (cmd_policy.c; console account) */
int cmd_policy(int argc, char **argv);

#endif
