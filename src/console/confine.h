/* The console confines itself once it has opened what it needs, so a bug
 * in the console is not a way out (docs/isolation.md). Boundary: after
 * start the console can read its home, the policy's local sources, /proc, the
 * system configuration and what glibc needs; write only below its work
 * directory; execute only the plugin store, its own binary (the parser
 * worker) and the dynamic loader; make no TCP connection unless a profile
 * needs the network; and make only the system calls of its allowlist
 * (confine_filter.c): no ptrace, no mount or namespaces, no sockets but
 * socketpair (and inet/netlink for network profiles), no chmod that opens
 * a file to group or others, no TIOCSTI. Plugins and the parser worker
 * inherit all of it under their own, narrower, Landlock and seccomp.
 *
 * Sanitized builds (LOCKFILE_SANITIZED) relax the filter where the
 * sanitizer runtime needs it (ptrace for LeakSanitizer, executable
 * mappings); docs/isolation.md says exactly what. */
#ifndef LOCKFILE_CONFINE_H
#define LOCKFILE_CONFINE_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox/landlock.h"

#define CONFINE_MAX_PATHS 96

struct confine_path {
	char *path;		/* malloc'ed; a name only when fd >= 0 */
	int fd;			/* used instead of path when >= 0 */
	uint64_t rights;	/* LF_FS_* (landlock_abi.h) */
	int optional;		/* a missing path is skipped */
};

#define CONFINE_MAX_PORTS 64

struct confine_spec {
	size_t npaths;
	struct confine_path paths[CONFINE_MAX_PATHS];
	int network;		/* TCP connect, inet and netlink sockets allowed */
	size_t nports;		/* ...and TCP connect only to these ports */
	unsigned ports[CONFINE_MAX_PORTS];
};

/* Rights used for the console's paths. */
#define CONFINE_READ		1	/* files and directories, read */
#define CONFINE_EXEC		2	/* read, list, execute */
#define CONFINE_WRITE		3	/* everything below but REFER */
#define CONFINE_DEVICE		4	/* read, write, ioctl */
#define CONFINE_UNLINK		5	/* remove files (the socket at exit) */

void confine_spec_init(struct confine_spec *s);
void confine_spec_free(struct confine_spec *s);
/* Add a path (or an open fd, path then only names it) with one of the
 * CONFINE_* sets. 0, or -1 when the spec is full. */
int confine_add(struct confine_spec *s, const char *path, int kind,
    int optional);
int confine_add_fd(struct confine_spec *s, int fd, const char *name,
    int kind);
/* The shared objects this process has mapped (read), and the dynamic
 * loader (execute): what a re-exec of our own binary needs. 0 or -1. */
int confine_add_loaded_objects(struct confine_spec *s);

/* Apply: no_new_privs, Landlock (when caps->abi > 0), then the console's
 * seccomp filter. The process must be single-threaded (Landlock confines
 * the calling thread only). 0, or -1 with a static reason; on -1 the
 * process may be partly confined and must not go on serving. */
int confine_apply(const struct confine_spec *s,
    const struct landlock_caps *caps, const char **why);

/* The console filter (confine_filter.c). 0 or -1 with a static reason. */
int confine_filter_load(int network, const char **why);

/* What every confined console reads whatever its policy: the system
 * configuration directory, /proc, /dev/null and /dev/tty, /dev/urandom,
 * what glibc's name service reads, the resolver's and CA files when
 * s->network is set (so set it first), and the mapped shared objects.
 * Called last by the spec's builder (console.c). 0 or -1 when full. */
int confine_add_system(struct confine_spec *s);

#endif
