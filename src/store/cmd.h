/* Commands provided by the store module. */
#ifndef LOCKFILE_STORE_CMD_H
#define LOCKFILE_STORE_CMD_H

/* lockfile plugin install|update|verify|list|remove (install.c,
 * cmd_plugin.c). Console account only; never reachable from the socket. */
int cmd_plugin(int argc, char **argv);

#endif
