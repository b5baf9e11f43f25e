/* What the plugin commands share (cmd_plugin.c: set-up, list, remove,
 * identity; install.c: install, update, verify), in a file of its own so
 * that neither calls into the other's (pcmd.c). Exit status of every verb:
 * 0 done, 1 refused (a check failed, tampering found, a loosening not
 * accepted, nothing to install), 64 usage, 70 cannot run (root, home,
 * trust configuration, plugins.lock unreadable, another plugin command
 * running). */
#ifndef LOCKFILE_STORE_PCMD_H
#define LOCKFILE_STORE_PCMD_H

#include <limits.h>
#include <time.h>

#include "store/index.h"
#include "store/stage.h"
#include "store/store.h"
#include "store/trust.h"

#define PCMD_OK 0
#define PCMD_REFUSED 1
#define PCMD_USAGE 64
#define PCMD_CANNOT 70

struct fetched {
	const struct market_conf *m;
	int state;		/* 0 not fetched yet, 1 accepted, -1 refused */
	struct mindex ix;
};

struct pcmd {
	char home[PATH_MAX];
	char storedir[PATH_MAX];	/* <home>/.local/share/lockfile */
	struct store st;		/* paths and the plugins.lock read */
	struct stage sg;		/* the flock'ed store, staging */
	struct trust trust;
	const char *market;		/* --marketplace, or NULL */
	const char *from;		/* --from DIR (a mirror), or NULL */
	const struct market_conf *only;	/* with --from: the one mirrored;
					 * no other marketplace is read */
	time_t now;
	struct fetched fx[LOCKDB_MAX_MARKETS];
};

/* Load trust.toml and the trusted root once (with --from,
 * the mirrored marketplace is read from DIR instead of its url). 0 or -1. */
int pcmd_need_trust(struct pcmd *c);
/* 0 when m may be read in this command (not another one than --from's). */
int pcmd_skip_market(const struct pcmd *c, const struct market_conf *m);

#endif
