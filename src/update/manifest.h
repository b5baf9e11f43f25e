/* The release manifest (docs/releases.md): release.json, written by
 * release.yml for tag vX.Y.Z and signed there with every artifact it
 * names. It states the repository, the tag, the commit and, for every
 * artifact of the release, its kind, size and SHA-256. It is untrusted
 * bytes until its bundle verifies, and its tag names the identity to check
 * it under, so it is parsed first: here, strictly, with limits. */
#ifndef LOCKFILE_RELEASE_MANIFEST_H
#define LOCKFILE_RELEASE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "lib/crypto.h"
#include "store/index.h"

#define RELMAN_FILE "release.json"
#define RELMAN_MAX_BYTES (64 * 1024)
#define RELMAN_MAX_ARTIFACTS 64
#define RELMAN_NAME_MAX 64
#define RELMAN_MAX_SIZE (8ULL << 30)	/* one artifact (an image) */
/* What lockfile update installs is smaller: a launcher, a profile. */
#define RELMAN_MAX_INSTALL_SIZE (256ULL << 20)

enum relman_status {
	RELMAN_OK = 0,
	RELMAN_E_INVALID,	/* not a release manifest (why says where) */
};

/* What an artifact is, and where lockfile update puts it. */
enum relart_kind {
	RELART_BIN,		/* PREFIX/bin/NAME, 0755: a launcher */
	RELART_SHARE,		/* PREFIX/share/lockfile/NAME, 0644 */
	RELART_PLUGIN,		/* an official plugin (published, not installed) */
	RELART_IMAGE,		/* a Docker image, OCI tarball */
	RELART_TRUST,		/* a file install.sh seeds /etc/lockfile with */
	RELART_TMPFILES,	/* install.sh: PREFIX/lib/tmpfiles.d/NAME */
	RELART_SOURCE,		/* the source tarball */
	RELART_INFO,		/* build information (toolchain, hashes) */
};

struct relart {
	char name[RELMAN_NAME_MAX + 1];
	enum relart_kind kind;
	unsigned long long size;
	uint8_t sha256[SHA256_LEN];
};

struct relman {
	char repo[REPO_MAX + 1];
	char tag[TAG_MAX];		/* vX.Y.Z */
	char version[21];		/* X.Y.Z */
	char commit[41];		/* 40 lowercase hex */
	long long source_date_epoch;
	size_t n;
	struct relart a[RELMAN_MAX_ARTIFACTS];
	uint8_t sha256[SHA256_LEN];	/* of the manifest bytes */
};

/* Parse manifest bytes. RELMAN_OK, or RELMAN_E_INVALID with a static
 * reason in *why (never manifest bytes). */
enum relman_status relman_parse(const char *data, size_t len,
    struct relman *m, const char **why);

const struct relart *relman_find(const struct relman *m, const char *name);
/* The first executable of a role (paths.h, LF_EXE_ALL) the manifest does
 * not name as a bin artifact, or NULL when it names them all: a release
 * that left one out would leave an older one running beside the new
 * (docs/releases.md). */
const char *relman_missing_exe(const struct relman *m);
/* Installed by lockfile update: bin and share. */
int relart_installed(const struct relart *a);
const char *relart_kind_name(enum relart_kind k);

/* A release tag: "v" and a version (version_is_valid). Writes the version
 * without the v. 1 when valid, else 0. */
int release_tag_valid(const char *tag, char *version, size_t versionlen);
/* An artifact name: [a-z0-9][a-z0-9._-]*, at most RELMAN_NAME_MAX, no
 * "..", not a bundle (.sigstore.json), not release.json or install.sh; a
 * launcher (bin) also has no '.'. 1 or 0. */
int relart_name_valid(const char *name, enum relart_kind kind);

#endif
