/* The trust configuration, root-owned in /etc/lockfile/ (sysconf.h):
 * trusted_root.json (the Sigstore trusted root every signature is checked
 * under) and trust.toml (the lockfile release repository and the
 * marketplaces: name, where to fetch, the GitHub repository whose
 * release.yml signs it and its and its owner's numeric ids, official or
 * not). docs/marketplace.md documents
 * both. Boundary: "Plugins and releases are what their publisher built" --
 * only root can change whom lockfile trusts; nothing in the console's home
 * and nothing through the socket can. */
#ifndef LOCKFILE_TRUST_H
#define LOCKFILE_TRUST_H

#include <stddef.h>
#include <stdint.h>

#include "lib/crypto.h"
#include "lib/paths.h"
#include "store/index.h"
#include "store/lockdb.h"

#define TRUST_URL_MAX 1024
#define TRUST_ID_MAX 24		/* a GitHub id in decimal, and its NUL */

struct market_conf {
	char name[65];		/* [a-z0-9][a-z0-9_-]*, as in plugins.lock */
	char url[TRUST_URL_MAX];/* https://HOST/PATH, file:///DIR or /DIR */
	char repo[REPO_MAX + 1];/* OWNER/REPO whose release.yml signs it */
	/* The repository's and its owner's numeric ids (Fulcio .1.15 and
	 * .1.17): names can change hands, ids do not. "" when trust.toml
	 * does not pin them yet: then nothing from it verifies. */
	char repo_id[TRUST_ID_MAX];
	char owner_id[TRUST_ID_MAX];
	/* index_floor: the lowest index version accepted (0: none), so the
	 * first index a fresh store reads is not taken on trust alone. */
	unsigned long long index_floor;
	int official;
};

struct sigstore_root;

struct trust {
	struct sigstore_root *root;
	char release_repo[REPO_MAX + 1];
	char release_repo_id[TRUST_ID_MAX];	/* "" when not pinned */
	char release_owner_id[TRUST_ID_MAX];
	/* Where lockfile update fetches releases (docs/releases.md): empty
	 * when trust.toml names none (then GitHub's releases of
	 * release_repo). */
	char release_url[TRUST_URL_MAX];
	size_t nmarkets;
	struct market_conf m[LOCKDB_MAX_MARKETS];
};

/* Load both files from the system configuration directory. 0, or -1 with
 * a reason in why (our text; nothing read from the files is echoed). */
int trust_load(struct trust *t, char *why, size_t whylen);
/* Parse trust.toml text (exposed for tests and the fuzzer). */
int trust_parse(const char *text, size_t len, struct trust *t, char *why,
    size_t whylen);
void trust_free(struct trust *t);

const struct market_conf *trust_market(const struct trust *t,
    const char *name);

/* 1 when u is a marketplace location trust.toml would take (https://,
 * file:/// or an absolute path; no query, fragment, quote, space, ".."). */
int trust_url_ok(const char *u);

/* Verify a Sigstore bundle over an artifact whose SHA-256 is sha, signed
 * by "the release.yml workflow of m's repository, run on tag" (issuer
 * GitHub Actions, source repository and ref exact, repository and owner
 * ids the ones m pins; refused when m pins none). 0, or -1 with why naming
 * the verifier's code (E_...). */
int trust_verify(const struct trust *t, const struct market_conf *m,
    const char *tag, const uint8_t sha[SHA256_LEN], const uint8_t *bundle,
    size_t bundlelen, char *why, size_t whylen);

/* The same without the ids, for a human to see which ids the verified
 * certificate carries before pinning them (lockfile plugin identity):
 * repo_id and owner_id (TRUST_ID_MAX bytes each) get them, "" when the
 * certificate has none. */
int trust_verify_names(const struct trust *t, const struct market_conf *m,
    const char *tag, const uint8_t sha[SHA256_LEN], const uint8_t *bundle,
    size_t bundlelen, char *repo_id, char *owner_id, char *why,
    size_t whylen);

#endif
