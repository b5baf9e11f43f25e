/* Commands provided by the client module (the agent's side). */
#ifndef LOCKFILE_CLIENT_CMD_H
#define LOCKFILE_CLIENT_CMD_H

int cmd_client_status(int argc, char **argv);
int cmd_client_sources(int argc, char **argv);
int cmd_client_plugins(int argc, char **argv);
int cmd_client_ask(int argc, char **argv);
int cmd_client_run(int argc, char **argv);
int cmd_client_release(int argc, char **argv);
int cmd_client_request_change(int argc, char **argv);
int cmd_mcp(int argc, char **argv);

#endif
