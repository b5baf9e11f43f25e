/* `lockfile policy` (console account). */
#ifndef LOCKFILE_POLICY_CMD_H
#define LOCKFILE_POLICY_CMD_H

int cmd_policy(int argc, char **argv);

#endif
