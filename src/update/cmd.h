/* Commands provided by the update module. */
#ifndef LOCKFILE_UPDATE_CMD_H
#define LOCKFILE_UPDATE_CMD_H

/* lockfile update [--check] [--version vX.Y.Z] [--rollback] (as root;
 * cmd_update.c). */
int cmd_update(int argc, char **argv);

#endif
