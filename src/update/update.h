/* lockfile update (docs/releases.md): install a signed lockfile release
 * from the release URL of trust.toml, bound to its exact vX.Y.Z tag, and
 * roll back to the one before. Above src/store (trust configuration,
 * fetching) and src/sigstore (the verifier); nothing here is the console's.
 *
 * Boundary: "Plugins and releases are what their publisher built". A
 * release is installed only when its manifest's bundle verifies as "the
 * release.yml workflow of release_repository, run on refs/tags/vX.Y.Z", the
 * manifest names that repository and tag, it is newer than the installed
 * one, and every installed artifact has the size and SHA-256 the manifest
 * names and its own bundle verifies for the same tag. Anything else
 * changes nothing (downloads go to temporary files that are removed). */
#ifndef LOCKFILE_UPDATE_H
#define LOCKFILE_UPDATE_H

#include <stddef.h>

/* Exit status of lockfile update. */
enum upd_status {
	UPD_OK = 0,		/* done (or, with --check, answered) */
	UPD_REFUSED = 1,	/* a check failed; nothing changed */
	UPD_USAGE = 64,
	UPD_CANNOT = 70,	/* not root, trust configuration, layout, lock */
};

#define UPD_STALL_DEFAULT_S 30
#define UPD_STALL_MAX_S 300

struct upd_opts {
	const char *prefix;	/* the installation (default LOCKFILE_PREFIX) */
	const char *tag;	/* --version vX.Y.Z, or NULL for the latest */
	int check;		/* only say whether a newer release exists */
	long stall_s;		/* give up a download this long under 512 B/s */
};

enum upd_status update_install(const struct upd_opts *o);
enum upd_status update_rollback(const struct upd_opts *o);
/* --identity: the repository and owner ids the release's signature
 * carries, beside what trust.toml pins (any account; changes nothing). */
enum upd_status update_identity(const struct upd_opts *o);

/* For doctor: the release this binary was installed from, checked now
 * (the recorded manifest's bundle under the trust configuration, this
 * binary's and its siblings' SHA-256 against it). 1 when it holds (or when
 * the binary is a build, not an installed release), 0 when not; detail
 * says which. */
int update_report(char *detail, size_t len);

#endif
