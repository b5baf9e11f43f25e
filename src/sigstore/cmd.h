/* Commands provided by the sigstore module. */
#ifndef LOCKFILE_SIGSTORE_CMD_H
#define LOCKFILE_SIGSTORE_CMD_H

int cmd_verify_bundle(int argc, char **argv);

#endif
