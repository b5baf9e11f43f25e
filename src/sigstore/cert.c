/* The signing certificate: RFC 5280 path validation at the signing time
 * against the trusted root's Fulcio CAs only (never an intermediate or a
 * root from the bundle), its use (code signing, end entity), its embedded
 * SCTs (RFC 6962) and its identity (SAN and Fulcio extensions). */
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/str.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/ct.h>
#include <openssl/x509v3.h>

static int
validate_with(const struct sig_authority *a, X509 *leaf, sig_time t,
    X509 **issuer)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	X509_STORE *store = X509_STORE_new();
	X509_VERIFY_PARAM *param;
	STACK_OF(X509) *chain;
	int ok = 0;

	if (ctx == NULL || store == NULL ||
	    X509_STORE_add_cert(store, a->anchor) != 1 ||
	    X509_STORE_CTX_init(ctx, store, leaf, a->untrusted) != 1)
		goto out;
	param = X509_STORE_CTX_get0_param(ctx);
	X509_VERIFY_PARAM_set_time(param, (time_t)(t / SIG_NS));
	X509_VERIFY_PARAM_set_depth(param, SIG_MAX_CHAIN);
	/* 112-bit security: no SHA-1 signatures, no short keys. */
	X509_VERIFY_PARAM_set_auth_level(param, 2);
	/* The root names its anchor: it need not be self-signed. */
	X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN |
	    X509_V_FLAG_X509_STRICT);
	if (X509_verify_cert(ctx) != 1)
		goto out;
	chain = X509_STORE_CTX_get0_chain(ctx);
	if (chain == NULL || sk_X509_num(chain) < 2)
		goto out;
	*issuer = sk_X509_value(chain, 1);
	ok = X509_up_ref(*issuer) == 1;
out:
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	return ok;
}

int
sig_cert_validate(const struct sigstore_root *root, X509 *leaf, sig_time t,
    X509 **issuer)
{
	size_t i;
	int ret = SIGSTORE_E_CERT_CHAIN;

	*issuer = NULL;
	for (i = 0; i < root->ncas; i++) {
		X509 *iss = NULL;
		if (!validate_with(&root->cas[i], leaf, t, &iss))
			continue;
		if (!sig_window_has(&root->cas[i].valid, t)) {
			X509_free(iss);
			ret = SIGSTORE_E_CA_VALIDITY;
			continue;
		}
		*issuer = iss;
		return SIGSTORE_OK;
	}
	return ret;
}

int
sig_cert_check_leaf(X509 *leaf, sig_time t)
{
	uint32_t flags = X509_get_extension_flags(leaf);
	sig_time nb, na;

	if (flags & EXFLAG_INVALID)
		return SIGSTORE_E_DER;
	if (X509_check_ca(leaf) != 0 || !(flags & EXFLAG_XKUSAGE) ||
	    !(X509_get_extended_key_usage(leaf) & XKU_CODE_SIGN) ||
	    ((flags & EXFLAG_KUSAGE) &&
	    !(X509_get_key_usage(leaf) & KU_DIGITAL_SIGNATURE)))
		return SIGSTORE_E_CERT_USAGE;
	if (sig_asn1_time(X509_get0_notBefore(leaf), &nb) != SIGSTORE_OK ||
	    sig_asn1_time(X509_get0_notAfter(leaf), &na) != SIGSTORE_OK)
		return SIGSTORE_E_DER;
	if (t < nb || t > na)
		return SIGSTORE_E_CERT_VALIDITY;
	return SIGSTORE_OK;
}

int
sig_precert_tbs(X509 *leaf, uint8_t **out, size_t *outlen)
{
	X509 *dup = X509_dup(leaf);
	unsigned char *der = NULL;
	int idx, n, ret = SIGSTORE_E_SCT;

	*out = NULL;
	if (dup == NULL)
		return SIGSTORE_E_INTERNAL;
	idx = X509_get_ext_by_NID(dup, NID_ct_precert_scts, -1);
	if (idx < 0 || X509_get_ext_by_NID(dup, NID_ct_precert_scts, idx) >= 0)
		goto out;
	X509_EXTENSION_free(X509_delete_ext(dup, idx));
	n = i2d_re_X509_tbs(dup, &der);
	if (n <= 0)
		goto out;
	*out = sig_malloc((size_t)n);
	memcpy(*out, der, (size_t)n);
	*outlen = (size_t)n;
	ret = SIGSTORE_OK;
out:
	OPENSSL_free(der);
	X509_free(dup);
	return ret;
}

static void
put_be(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)(v & 0xff);
}

/* RFC 6962 3.2, digitally-signed struct for a precert_entry. OpenSSL's
 * SCT_validate() builds the same bytes, but OpenSSL 3.0 can load CT logs
 * only from a file, so the logs of the trusted root are checked here. */
int
sig_sct_signed_data(uint64_t timestamp_ms, const uint8_t *issuer_key_hash,
    const uint8_t *tbs, size_t tbs_len, const uint8_t *ext, size_t ext_len,
    uint8_t **out, size_t *outlen)
{
	uint8_t *p;

	if (tbs_len >= (1u << 24) || ext_len >= (1u << 16))
		return SIGSTORE_E_SCT;
	*outlen = 1 + 1 + 8 + 2 + 32 + 3 + tbs_len + 2 + ext_len;
	p = *out = sig_malloc(*outlen);
	*p++ = 0;			/* sct_version v1 */
	*p++ = 0;			/* signature_type certificate_timestamp */
	put_be(p, timestamp_ms, 8);
	p += 8;
	put_be(p, 1, 2);		/* entry_type precert_entry */
	p += 2;
	memcpy(p, issuer_key_hash, 32);
	p += 32;
	put_be(p, tbs_len, 3);
	p += 3;
	memcpy(p, tbs, tbs_len);
	p += tbs_len;
	put_be(p, ext_len, 2);
	p += 2;
	if (ext_len > 0)
		memcpy(p, ext, ext_len);
	return SIGSTORE_OK;
}

static int
issuer_key_hash(X509 *issuer, uint8_t out[32])
{
	unsigned char *der = NULL;
	int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(issuer), &der);

	if (n <= 0)
		return SIGSTORE_E_INTERNAL;
	sha256_mem(der, (size_t)n, out);
	OPENSSL_free(der);
	return SIGSTORE_OK;
}

static int
sct_one(const struct sigstore_root *root, SCT *sct, const uint8_t ikh[32],
    const uint8_t *tbs, size_t tbs_len)
{
	const struct sig_log *log;
	unsigned char *id, *ext, *sig;
	size_t idlen, extlen, siglen, len;
	uint8_t *data;
	EVP_MD_CTX *md;
	int nid, ok;

	if (SCT_get_version(sct) != SCT_VERSION_V1 ||
	    SCT_get_log_entry_type(sct) != CT_LOG_ENTRY_TYPE_PRECERT)
		return 0;
	idlen = SCT_get0_log_id(sct, &id);
	log = sig_root_find_log(root->ctlogs, root->nctlogs, id, idlen);
	if (log == NULL || log->key.type == SK_NONE)
		return 0;
	if (SCT_get_timestamp(sct) > (uint64_t)(SIG_TIME_MAX / 1000000) ||
	    !sig_window_has(&log->valid,
	    (sig_time)SCT_get_timestamp(sct) * 1000000))
		return 0;
	nid = SCT_get_signature_nid(sct);
	if (!(nid == NID_ecdsa_with_SHA256 && (log->key.type ==
	    SK_ECDSA_P256 || log->key.type == SK_ECDSA_P384)) &&
	    !(nid == NID_sha256WithRSAEncryption && log->key.type == SK_RSA))
		return 0;
	extlen = SCT_get0_extensions(sct, &ext);
	siglen = SCT_get0_signature(sct, &sig);
	if (siglen == 0 || sig_sct_signed_data(SCT_get_timestamp(sct), ikh,
	    tbs, tbs_len, ext, extlen, &data, &len) != SIGSTORE_OK)
		return 0;
	md = EVP_MD_CTX_new();
	ok = md != NULL && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL,
	    log->key.pkey) == 1 &&
	    EVP_DigestVerify(md, sig, siglen, data, len) == 1;
	EVP_MD_CTX_free(md);
	free(data);
	return ok;
}

int
sig_sct_verify(const struct sigstore_root *root, X509 *leaf, X509 *issuer)
{
	STACK_OF(SCT) *scts;
	uint8_t ikh[32], *tbs = NULL;
	size_t tbs_len;
	int crit = 0, i, good = 0, ret;

	scts = X509_get_ext_d2i(leaf, NID_ct_precert_scts, &crit, NULL);
	if (scts == NULL)
		return crit == -1 ? SIGSTORE_E_SCT_MISSING : SIGSTORE_E_SCT;
	ret = SIGSTORE_E_SCT_MISSING;
	if (sk_SCT_num(scts) <= 0)
		goto out;
	ret = SIGSTORE_E_LIMIT;
	if (sk_SCT_num(scts) > SIG_MAX_SCTS)
		goto out;
	if ((ret = issuer_key_hash(issuer, ikh)) != SIGSTORE_OK ||
	    (ret = sig_precert_tbs(leaf, &tbs, &tbs_len)) != SIGSTORE_OK)
		goto out;
	for (i = 0; i < sk_SCT_num(scts); i++)
		good += sct_one(root, sk_SCT_value(scts, i), ikh, tbs, tbs_len);
	ret = good > 0 ? SIGSTORE_OK : SIGSTORE_E_SCT;
out:
	free(tbs);
	SCT_LIST_free(scts);
	return ret;
}

/* The value of a Fulcio extension, at most once in the certificate. With
 * der_utf8 the value is a DER UTF8String (OIDs .8 onwards), else raw
 * bytes (.1). 1 found, 0 absent, -1 malformed. */
static int
fulcio_ext(X509 *leaf, const char *oid, int der_utf8, char *out,
    size_t outlen)
{
	ASN1_OBJECT *obj = OBJ_txt2obj(oid, 1);
	const ASN1_OCTET_STRING *os;
	ASN1_UTF8STRING *u = NULL;
	const unsigned char *p, *v;
	int idx, n, ret = -1;

	if (obj == NULL)
		return -1;
	idx = X509_get_ext_by_OBJ(leaf, obj, -1);
	if (idx < 0) {
		ret = 0;
		goto out;
	}
	if (X509_get_ext_by_OBJ(leaf, obj, idx) >= 0)
		goto out;
	os = X509_EXTENSION_get_data(X509_get_ext(leaf, idx));
	p = v = ASN1_STRING_get0_data(os);
	n = ASN1_STRING_length(os);
	if (der_utf8) {
		u = d2i_ASN1_UTF8STRING(NULL, &p, n);
		if (u == NULL || p != v + n)
			goto out;
		v = ASN1_STRING_get0_data(u);
		n = ASN1_STRING_length(u);
	}
	if (n <= 0 || (size_t)n >= outlen || memchr(v, '\0', (size_t)n))
		goto out;
	memcpy(out, v, (size_t)n);
	out[n] = '\0';
	ret = 1;
out:
	ASN1_UTF8STRING_free(u);
	ASN1_OBJECT_free(obj);
	return ret;
}

static int
san_equals(X509 *leaf, const char *want)
{
	GENERAL_NAMES *gens;
	GENERAL_NAME *g;
	ASN1_IA5STRING *s = NULL;
	int crit = 0, eq = 0, type;

	gens = X509_get_ext_d2i(leaf, NID_subject_alt_name, &crit, NULL);
	/* Fulcio issues exactly one SAN: more would make "the" identity
	 * ambiguous. */
	if (gens == NULL || sk_GENERAL_NAME_num(gens) != 1)
		goto out;
	g = sk_GENERAL_NAME_value(gens, 0);
	s = GENERAL_NAME_get0_value(g, &type);
	/* A URI identity is matched only by a URI SAN, an e-mail identity
	 * only by an e-mail SAN: the same text under another type is not
	 * the same identity. */
	if (s == NULL || type != (strstr(want, "://") != NULL ? GEN_URI :
	    GEN_EMAIL))
		goto out;
	eq = (size_t)ASN1_STRING_length(s) == strlen(want) &&
	    memcmp(ASN1_STRING_get0_data(s), want, strlen(want)) == 0;
out:
	GENERAL_NAMES_free(gens);
	return eq;
}

int
sig_cert_identity(X509 *leaf, const struct sigstore_policy *p)
{
	char v1[SIGSTORE_MAX_IDENTITY], v2[SIGSTORE_MAX_IDENTITY];
	char v[SIGSTORE_MAX_IDENTITY];
	int r1, r2, r;

	if (!san_equals(leaf, p->san))
		return SIGSTORE_E_IDENTITY_SAN;
	r2 = fulcio_ext(leaf, FULCIO_OID_ISSUER_V2, 1, v2, sizeof(v2));
	r1 = fulcio_ext(leaf, FULCIO_OID_ISSUER_V1, 0, v1, sizeof(v1));
	if (r1 < 0 || r2 < 0 || (r1 == 0 && r2 == 0))
		return SIGSTORE_E_IDENTITY_ISSUER;
	/* Both spellings, when present, must say the same. */
	if (r1 == 1 && r2 == 1 && strcmp(v1, v2) != 0)
		return SIGSTORE_E_IDENTITY_ISSUER;
	if (strcmp(r2 == 1 ? v2 : v1, p->issuer) != 0)
		return SIGSTORE_E_IDENTITY_ISSUER;
	if (p->source_repo != NULL) {
		r = fulcio_ext(leaf, FULCIO_OID_SOURCE_REPO, 1, v, sizeof(v));
		if (r != 1 || strcmp(v, p->source_repo) != 0)
			return SIGSTORE_E_IDENTITY_REPO;
	}
	if (p->source_ref != NULL) {
		r = fulcio_ext(leaf, FULCIO_OID_SOURCE_REF, 1, v, sizeof(v));
		if (r != 1 || strcmp(v, p->source_ref) != 0)
			return SIGSTORE_E_IDENTITY_REF;
	}
	if (p->source_repo_id != NULL) {
		r = fulcio_ext(leaf, FULCIO_OID_SOURCE_REPO_ID, 1, v, sizeof(v));
		if (r != 1 || strcmp(v, p->source_repo_id) != 0)
			return SIGSTORE_E_IDENTITY_REPO_ID;
	}
	if (p->source_owner_id != NULL) {
		r = fulcio_ext(leaf, FULCIO_OID_SOURCE_OWNER_ID, 1, v, sizeof(v));
		if (r != 1 || strcmp(v, p->source_owner_id) != 0)
			return SIGSTORE_E_IDENTITY_OWNER_ID;
	}
	return SIGSTORE_OK;
}

static void
plain_id(X509 *leaf, const char *oid, char *out, size_t len)
{
	char v[SIGSTORE_MAX_IDENTITY];

	out[0] = '\0';
	if (fulcio_ext(leaf, oid, 1, v, sizeof(v)) == 1 && strlen(v) < len &&
	    strspn(v, "0123456789") == strlen(v) &&
	    str_fmt(out, len, "%s", v) != STR_OK)
		out[0] = '\0';
}

void
sig_cert_ids(X509 *leaf, char *repo_id, char *owner_id, size_t len)
{
	plain_id(leaf, FULCIO_OID_SOURCE_REPO_ID, repo_id, len);
	plain_id(leaf, FULCIO_OID_SOURCE_OWNER_ID, owner_id, len);
}
