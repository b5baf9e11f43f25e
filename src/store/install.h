/* The plugin commands that install (install.c): install, update, verify.
 * Each returns a PCMD_* exit status (pcmd.h). */
#ifndef LOCKFILE_STORE_INSTALL_H
#define LOCKFILE_STORE_INSTALL_H

#include "store/pcmd.h"

int pcmd_install(struct pcmd *c, const char *spec);
int pcmd_update(struct pcmd *c, const char *name);
int pcmd_verify(struct pcmd *c);

#endif
