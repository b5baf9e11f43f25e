/* Internals of the Sigstore verifier shared between its files. Nothing here
 * is part of the module's face (sigstore.h); tests and the test signer use
 * it to reach the pieces one at a time. */
#ifndef LOCKFILE_SIGSTORE_INTERNAL_H
#define LOCKFILE_SIGSTORE_INTERNAL_H

#include "sigstore/sigstore.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

/* Times are nanoseconds since the Unix epoch, so that trusted-root
 * windows ending at .999 and whole-second Rekor times compare exactly. */
typedef int64_t sig_time;
#define SIG_NS 1000000000LL
#define SIG_TIME_MAX INT64_MAX

/* Caps on counts (sizes are capped in sigstore.h). */
#define SIG_MAX_LOGS		32	/* per kind in a trusted root */
#define SIG_MAX_AUTHORITIES	32
#define SIG_MAX_CHAIN		10	/* certificates in one chain */
#define SIG_MAX_TLOG_ENTRIES	8
#define SIG_MAX_TIMESTAMPS	8
#define SIG_MAX_PROOF_HASHES	64
#define SIG_MAX_SCTS		16
#define SIG_MAX_CERT		16384	/* DER bytes of one certificate */
#define SIG_MAX_KEY		4096	/* DER bytes of one public key */
#define SIG_MAX_SIG		1024	/* bytes of one signature */
#define SIG_MAX_TSR		32768	/* bytes of one RFC 3161 response */
#define SIG_MAX_BODY		(1u << 20)	/* decoded tlog entry body */
#define SIG_MAX_PAYLOAD		(2u << 20)	/* decoded DSSE payload */
#define SIG_MAX_CHECKPOINT	8192
#define SIG_MAX_URL		512
#define SIG_MAX_NAME		256

/* ---- util.c: files, allocation, base64, times ---- */
/* Read a whole regular file (no symlink) of at most max bytes; with
 * require_root_owned it must be owned by root and not group/other
 * writable. Caller frees *out. */
int sig_read_file(const char *path, size_t max, int require_root_owned,
    uint8_t **out, size_t *outlen);
void *sig_malloc(size_t n);		/* aborts on exhaustion */
char *sig_strndup(const char *s, size_t n);
/* Strict standard base64 with padding and zero trailing bits; the decoded
 * length must be in [1, max]. Caller frees *out. 0 or SIGSTORE_E_BASE64 /
 * SIGSTORE_E_TOO_BIG. */
int sig_b64_decode(const char *in, size_t inlen, size_t max, uint8_t **out,
    size_t *outlen);
/* Exactly outlen bytes decoded. */
int sig_b64_decode_fixed(const char *in, size_t inlen, uint8_t *out,
    size_t outlen);
/* Standard base64 with padding; NUL-terminated; caller frees. */
char *sig_b64_encode(const uint8_t *in, size_t len);
/* RFC 3339 "YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z" (protobuf Timestamp JSON). */
int sig_parse_rfc3339(const char *s, sig_time *out);
/* ASN1_TIME to nanoseconds. */
int sig_asn1_time(const ASN1_TIME *t, sig_time *out);

/* ---- jsonf.c: typed access to strict JSON ---- */
/* Keys of o: every required one present, nothing outside both lists. */
int jf_keys(const json_t *o, const char *const *required,
    const char *const *optional);
/* A string without NUL, at most max bytes; NULL when absent/mistyped. */
const char *jf_str(const json_t *o, const char *key, size_t max);
/* Present at all (not JSON null). */
const json_t *jf_get(const json_t *o, const char *key);
/* Base64 string field decoded. */
int jf_b64(const json_t *o, const char *key, size_t max, uint8_t **out,
    size_t *outlen);
int jf_b64_fixed(const json_t *o, const char *key, uint8_t *out, size_t len);
/* proto3 JSON int64: a decimal string in [min, max]. */
int jf_i64(const json_t *o, const char *key, int64_t min, int64_t max,
    int64_t *out);

/* ---- der.c: keys, certificates, signatures ---- */
enum sig_keytype {
	SK_NONE = 0,
	SK_ECDSA_P256,
	SK_ECDSA_P384,
	SK_ECDSA_P521,
	SK_ED25519,
	SK_RSA,
};

struct sig_key {
	EVP_PKEY *pkey;
	enum sig_keytype type;
	uint8_t *spki;		/* DER SubjectPublicKeyInfo */
	size_t spki_len;
};

/* Strict DER SubjectPublicKeyInfo (consumed whole, re-encodes equal). */
int sig_key_from_spki(const uint8_t *der, size_t len, struct sig_key *out);
/* PKCS#1 RSAPublicKey (legacy CT log keys). */
int sig_key_from_pkcs1(const uint8_t *der, size_t len, struct sig_key *out);
/* Takes a new reference on pkey. */
int sig_key_from_pkey(EVP_PKEY *pkey, struct sig_key *out);
void sig_key_free(struct sig_key *k);
int sig_key_equal(const struct sig_key *a, const struct sig_key *b);
/* Verify a signature over msg (hashed as the key type requires:
 * P-256/SHA-256, P-384/SHA-384, P-521/SHA-512, RSA PKCS#1 v1.5 SHA-256,
 * Ed25519 pure). 0, SIGSTORE_E_SIGNATURE or SIGSTORE_E_UNSUPPORTED_KEY. */
int sig_verify_msg(const struct sig_key *k, const uint8_t *msg, size_t len,
    const uint8_t *sig, size_t siglen);
/* Verify over a SHA-256 digest computed elsewhere (ECDSA P-256, RSA). */
int sig_verify_sha256(const struct sig_key *k, const uint8_t digest[32],
    const uint8_t *sig, size_t siglen);
/* Strict DER (X.690 section 10), checked by our own walker: exactly one
 * value filling len; minimal identifiers; definite lengths in their
 * shortest form; universal constructed values only SEQUENCE and SET (no
 * constructed strings); BOOLEAN 00 or FF; minimal INTEGER; BIT STRING with
 * 0..7 unused bits, all zero; NULL empty; minimal OID arcs; UTCTime and
 * GeneralizedTime in their DER forms; a SET's values in ascending order;
 * nesting at most 32 deep. 0, or -1. */
int sig_der_strict(const uint8_t *der, size_t len);
/* Strict DER certificate: sig_der_strict, every extension value strict
 * DER too (but Fulcio's raw .1.1 to .1.6), no explicit critical FALSE,
 * and its TBS re-encoded from the parsed fields equal to the TBS
 * received. */
int sig_cert_from_der(const uint8_t *der, size_t len, X509 **out);
/* A PEM block holding exactly one certificate (Rekor v1 bodies). */
int sig_cert_from_pem(const uint8_t *pem, size_t len, X509 **out);
/* A PEM block holding exactly one public key. */
int sig_key_from_pem(const uint8_t *pem, size_t len, struct sig_key *out);
int sig_cert_equal(X509 *a, X509 *b);
int sig_cert_is_self_signed(X509 *c);

/* ---- root.c ---- */
struct sig_window {
	sig_time start;
	sig_time end;		/* SIG_TIME_MAX when open-ended */
};

static inline int
sig_window_has(const struct sig_window *w, sig_time t)
{
	return t >= w->start && t <= w->end;	/* closed range */
}

struct sig_log {
	char base_url[SIG_MAX_URL];
	char name[SIG_MAX_URL];	/* base URL without scheme and path */
	uint8_t log_id[64];
	size_t log_id_len;
	struct sig_key key;	/* key.type SK_NONE: unusable (unknown type) */
	struct sig_window valid;
};

struct sig_authority {
	X509 *anchor;			/* last certificate of the chain */
	STACK_OF(X509) *untrusted;	/* the others, leaf-most first */
	struct sig_window valid;
};

struct sigstore_root {
	struct sig_log tlogs[SIG_MAX_LOGS];
	size_t ntlogs;
	struct sig_log ctlogs[SIG_MAX_LOGS];
	size_t nctlogs;
	struct sig_authority cas[SIG_MAX_AUTHORITIES];
	size_t ncas;
	struct sig_authority tsas[SIG_MAX_AUTHORITIES];
	size_t ntsas;
};

const struct sig_log *sig_root_find_log(const struct sig_log *logs,
    size_t n, const uint8_t *id, size_t idlen);

/* ---- bundle.c ---- */
enum sig_material { MAT_CHAIN = 1, MAT_CERT, MAT_KEY };
enum sig_content { CONTENT_MSG = 1, CONTENT_DSSE };

struct sig_tlog_entry {
	int64_t log_index;
	uint8_t log_id[64];
	size_t log_id_len;
	char kind[32];
	char version[16];
	int has_integrated_time;
	int64_t integrated_time;
	uint8_t *set;			/* signed entry timestamp, or NULL */
	size_t set_len;
	int has_proof;
	int64_t proof_index;
	int64_t tree_size;
	uint8_t root_hash[32];
	uint8_t (*hashes)[32];
	size_t nhashes;
	char *checkpoint;		/* NULL when the proof has none */
	size_t checkpoint_len;
	uint8_t *body;			/* canonicalized body, decoded */
	size_t body_len;
	char *body_b64;			/* as given (canonical: strict b64) */
};

struct sigstore_bundle {
	int version;			/* 1, 2 or 3 (media type 0.1..0.3) */
	enum sig_material material;
	X509 *leaf;			/* MAT_CHAIN, MAT_CERT */
	enum sig_content content;
	uint8_t *sig;			/* messageSignature or the DSSE sig */
	size_t sig_len;
	int has_digest;			/* messageDigest given (SHA2_256) */
	uint8_t digest[32];
	char *payload_type;		/* DSSE */
	uint8_t *payload;
	size_t payload_len;
	struct sig_tlog_entry entries[SIG_MAX_TLOG_ENTRIES];
	size_t nentries;
	uint8_t *tsr[SIG_MAX_TIMESTAMPS];	/* RFC 3161 responses */
	size_t tsr_len[SIG_MAX_TIMESTAMPS];
	size_t ntsr;
};

/* ---- checkpoint.c: signed notes and Merkle inclusion ---- */
struct sig_checkpoint {
	char origin[SIG_MAX_NAME];
	uint64_t size;
	uint8_t root_hash[32];
	size_t text_len;		/* the signed note text, up to "\n\n" */
};

/* Parse a checkpoint envelope (C2SP signed note). */
int sig_checkpoint_parse(const char *env, size_t len,
    struct sig_checkpoint *out);
/* Verify that a signature line by the log (name and key hint match
 * log->name and log->key) verifies over the note text. Lines by unknown
 * keys are ignored; a matching line that does not verify fails. */
int sig_checkpoint_verify(const char *env, size_t len,
    const struct sig_checkpoint *cp, const struct sig_log *log);
/* 4-byte key hint of a log key for a note signed under name. */
int sig_note_key_hint(const struct sig_key *k, const char *name,
    uint8_t hint[4]);
/* RFC 6962 / 9162 inclusion: leaf hash SHA-256(0x00||leaf). */
int sig_merkle_verify(const uint8_t leaf_hash[32], uint64_t index,
    uint64_t size, const uint8_t (*proof)[32], size_t nproof,
    const uint8_t root[32]);
void sig_merkle_leaf(const uint8_t *data, size_t len, uint8_t out[32]);
void sig_merkle_node(const uint8_t l[32], const uint8_t r[32],
    uint8_t out[32]);

/* ---- body.c: match a log entry body with the bundle ---- */
/* The entry must log this bundle's signature, by its signer (key when the
 * bundle uses a managed key, else the bundle's leaf certificate), over this
 * artifact (messageSignature) or this envelope (DSSE). */
int sig_body_match(const struct sig_tlog_entry *e,
    const struct sigstore_bundle *b, const uint8_t artifact_sha256[32],
    const struct sig_key *key);
/* hashedrekord or dsse 0.0.2: an entry of a Rekor v2 (tile) log. */
int sig_entry_is_v2(const struct sig_tlog_entry *e);
/* DSSE pre-authentication encoding; caller frees *out. */
void sig_dsse_pae(const char *type, const uint8_t *payload, size_t len,
    uint8_t **out, size_t *outlen);

/* ---- tlog.c ---- */
/* Verify one entry offline. On success *have_time tells whether it gave
 * a trusted integrated time (v1 entry with a valid SET) in *when. */
int sig_tlog_verify(const struct sigstore_root *root,
    const struct sigstore_bundle *b, const struct sig_tlog_entry *e,
    const uint8_t artifact_sha256[32], const struct sig_key *key,
    int *have_time, sig_time *when, const struct sig_log **log_out);
/* The SET payload (canonical JSON), for the test signer too. */
char *sig_set_payload(const char *body_b64, int64_t integrated_time,
    const uint8_t *log_id, size_t log_id_len, int64_t log_index);

/* ---- tsa.c ---- */
/* Verify an RFC 3161 response over data against the root's TSAs; on
 * success the generation time. */
int sig_tsa_verify(const struct sigstore_root *root, const uint8_t *tsr,
    size_t tsr_len, const uint8_t *data, size_t datalen, sig_time *when);

/* ---- cert.c ---- */
/* Path validation of leaf at time t against one of the root's CAs whose
 * validFor holds t; returns the issuer in *issuer (a new reference). */
int sig_cert_validate(const struct sigstore_root *root, X509 *leaf,
    sig_time t, X509 **issuer);
/* A code-signing end-entity certificate valid at t. */
int sig_cert_check_leaf(X509 *leaf, sig_time t);
/* At least one embedded SCT verifies under a trusted CT log. */
int sig_sct_verify(const struct sigstore_root *root, X509 *leaf,
    X509 *issuer);
/* The RFC 6962 §3.2 signed structure for a precertificate SCT: the caller
 * frees *out. tbs is the leaf's TBSCertificate without the SCT list. */
int sig_sct_signed_data(uint64_t timestamp_ms, const uint8_t *issuer_key_hash,
    const uint8_t *tbs, size_t tbs_len, const uint8_t *ext, size_t ext_len,
    uint8_t **out, size_t *outlen);
/* DER TBSCertificate of leaf with the SCT list extension removed. */
int sig_precert_tbs(X509 *leaf, uint8_t **out, size_t *outlen);
/* Identity fields. */
int sig_cert_identity(X509 *leaf, const struct sigstore_policy *p);
/* The leaf's .1.15 and .1.17 when each is present once and a plain
 * decimal number, else "" (len bytes each). */
void sig_cert_ids(X509 *leaf, char *repo_id, char *owner_id, size_t len);

/* Fulcio extension OIDs (1.3.6.1.4.1.57264.1.N). */
#define FULCIO_OID_ISSUER_V1	"1.3.6.1.4.1.57264.1.1"
#define FULCIO_OID_ISSUER_V2	"1.3.6.1.4.1.57264.1.8"
#define FULCIO_OID_SOURCE_REPO	"1.3.6.1.4.1.57264.1.12"
#define FULCIO_OID_SOURCE_REF	"1.3.6.1.4.1.57264.1.14"
#define FULCIO_OID_SOURCE_REPO_ID	"1.3.6.1.4.1.57264.1.15"
#define FULCIO_OID_SOURCE_OWNER_ID	"1.3.6.1.4.1.57264.1.17"

#endif
