/* Offline verification of Sigstore bundles (cosign keyless signatures) with
 * OpenSSL and jansson; no external binary, no network.
 *
 * Boundary: "Plugins and releases are what their publisher built". Every
 * index, manifest, binary and release lockfile trusts is accepted only when
 * sigstore_verify() returns SIGSTORE_OK for a bundle over its bytes, under a
 * trusted root shipped root-owned in /etc/lockfile/, for an identity policy
 * fixed by the caller. There is no unsigned mode and no partial success.
 *
 * Use:
 *	struct sigstore_root *root;  sigstore_root_load(path, &root)
 *	struct sigstore_bundle *b;   sigstore_bundle_parse(bytes, len, &b)
 *	struct sigstore_policy p;    sigstore_policy_github_release(&p, ...)
 *	sigstore_verify(root, b, artifact_sha256, &p, &result)
 *
 * Errors are codes with static messages (sigstore_strerror): they never carry
 * bytes of the bundle, the root or the artifact, so they may go to an audit.
 * docs/sigstore.md lists what is checked, in which order, and the limits. */
#ifndef LOCKFILE_SIGSTORE_H
#define LOCKFILE_SIGSTORE_H

#include <stddef.h>
#include <stdint.h>

enum sigstore_err {
	SIGSTORE_OK = 0,
	SIGSTORE_E_INTERNAL,		/* allocation or library failure */
	SIGSTORE_E_IO,			/* a file could not be read safely */
	SIGSTORE_E_TOO_BIG,		/* input over its size limit */
	SIGSTORE_E_JSON,		/* not strict JSON */
	SIGSTORE_E_SHAPE,		/* field missing, unknown, mistyped */
	SIGSTORE_E_MEDIA_TYPE,		/* unknown bundle media type */
	SIGSTORE_E_BASE64,		/* not strict standard base64 */
	SIGSTORE_E_DER,			/* certificate or key is not strict DER */
	SIGSTORE_E_LIMIT,		/* too many entries, hashes, certs... */
	SIGSTORE_E_MATERIAL,		/* material not allowed for the version */
	SIGSTORE_E_ROOT_IN_BUNDLE,	/* a self-signed CA inside the bundle */
	SIGSTORE_E_ROOT_SHAPE,		/* trusted root malformed */
	SIGSTORE_E_ROOT_MEDIA_TYPE,	/* trusted root media type unknown */
	SIGSTORE_E_ROOT_VALIDITY,	/* a validFor without start, bad time */
	SIGSTORE_E_ROOT_KEY,		/* a trusted key or cert unusable */
	SIGSTORE_E_NO_TLOG,		/* no transparency log entry */
	SIGSTORE_E_UNKNOWN_LOG,		/* entry from a log not in the root */
	SIGSTORE_E_SET_MISSING,		/* v0.1 entry without inclusion promise */
	SIGSTORE_E_SET,			/* signed entry timestamp invalid */
	SIGSTORE_E_LOG_VALIDITY,	/* log key not valid at that time */
	SIGSTORE_E_PROOF_MISSING,	/* no inclusion proof / checkpoint */
	SIGSTORE_E_PROOF,		/* inclusion proof does not verify */
	SIGSTORE_E_CHECKPOINT,		/* checkpoint malformed */
	SIGSTORE_E_CHECKPOINT_SIG,	/* checkpoint not signed by the log */
	SIGSTORE_E_CHECKPOINT_MISMATCH,	/* checkpoint is for another tree */
	SIGSTORE_E_ENTRY_KIND,		/* entry kind/version unsupported */
	SIGSTORE_E_ENTRY_BODY,		/* entry body malformed */
	SIGSTORE_E_ENTRY_MISMATCH,	/* entry does not match the bundle */
	SIGSTORE_E_TSA,			/* RFC 3161 timestamp invalid */
	SIGSTORE_E_TSA_VALIDITY,	/* timestamp outside the TSA's validFor */
	SIGSTORE_E_NO_TIME,		/* no verified time for the signature */
	SIGSTORE_E_CERT_CHAIN,		/* path validation failed */
	SIGSTORE_E_CERT_VALIDITY,	/* signing time outside the leaf */
	SIGSTORE_E_CA_VALIDITY,		/* signing time outside the CA validFor */
	SIGSTORE_E_CERT_USAGE,		/* not a code-signing leaf */
	SIGSTORE_E_SCT_MISSING,		/* no embedded SCT */
	SIGSTORE_E_SCT,			/* no SCT verifies under a trusted log */
	SIGSTORE_E_SIGNATURE,		/* the artifact signature is invalid */
	SIGSTORE_E_DIGEST_MISMATCH,	/* messageDigest is not the artifact's */
	SIGSTORE_E_DSSE,		/* DSSE envelope unusable */
	SIGSTORE_E_SUBJECT,		/* artifact is not a statement subject */
	SIGSTORE_E_UNSUPPORTED_KEY,	/* key or algorithm not supported */
	SIGSTORE_E_IDENTITY_SAN,	/* SAN is not the expected identity */
	SIGSTORE_E_IDENTITY_ISSUER,	/* OIDC issuer is not the expected one */
	SIGSTORE_E_IDENTITY_REPO,	/* source repository differs */
	SIGSTORE_E_IDENTITY_REF,	/* source ref differs */
	SIGSTORE_E_POLICY,		/* the policy itself is unusable */
	SIGSTORE_E_KEY_MISMATCH,	/* key policy vs certificate material */
	SIGSTORE_E_IDENTITY_REPO_ID,	/* source repository id differs */
	SIGSTORE_E_IDENTITY_OWNER_ID,	/* source repository owner id differs */
	SIGSTORE_E__COUNT
};

/* Static text for a code; never NULL. */
const char *sigstore_strerror(int err);
/* Short stable name of a code ("E_SCT"), for tests and audits. */
const char *sigstore_errname(int err);

/* Limits (also in docs/sigstore.md). */
#define SIGSTORE_MAX_BUNDLE	(4u << 20)
#define SIGSTORE_MAX_ROOT	(1u << 20)
#define SIGSTORE_MAX_IDENTITY	1024

/* A parsed trusted root (immutable once loaded). */
struct sigstore_root;

/* Read and parse a trusted root file. The file is opened without following
 * symlinks; when require_root_owned is set it must be a regular file owned
 * by root and not writable by group or others. */
int sigstore_root_load(const char *path, int require_root_owned,
    struct sigstore_root **out);
int sigstore_root_parse(const uint8_t *data, size_t len,
    struct sigstore_root **out);
void sigstore_root_free(struct sigstore_root *root);

/* A parsed bundle: strict shape, every base64 and DER field decoded. */
struct sigstore_bundle;

int sigstore_bundle_parse(const uint8_t *data, size_t len,
    struct sigstore_bundle **out);
void sigstore_bundle_free(struct sigstore_bundle *b);

/* What must be true of the signer. Exactly one of the two kinds. */
struct sigstore_policy {
	/* Keyless: a Fulcio certificate. issuer is compared exactly with
	 * OID 1.3.6.1.4.1.57264.1.8 (else .1.1); san exactly with the one
	 * SAN (URI or e-mail); source_repo / source_ref, when non-NULL,
	 * exactly with .1.12 / .1.14; source_repo_id / source_owner_id,
	 * when non-NULL, exactly with .1.15 / .1.17 (the repository's and
	 * its owner's numeric ids, which do not move with a name: whoever
	 * registers a renamed or deleted account's name gets its names, not
	 * its ids). */
	const char *san;
	const char *issuer;
	const char *source_repo;
	const char *source_ref;
	const char *source_repo_id;
	const char *source_owner_id;
	/* 1: every log entry must carry an inclusion proof up to a signed
	 * checkpoint, whatever the bundle's version says (a bundle relabelled
	 * 0.1 may otherwise rest on the SET alone). */
	int require_proof;
	/* Managed key: DER SubjectPublicKeyInfo; then the bundle must carry
	 * publicKey material and no identity fields may be set. */
	const uint8_t *key_spki;
	size_t key_spki_len;
};

#define SIGSTORE_GITHUB_ISSUER "https://token.actions.githubusercontent.com"

/* Storage for a policy built from parts. */
struct sigstore_policy_buf {
	char san[SIGSTORE_MAX_IDENTITY];
	char repo[SIGSTORE_MAX_IDENTITY];
	char ref[SIGSTORE_MAX_IDENTITY];
};

/* "The release.yml workflow of repository OWNER/REPO, run on tag TAG":
 * SAN https://github.com/OWNER/REPO/.github/workflows/release.yml@refs/tags/TAG,
 * issuer https://token.actions.githubusercontent.com, source repository
 * https://github.com/OWNER/REPO and source ref refs/tags/TAG; every log
 * entry with an inclusion proof (require_proof: lockfile's own artifacts
 * are signed into bundles that carry one). owner_repo and tag are checked
 * to be plain names (no spaces, controls, ".."). The caller may then set
 * the ids (source_repo_id, source_owner_id). 0, or SIGSTORE_E_POLICY. */
int sigstore_policy_github_release(struct sigstore_policy *p,
    struct sigstore_policy_buf *buf, const char *owner_repo, const char *tag);

#define SIGSTORE_MAX_ID 24

struct sigstore_result {
	int64_t signed_at;	/* earliest verified signing time (Unix s) */
	int ntimes;		/* verified times (SETs + RFC 3161) */
	int ntlog;		/* verified log entries */
	/* The verified certificate's source repository id (.1.15) and owner
	 * id (.1.17), decimal; "" when absent or not a plain number. For a
	 * human to confirm what to pin (lockfile plugin identity). */
	char repo_id[SIGSTORE_MAX_ID];
	char owner_id[SIGSTORE_MAX_ID];
};

/* Verify bundle b over an artifact whose SHA-256 is artifact_sha256, under
 * root and policy. The caller hashes the artifact itself (the bundle's
 * messageDigest is never trusted). result may be NULL. */
int sigstore_verify(const struct sigstore_root *root,
    const struct sigstore_bundle *b, const uint8_t artifact_sha256[32],
    const struct sigstore_policy *policy, struct sigstore_result *result);

/* The same for files: the bundle file (regular, no symlink, at most
 * SIGSTORE_MAX_BUNDLE bytes) and the artifact as an open fd, hashed from
 * offset 0 with pread (its offset is left alone), so the bytes checked are
 * the bytes the caller goes on to use through that fd. */
int sigstore_verify_file(const struct sigstore_root *root,
    const char *bundle_path, int artifact_fd,
    const struct sigstore_policy *policy, struct sigstore_result *result);

#endif
