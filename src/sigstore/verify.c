/* sigstore_verify(): the order of checks, the policy, the error table.
 *
 * Order (docs/sigstore.md, "What is verified, in order", which follows
 * Sigstore's client specification):
 *  0. policy against material; the artifact against the content (a
 *     messageDigest or in-toto subject that is not the artifact fails);
 *  1. trusted times: every RFC 3161 timestamp over the signature bytes,
 *     chained to a TSA; every Rekor v1 entry's SET (integrated time);
 *  2. every log entry: inclusion proof up to a checkpoint signed by its
 *     log, body matched with the bundle (tlog.c, body.c);
 *  3. at every trusted time: the leaf is a code-signing certificate valid
 *     then, and chains to a Fulcio CA of the root whose validFor holds it;
 *  4. an embedded SCT verifies under a CT log of the root;
 *  5. the signature over the artifact digest or the DSSE PAE;
 *  6. identity: SAN, issuer, source repository and ref, exactly.
 * Every step must pass; nothing is skipped for lack of data. */
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/jsonx.h"
#include "lib/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *text;
} errors[SIGSTORE_E__COUNT] = {
	[SIGSTORE_OK] = { "OK", "verified" },
	[SIGSTORE_E_INTERNAL] = { "E_INTERNAL", "internal error" },
	[SIGSTORE_E_IO] = { "E_IO", "file could not be read safely" },
	[SIGSTORE_E_TOO_BIG] = { "E_TOO_BIG", "input over its size limit" },
	[SIGSTORE_E_JSON] = { "E_JSON", "not strict JSON" },
	[SIGSTORE_E_SHAPE] = { "E_SHAPE",
	    "bundle field missing, unknown or mistyped" },
	[SIGSTORE_E_MEDIA_TYPE] = { "E_MEDIA_TYPE",
	    "unsupported bundle media type" },
	[SIGSTORE_E_BASE64] = { "E_BASE64", "invalid base64" },
	[SIGSTORE_E_DER] = { "E_DER", "certificate or key is not strict DER" },
	[SIGSTORE_E_LIMIT] = { "E_LIMIT", "too many elements" },
	[SIGSTORE_E_MATERIAL] = { "E_MATERIAL",
	    "verification material missing or not allowed for this version" },
	[SIGSTORE_E_ROOT_IN_BUNDLE] = { "E_ROOT_IN_BUNDLE",
	    "bundle carries a root certificate" },
	[SIGSTORE_E_ROOT_SHAPE] = { "E_ROOT_SHAPE", "trusted root malformed" },
	[SIGSTORE_E_ROOT_MEDIA_TYPE] = { "E_ROOT_MEDIA_TYPE",
	    "unsupported trusted root media type" },
	[SIGSTORE_E_ROOT_VALIDITY] = { "E_ROOT_VALIDITY",
	    "trusted root validity window malformed or without start" },
	[SIGSTORE_E_ROOT_KEY] = { "E_ROOT_KEY",
	    "trusted root key or certificate unusable" },
	[SIGSTORE_E_NO_TLOG] = { "E_NO_TLOG", "no transparency log entry" },
	[SIGSTORE_E_UNKNOWN_LOG] = { "E_UNKNOWN_LOG",
	    "log entry from a log not in the trusted root" },
	[SIGSTORE_E_SET_MISSING] = { "E_SET_MISSING",
	    "log entry without inclusion promise" },
	[SIGSTORE_E_SET] = { "E_SET", "signed entry timestamp invalid" },
	[SIGSTORE_E_LOG_VALIDITY] = { "E_LOG_VALIDITY",
	    "log key not valid at the signing time" },
	[SIGSTORE_E_PROOF_MISSING] = { "E_PROOF_MISSING",
	    "log entry without inclusion proof and checkpoint" },
	[SIGSTORE_E_PROOF] = { "E_PROOF", "inclusion proof invalid" },
	[SIGSTORE_E_CHECKPOINT] = { "E_CHECKPOINT", "checkpoint malformed" },
	[SIGSTORE_E_CHECKPOINT_SIG] = { "E_CHECKPOINT_SIG",
	    "checkpoint not signed by the log" },
	[SIGSTORE_E_CHECKPOINT_MISMATCH] = { "E_CHECKPOINT_MISMATCH",
	    "checkpoint does not match the inclusion proof" },
	[SIGSTORE_E_ENTRY_KIND] = { "E_ENTRY_KIND",
	    "log entry kind or version unsupported" },
	[SIGSTORE_E_ENTRY_BODY] = { "E_ENTRY_BODY",
	    "log entry body malformed" },
	[SIGSTORE_E_ENTRY_MISMATCH] = { "E_ENTRY_MISMATCH",
	    "log entry does not match the bundle" },
	[SIGSTORE_E_TSA] = { "E_TSA", "RFC 3161 timestamp invalid" },
	[SIGSTORE_E_TSA_VALIDITY] = { "E_TSA_VALIDITY",
	    "timestamp outside the authority's validity" },
	[SIGSTORE_E_NO_TIME] = { "E_NO_TIME",
	    "no verified time for the signature" },
	[SIGSTORE_E_CERT_CHAIN] = { "E_CERT_CHAIN",
	    "certificate does not chain to a trusted CA" },
	[SIGSTORE_E_CERT_VALIDITY] = { "E_CERT_VALIDITY",
	    "signing time outside the certificate's validity" },
	[SIGSTORE_E_CA_VALIDITY] = { "E_CA_VALIDITY",
	    "signing time outside the CA's validity" },
	[SIGSTORE_E_CERT_USAGE] = { "E_CERT_USAGE",
	    "certificate is not a code-signing end entity" },
	[SIGSTORE_E_SCT_MISSING] = { "E_SCT_MISSING",
	    "certificate without embedded SCT" },
	[SIGSTORE_E_SCT] = { "E_SCT", "no SCT verifies under a trusted CT log" },
	[SIGSTORE_E_SIGNATURE] = { "E_SIGNATURE", "signature invalid" },
	[SIGSTORE_E_DIGEST_MISMATCH] = { "E_DIGEST_MISMATCH",
	    "bundle digest is not the artifact's" },
	[SIGSTORE_E_DSSE] = { "E_DSSE", "DSSE envelope unusable" },
	[SIGSTORE_E_SUBJECT] = { "E_SUBJECT",
	    "artifact is not a subject of the statement" },
	[SIGSTORE_E_UNSUPPORTED_KEY] = { "E_UNSUPPORTED_KEY",
	    "key or algorithm not supported" },
	[SIGSTORE_E_IDENTITY_SAN] = { "E_IDENTITY_SAN",
	    "certificate identity is not the expected one" },
	[SIGSTORE_E_IDENTITY_ISSUER] = { "E_IDENTITY_ISSUER",
	    "OIDC issuer is not the expected one" },
	[SIGSTORE_E_IDENTITY_REPO] = { "E_IDENTITY_REPO",
	    "source repository is not the expected one" },
	[SIGSTORE_E_IDENTITY_REF] = { "E_IDENTITY_REF",
	    "source ref is not the expected one" },
	[SIGSTORE_E_POLICY] = { "E_POLICY", "verification policy unusable" },
	[SIGSTORE_E_KEY_MISMATCH] = { "E_KEY_MISMATCH",
	    "bundle material does not fit the policy (key vs certificate)" },
	[SIGSTORE_E_IDENTITY_REPO_ID] = { "E_IDENTITY_REPO_ID",
	    "source repository id is not the expected one" },
	[SIGSTORE_E_IDENTITY_OWNER_ID] = { "E_IDENTITY_OWNER_ID",
	    "source repository owner id is not the expected one" },
};

const char *
sigstore_strerror(int err)
{
	if (err < 0 || err >= SIGSTORE_E__COUNT || errors[err].text == NULL)
		return "unknown error";
	return errors[err].text;
}

const char *
sigstore_errname(int err)
{
	if (err < 0 || err >= SIGSTORE_E__COUNT || errors[err].name == NULL)
		return "E_UNKNOWN";
	return errors[err].name;
}

static int
plain_name(const char *s, int slash_ok, size_t max)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > max || s[0] == '/' || s[n - 1] == '/' ||
	    strstr(s, "..") != NULL || strstr(s, "//") != NULL ||
	    s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '-' || c == '+' || (slash_ok && c == '/')))
			return 0;
	}
	return 1;
}

int
sigstore_policy_github_release(struct sigstore_policy *p,
    struct sigstore_policy_buf *buf, const char *owner_repo, const char *tag)
{
	const char *slash;

	memset(p, 0, sizeof(*p));
	if (owner_repo == NULL || tag == NULL ||
	    !plain_name(owner_repo, 1, 200) || !plain_name(tag, 1, 200))
		return SIGSTORE_E_POLICY;
	slash = strchr(owner_repo, '/');
	if (slash == NULL || strchr(slash + 1, '/') != NULL)
		return SIGSTORE_E_POLICY;
	if (str_fmt(buf->san, sizeof(buf->san), "https://github.com/%s/"
	    ".github/workflows/release.yml@refs/tags/%s", owner_repo, tag) !=
	    STR_OK || str_fmt(buf->repo, sizeof(buf->repo),
	    "https://github.com/%s", owner_repo) != STR_OK ||
	    str_fmt(buf->ref, sizeof(buf->ref), "refs/tags/%s", tag) != STR_OK)
		return SIGSTORE_E_POLICY;
	p->san = buf->san;
	p->issuer = SIGSTORE_GITHUB_ISSUER;
	p->source_repo = buf->repo;
	p->source_ref = buf->ref;
	p->require_proof = 1;
	return SIGSTORE_OK;
}

/* The in-toto statement must name the artifact as a subject (by SHA-256).
 * Only the digest is needed, so a digest given instead of the file works. */
static int
check_statement(const struct sigstore_bundle *b, const uint8_t digest[32])
{
	const json_t *type, *subjects, *s, *d, *h;
	char hex[SHA256_HEX_LEN + 1];
	json_t *doc;
	size_t i;
	int ret = SIGSTORE_E_DSSE;

	if (strcmp(b->payload_type, "application/vnd.in-toto+json") != 0)
		return SIGSTORE_E_DSSE;
	doc = jsonx_parse((const char *)b->payload, b->payload_len,
	    SIG_MAX_PAYLOAD, 64);
	if (!json_is_object(doc))
		goto out;
	type = jf_get(doc, "_type");
	if (!json_is_string(type) || (strcmp(json_string_value(type),
	    "https://in-toto.io/Statement/v1") != 0 &&
	    strcmp(json_string_value(type),
	    "https://in-toto.io/Statement/v0.1") != 0))
		goto out;
	subjects = jf_get(doc, "subject");
	if (!json_is_array(subjects) || json_array_size(subjects) == 0 ||
	    json_array_size(subjects) > 1024)
		goto out;
	hex_encode(digest, 32, hex);
	ret = SIGSTORE_E_SUBJECT;
	json_array_foreach(subjects, i, s) {
		d = json_is_object(s) ? jf_get(s, "digest") : NULL;
		h = json_is_object(d) ? jf_get(d, "sha256") : NULL;
		if (json_is_string(h) && strcmp(json_string_value(h), hex) == 0) {
			ret = SIGSTORE_OK;
			break;
		}
	}
out:
	json_decref(doc);
	return ret;
}

static int
check_policy(const struct sigstore_bundle *b,
    const struct sigstore_policy *p, struct sig_key *key)
{
	if (p->key_spki != NULL) {
		if (p->san != NULL || p->issuer != NULL ||
		    p->source_repo != NULL || p->source_ref != NULL ||
		    p->source_repo_id != NULL || p->source_owner_id != NULL)
			return SIGSTORE_E_POLICY;
		if (sig_key_from_spki(p->key_spki, p->key_spki_len, key) != 0)
			return SIGSTORE_E_POLICY;
		return b->material == MAT_KEY ? SIGSTORE_OK :
		    SIGSTORE_E_KEY_MISMATCH;
	}
	if (p->san == NULL || p->issuer == NULL || *p->san == '\0' ||
	    *p->issuer == '\0' || strlen(p->san) >= SIGSTORE_MAX_IDENTITY ||
	    strlen(p->issuer) >= SIGSTORE_MAX_IDENTITY)
		return SIGSTORE_E_POLICY;
	return b->material == MAT_KEY ? SIGSTORE_E_KEY_MISMATCH : SIGSTORE_OK;
}

static int
check_signature(const struct sigstore_bundle *b, const struct sig_key *key,
    const uint8_t digest[32])
{
	uint8_t *pae;
	size_t len;
	int ret;

	if (b->content == CONTENT_MSG)
		return sig_verify_sha256(key, digest, b->sig, b->sig_len);
	sig_dsse_pae(b->payload_type, b->payload, b->payload_len, &pae, &len);
	ret = sig_verify_msg(key, pae, len, b->sig, b->sig_len);
	free(pae);
	return ret;
}

/* One entry twice would count one logging as two. */
static int
duplicate_entries(const struct sigstore_bundle *b)
{
	const struct sig_tlog_entry *x, *y;
	size_t i, j;

	for (i = 0; i < b->nentries; i++)
		for (j = i + 1; j < b->nentries; j++) {
			x = &b->entries[i];
			y = &b->entries[j];
			if (x->log_index == y->log_index &&
			    x->log_id_len == y->log_id_len &&
			    memcmp(x->log_id, y->log_id, x->log_id_len) == 0)
				return 1;
		}
	return 0;
}

/* The certificate at every trusted time, then its SCTs. */
static int
check_certificate(const struct sigstore_root *root, X509 *leaf,
    const sig_time *times, size_t ntimes)
{
	X509 *issuer = NULL, *iss;
	size_t i;
	int ret = SIGSTORE_OK;

	for (i = 0; i < ntimes && ret == SIGSTORE_OK; i++) {
		if ((ret = sig_cert_check_leaf(leaf, times[i])) != SIGSTORE_OK)
			break;
		if ((ret = sig_cert_validate(root, leaf, times[i],
		    &iss)) != SIGSTORE_OK)
			break;
		if (issuer == NULL)
			issuer = iss;
		else
			X509_free(iss);
	}
	if (ret == SIGSTORE_OK)
		ret = sig_sct_verify(root, leaf, issuer);
	X509_free(issuer);
	return ret;
}

int
sigstore_verify(const struct sigstore_root *root,
    const struct sigstore_bundle *b, const uint8_t artifact_sha256[32],
    const struct sigstore_policy *policy, struct sigstore_result *result)
{
	sig_time times[SIG_MAX_TIMESTAMPS + SIG_MAX_TLOG_ENTRIES], t;
	sig_time tsa_times[SIG_MAX_TIMESTAMPS];
	const struct sig_log *logs[SIG_MAX_TLOG_ENTRIES];
	int own_time[SIG_MAX_TLOG_ENTRIES];
	size_t ntimes = 0, ntsa = 0, i, j;
	struct sig_key key;
	int ret;

	memset(&key, 0, sizeof(key));
	if (result != NULL)
		memset(result, 0, sizeof(*result));
	if ((ret = check_policy(b, policy, &key)) != SIGSTORE_OK)
		goto out;
	if (b->content == CONTENT_MSG) {
		ret = SIGSTORE_E_DIGEST_MISMATCH;
		if (b->has_digest && !ct_equal(b->digest, artifact_sha256, 32))
			goto out;
	} else if ((ret = check_statement(b, artifact_sha256)) != 0)
		goto out;
	ret = SIGSTORE_E_NO_TLOG;
	if (b->nentries == 0)
		goto out;
	ret = SIGSTORE_E_SHAPE;
	if (duplicate_entries(b))
		goto out;
	for (i = 0; i < b->ntsr; i++) {
		if ((ret = sig_tsa_verify(root, b->tsr[i], b->tsr_len[i], b->sig,
		    b->sig_len, &t)) != SIGSTORE_OK)
			goto out;
		times[ntimes++] = tsa_times[ntsa++] = t;
	}
	for (i = 0; i < b->nentries; i++) {
		ret = SIGSTORE_E_PROOF_MISSING;
		if (policy->require_proof && !b->entries[i].has_proof)
			goto out;
		ret = sig_tlog_verify(root, b, &b->entries[i], artifact_sha256,
		    key.pkey != NULL ? &key : NULL, &own_time[i], &t, &logs[i]);
		if (ret != SIGSTORE_OK)
			goto out;
		if (own_time[i])
			times[ntimes++] = t;
	}
	ret = SIGSTORE_E_NO_TIME;
	if (ntimes == 0)
		goto out;
	/* An entry that gave no time of its own (Rekor v2, or v1 without a
	 * SET) was logged under a key that must be valid at the signing
	 * time(s) the TSAs attest, and there must be such a time. */
	for (i = 0; i < b->nentries; i++) {
		if (own_time[i])
			continue;
		if (ntsa == 0)
			goto out;
		ret = SIGSTORE_E_LOG_VALIDITY;
		for (j = 0; j < ntsa; j++)
			if (!sig_window_has(&logs[i]->valid, tsa_times[j]))
				goto out;
	}
	if (key.pkey == NULL) {
		if ((ret = check_certificate(root, b->leaf, times,
		    ntimes)) != SIGSTORE_OK)
			goto out;
		ret = SIGSTORE_E_UNSUPPORTED_KEY;
		if (X509_get0_pubkey(b->leaf) == NULL ||
		    (ret = sig_key_from_pkey(X509_get0_pubkey(b->leaf),
		    &key)) != SIGSTORE_OK)
			goto out;
	}
	if ((ret = check_signature(b, &key, artifact_sha256)) != SIGSTORE_OK)
		goto out;
	if (policy->key_spki == NULL &&
	    (ret = sig_cert_identity(b->leaf, policy)) != SIGSTORE_OK)
		goto out;
	if (result != NULL) {
		result->signed_at = times[0] / SIG_NS;
		for (i = 1; i < ntimes; i++)
			if (times[i] / SIG_NS < result->signed_at)
				result->signed_at = times[i] / SIG_NS;
		result->ntimes = (int)ntimes;
		result->ntlog = (int)b->nentries;
		if (key.pkey != NULL && b->leaf != NULL)
			sig_cert_ids(b->leaf, result->repo_id, result->owner_id,
			    SIGSTORE_MAX_ID);
	}
	ret = SIGSTORE_OK;
out:
	sig_key_free(&key);
	return ret;
}

int
sigstore_verify_file(const struct sigstore_root *root,
    const char *bundle_path, int artifact_fd,
    const struct sigstore_policy *policy, struct sigstore_result *result)
{
	struct sigstore_bundle *b = NULL;
	uint8_t digest[SHA256_LEN], *data = NULL;
	size_t len;
	int ret;

	if (result != NULL)
		memset(result, 0, sizeof(*result));
	if (sha256_fd_pread(artifact_fd, digest) != 0)
		return SIGSTORE_E_IO;
	ret = sig_read_file(bundle_path, SIGSTORE_MAX_BUNDLE, 0, &data, &len);
	if (ret == SIGSTORE_OK)
		ret = sigstore_bundle_parse(data, len, &b);
	if (ret == SIGSTORE_OK)
		ret = sigstore_verify(root, b, digest, policy, result);
	sigstore_bundle_free(b);
	free(data);
	return ret;
}
