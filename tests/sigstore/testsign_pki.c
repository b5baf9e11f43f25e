/* testsign's PKI: keys, CA / Fulcio-like / TSA certificates, embedded SCTs,
 * RFC 3161 responses and RFC 6962 trees, all with OpenSSL. A test tool:
 * a failing library call is fatal. */
#include "testsign.h"
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/ct.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/ts.h>
#include <openssl/x509v3.h>

#define CHECK(x) do { if (!(x)) fatal("openssl: %s failed (%s:%d)", #x, \
	__FILE__, __LINE__); } while (0)

EVP_PKEY *
ts_genkey(void)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");

	CHECK(k != NULL);
	return k;
}

static FILE *
open_in(const char *dir, const char *name, int write)
{
	char path[4096];
	FILE *f;
	int fd;

	CHECK(snprintf(path, sizeof(path), "%s/%s", dir, name) <
	    (int)sizeof(path));
	if (!write)
		return fopen(path, "r");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0)
		fatal_errno("%s", path);
	f = fdopen(fd, "w");
	if (f == NULL)
		fatal_errno("%s", path);
	return f;
}

int
ts_write_key(const char *dir, const char *name, EVP_PKEY *k)
{
	FILE *f = open_in(dir, name, 1);

	CHECK(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL) == 1);
	CHECK(fclose(f) == 0);
	return 0;
}

EVP_PKEY *
ts_read_key(const char *dir, const char *name)
{
	FILE *f = open_in(dir, name, 0);
	EVP_PKEY *k;

	if (f == NULL)
		fatal_errno("%s/%s", dir, name);
	k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	CHECK(k != NULL);
	return k;
}

int
ts_write_cert(const char *dir, const char *name, X509 *c)
{
	FILE *f = open_in(dir, name, 1);

	CHECK(PEM_write_X509(f, c) == 1);
	CHECK(fclose(f) == 0);
	return 0;
}

X509 *
ts_read_cert(const char *dir, const char *name)
{
	FILE *f = open_in(dir, name, 0);
	X509 *c;

	if (f == NULL)
		fatal_errno("%s/%s", dir, name);
	c = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	CHECK(c != NULL);
	return c;
}

static X509 *
cert_new(X509_NAME *subject, EVP_PKEY *pub, X509 *issuer, time_t nb,
    time_t na)
{
	X509 *x = X509_new();
	BIGNUM *bn = BN_new();
	ASN1_INTEGER *serial;

	CHECK(x != NULL && bn != NULL);
	CHECK(X509_set_version(x, 2) == 1);
	CHECK(BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1);
	serial = BN_to_ASN1_INTEGER(bn, NULL);
	CHECK(serial != NULL && X509_set_serialNumber(x, serial) == 1);
	ASN1_INTEGER_free(serial);
	BN_free(bn);
	CHECK(X509_set_subject_name(x, subject) == 1);
	CHECK(X509_set_issuer_name(x, issuer != NULL ?
	    X509_get_subject_name(issuer) : subject) == 1);
	CHECK(ASN1_TIME_set(X509_getm_notBefore(x), nb) != NULL);
	CHECK(ASN1_TIME_set(X509_getm_notAfter(x), na) != NULL);
	CHECK(X509_set_pubkey(x, pub) == 1);
	return x;
}

static void
add_conf_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer != NULL ? issuer : x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	CHECK(ext != NULL);
	CHECK(X509_add_ext(x, ext, -1) == 1);
	X509_EXTENSION_free(ext);
}

static X509_NAME *
name_of(const char *cn)
{
	X509_NAME *n = X509_NAME_new();

	CHECK(n != NULL);
	CHECK(X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC,
	    (const unsigned char *)"lockfile-test", -1, -1, 0) == 1);
	CHECK(X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0) == 1);
	return n;
}

X509 *
ts_make_ca(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key,
    int pathlen, int eku_nid, time_t nb, time_t na)
{
	X509_NAME *n = name_of(cn);
	X509 *x = cert_new(n, key, issuer, nb, na);
	char bc[64];

	X509_NAME_free(n);
	if (pathlen >= 0)
		snprintf(bc, sizeof(bc), "critical,CA:TRUE,pathlen:%d", pathlen);
	else
		snprintf(bc, sizeof(bc), "critical,CA:TRUE");
	add_conf_ext(x, issuer, NID_basic_constraints, bc);
	add_conf_ext(x, issuer, NID_key_usage, "critical,keyCertSign,cRLSign");
	add_conf_ext(x, issuer, NID_subject_key_identifier, "hash");
	if (issuer != NULL)
		add_conf_ext(x, issuer, NID_authority_key_identifier,
		    "keyid:always");
	if (eku_nid != 0)
		add_conf_ext(x, issuer, NID_ext_key_usage, OBJ_nid2sn(eku_nid));
	CHECK(X509_sign(x, issuer_key != NULL ? issuer_key : key,
	    EVP_sha256()) > 0);
	return x;
}

X509 *
ts_make_tsa_leaf(const char *cn, EVP_PKEY *key, X509 *issuer,
    EVP_PKEY *issuer_key, time_t nb, time_t na)
{
	X509_NAME *n = name_of(cn);
	X509 *x = cert_new(n, key, issuer, nb, na);

	X509_NAME_free(n);
	add_conf_ext(x, issuer, NID_key_usage, "critical,digitalSignature");
	add_conf_ext(x, issuer, NID_ext_key_usage, "critical,timeStamping");
	add_conf_ext(x, issuer, NID_subject_key_identifier, "hash");
	add_conf_ext(x, issuer, NID_authority_key_identifier, "keyid:always");
	CHECK(X509_sign(x, issuer_key, EVP_sha256()) > 0);
	return x;
}

/* A Fulcio extension: raw bytes for .1.1, a DER UTF8String from .1.8. */
static void
add_fulcio_ext(X509 *x, const char *oid, const char *value, int der_utf8)
{
	ASN1_OBJECT *obj = OBJ_txt2obj(oid, 1);
	ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
	ASN1_UTF8STRING *u;
	X509_EXTENSION *ext;
	unsigned char *der = NULL;
	int n;

	CHECK(obj != NULL && os != NULL);
	if (der_utf8) {
		u = ASN1_UTF8STRING_new();
		CHECK(u != NULL && ASN1_STRING_set(u, value, -1) == 1);
		n = i2d_ASN1_UTF8STRING(u, &der);
		CHECK(n > 0);
		CHECK(ASN1_OCTET_STRING_set(os, der, n) == 1);
		OPENSSL_free(der);
		ASN1_UTF8STRING_free(u);
	} else
		CHECK(ASN1_OCTET_STRING_set(os, (const unsigned char *)value,
		    (int)strlen(value)) == 1);
	ext = X509_EXTENSION_create_by_OBJ(NULL, obj, 0, os);
	CHECK(ext != NULL && X509_add_ext(x, ext, -1) == 1);
	X509_EXTENSION_free(ext);
	ASN1_OCTET_STRING_free(os);
	ASN1_OBJECT_free(obj);
}

X509 *
ts_make_leaf(const struct ts_identity *id, EVP_PKEY *key, X509 *issuer,
    EVP_PKEY *issuer_key, time_t nb, time_t na)
{
	X509_NAME *empty = X509_NAME_new();
	X509 *x = cert_new(empty, key, issuer, nb, na);
	GENERAL_NAMES *gens = GENERAL_NAMES_new();
	GENERAL_NAME *g = GENERAL_NAME_new();
	ASN1_IA5STRING *s = ASN1_IA5STRING_new();

	X509_NAME_free(empty);
	CHECK(gens != NULL && g != NULL && s != NULL);
	add_conf_ext(x, issuer, NID_key_usage, "critical,digitalSignature");
	add_conf_ext(x, issuer, NID_ext_key_usage, OBJ_nid2sn(id->eku_nid));
	add_conf_ext(x, issuer, NID_subject_key_identifier, "hash");
	add_conf_ext(x, issuer, NID_authority_key_identifier, "keyid:always");
	/* Fulcio's leaf has an empty subject and one critical SAN. */
	CHECK(ASN1_STRING_set(s, id->san, -1) == 1);
	GENERAL_NAME_set0_value(g, id->san_email ? GEN_EMAIL : GEN_URI, s);
	CHECK(sk_GENERAL_NAME_push(gens, g) > 0);
	CHECK(X509_add1_ext_i2d(x, NID_subject_alt_name, gens, 1,
	    X509V3_ADD_DEFAULT) == 1);
	GENERAL_NAMES_free(gens);
	add_fulcio_ext(x, FULCIO_OID_ISSUER_V1, id->issuer_v1 != NULL ?
	    id->issuer_v1 : id->issuer, 0);
	if (!id->no_issuer_v2)
		add_fulcio_ext(x, FULCIO_OID_ISSUER_V2, id->issuer, 1);
	if (id->repo != NULL)
		add_fulcio_ext(x, FULCIO_OID_SOURCE_REPO, id->repo, 1);
	if (id->ref != NULL)
		add_fulcio_ext(x, FULCIO_OID_SOURCE_REF, id->ref, 1);
	if (id->repo_id != NULL)
		add_fulcio_ext(x, FULCIO_OID_SOURCE_REPO_ID, id->repo_id, 1);
	if (id->owner_id != NULL)
		add_fulcio_ext(x, FULCIO_OID_SOURCE_OWNER_ID, id->owner_id, 1);
	CHECK(X509_sign(x, issuer_key, EVP_sha256()) > 0);
	return x;
}

static void
put_len(uint8_t *p, size_t *off, size_t len)
{
	if (len < 0x80) {
		p[(*off)++] = (uint8_t)len;
	} else if (len < 0x100) {
		p[(*off)++] = 0x81;
		p[(*off)++] = (uint8_t)len;
	} else {
		p[(*off)++] = 0x82;
		p[(*off)++] = (uint8_t)(len >> 8);
		p[(*off)++] = (uint8_t)len;
	}
}

X509 *
ts_ber_variant(X509 *leaf, EVP_PKEY *issuer_key, int how)
{
	unsigned char *tbs = NULL, *alg = NULL;
	const X509_ALGOR *palg;
	const unsigned char *cp;
	uint8_t *ber, *sig, *cert;
	size_t blen, siglen, inner, off = 0, i;
	int tlen, alen;
	X509 *x;

	tlen = i2d_re_X509_tbs(leaf, &tbs);
	CHECK(tlen > 4 && tbs[0] == 0x30 && tbs[1] == 0x82);
	ber = sig_malloc((size_t)tlen + 1);
	if (how == 1) {
		/* 30 82 LL LL -> 30 83 00 LL LL */
		ber[0] = 0x30;
		ber[1] = 0x83;
		ber[2] = 0x00;
		memcpy(ber + 3, tbs + 2, (size_t)tlen - 2);
		blen = (size_t)tlen + 1;
	} else {
		memcpy(ber, tbs, (size_t)tlen);
		blen = (size_t)tlen;
		for (i = 0; i + 3 < blen; i++)
			if (ber[i] == 0x01 && ber[i + 1] == 0x01 &&
			    ber[i + 2] == 0xff && ber[i + 3] == 0x04)
				break;
		CHECK(i + 3 < blen);
		ber[i + 2] = 0x01;
	}
	X509_get0_signature(NULL, &palg, leaf);
	alen = i2d_X509_ALGOR(palg, &alg);
	CHECK(alen > 0);
	ts_sign(issuer_key, ber, blen, &sig, &siglen);
	inner = blen + (size_t)alen + 1 + (siglen + 1 < 0x80 ? 1 :
	    siglen + 1 < 0x100 ? 2 : 3) + siglen + 1;
	cert = sig_malloc(inner + 8);
	cert[off++] = 0x30;
	put_len(cert, &off, inner);
	memcpy(cert + off, ber, blen);
	off += blen;
	memcpy(cert + off, alg, (size_t)alen);
	off += (size_t)alen;
	cert[off++] = 0x03;
	put_len(cert, &off, siglen + 1);
	cert[off++] = 0x00;
	memcpy(cert + off, sig, siglen);
	off += siglen;
	cp = cert;
	x = d2i_X509(NULL, &cp, (long)off);
	CHECK(x != NULL && cp == cert + off);
	OPENSSL_free(tbs);
	OPENSSL_free(alg);
	free(ber);
	free(sig);
	free(cert);
	return x;
}

int
ts_sign(EVP_PKEY *k, const uint8_t *msg, size_t len, uint8_t **sig,
    size_t *siglen)
{
	uint8_t d[32];

	sha256_mem(msg, len, d);
	return ts_sign_digest(k, d, sig, siglen);
}

int
ts_sign_digest(EVP_PKEY *k, const uint8_t digest[32], uint8_t **sig,
    size_t *siglen)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(k, NULL);

	CHECK(ctx != NULL && EVP_PKEY_sign_init(ctx) == 1);
	CHECK(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1);
	CHECK(EVP_PKEY_sign(ctx, NULL, siglen, digest, 32) == 1);
	*sig = sig_malloc(*siglen);
	CHECK(EVP_PKEY_sign(ctx, *sig, siglen, digest, 32) == 1);
	EVP_PKEY_CTX_free(ctx);
	return 0;
}

int
ts_spki(EVP_PKEY *k, uint8_t **der, size_t *len)
{
	unsigned char *p = NULL;
	int n = i2d_PUBKEY(k, &p);

	CHECK(n > 0);
	*der = sig_malloc((size_t)n);
	memcpy(*der, p, (size_t)n);
	*len = (size_t)n;
	OPENSSL_free(p);
	return 0;
}

int
ts_embed_sct(X509 *leaf, X509 *issuer, EVP_PKEY *issuer_key,
    EVP_PKEY *ct_key, const uint8_t log_id[32], uint64_t ts_ms)
{
	STACK_OF(SCT) *scts = sk_SCT_new_null();
	SCT *sct = SCT_new();
	unsigned char *tbs = NULL, *ik = NULL;
	uint8_t ikh[32], *data, *sig;
	size_t len, siglen;
	int tbs_len, ik_len;

	CHECK(scts != NULL && sct != NULL);
	/* The leaf is already signed, so its TBS carries the signature
	 * algorithm: exactly what a verifier rebuilds by removing the SCT
	 * extension appended below. */
	tbs_len = i2d_re_X509_tbs(leaf, &tbs);
	CHECK(tbs_len > 0);
	ik_len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(issuer), &ik);
	CHECK(ik_len > 0);
	sha256_mem(ik, (size_t)ik_len, ikh);
	CHECK(sig_sct_signed_data(ts_ms, ikh, tbs, (size_t)tbs_len, NULL, 0,
	    &data, &len) == SIGSTORE_OK);
	ts_sign(ct_key, data, len, &sig, &siglen);
	CHECK(SCT_set_version(sct, SCT_VERSION_V1) == 1);
	CHECK(SCT_set_log_entry_type(sct, CT_LOG_ENTRY_TYPE_PRECERT) == 1);
	CHECK(SCT_set1_log_id(sct, log_id, 32) == 1);
	SCT_set_timestamp(sct, ts_ms);
	CHECK(SCT_set_signature_nid(sct, NID_ecdsa_with_SHA256) == 1);
	CHECK(SCT_set1_signature(sct, sig, siglen) == 1);
	CHECK(sk_SCT_push(scts, sct) > 0);
	CHECK(X509_add1_ext_i2d(leaf, NID_ct_precert_scts, scts, 0,
	    X509V3_ADD_APPEND) == 1);
	CHECK(X509_sign(leaf, issuer_key, EVP_sha256()) > 0);
	SCT_LIST_free(scts);
	OPENSSL_free(tbs);
	OPENSSL_free(ik);
	free(data);
	free(sig);
	return 0;
}

char *
ts_cert_pem(X509 *c)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p, *out;
	long n;

	CHECK(bio != NULL && PEM_write_bio_X509(bio, c) == 1);
	n = BIO_get_mem_data(bio, &p);
	CHECK(n > 0);
	out = sig_strndup(p, (size_t)n);
	BIO_free(bio);
	return out;
}

char *
ts_cert_der_b64(X509 *c)
{
	unsigned char *der = NULL;
	int n = i2d_X509(c, &der);
	char *out;

	CHECK(n > 0);
	out = sig_b64_encode(der, (size_t)n);
	OPENSSL_free(der);
	return out;
}

int
ts_timestamp(EVP_PKEY *tsa_key, X509 *tsa_cert, X509 *tsa_root,
    const uint8_t *data, size_t len, uint8_t **tsr, size_t *tsrlen)
{
	TS_REQ *req = TS_REQ_new();
	TS_MSG_IMPRINT *mi = TS_MSG_IMPRINT_new();
	X509_ALGOR *alg = X509_ALGOR_new();
	TS_RESP_CTX *ctx = TS_RESP_CTX_new();
	ASN1_OBJECT *policy = OBJ_txt2obj("1.3.6.1.4.1.57264.2", 1);
	STACK_OF(X509) *certs = sk_X509_new_null();
	unsigned char *der = NULL;
	uint8_t d[32];
	TS_RESP *resp;
	BIO *bio;
	int n;

	CHECK(req && mi && alg && ctx && policy && certs);
	sha256_mem(data, len, d);
	CHECK(X509_ALGOR_set0(alg, OBJ_nid2obj(NID_sha256), V_ASN1_NULL,
	    NULL) == 1);
	CHECK(TS_MSG_IMPRINT_set_algo(mi, alg) == 1);
	CHECK(TS_MSG_IMPRINT_set_msg(mi, d, 32) == 1);
	CHECK(TS_REQ_set_version(req, 1) == 1);
	CHECK(TS_REQ_set_msg_imprint(req, mi) == 1);
	CHECK(TS_REQ_set_cert_req(req, 1) == 1);
	n = i2d_TS_REQ(req, &der);
	CHECK(n > 0);
	bio = BIO_new_mem_buf(der, n);
	CHECK(bio != NULL);
	CHECK(TS_RESP_CTX_set_signer_cert(ctx, tsa_cert) == 1);
	CHECK(TS_RESP_CTX_set_signer_key(ctx, tsa_key) == 1);
	CHECK(TS_RESP_CTX_set_signer_digest(ctx, EVP_sha256()) == 1);
	CHECK(TS_RESP_CTX_set_ess_cert_id_digest(ctx, EVP_sha256()) == 1);
	CHECK(TS_RESP_CTX_set_def_policy(ctx, policy) == 1);
	CHECK(TS_RESP_CTX_add_md(ctx, EVP_sha256()) == 1);
	CHECK(sk_X509_push(certs, tsa_root) > 0);
	CHECK(TS_RESP_CTX_set_certs(ctx, certs) == 1);
	resp = TS_RESP_create_response(ctx, bio);
	CHECK(resp != NULL);
	CHECK(ASN1_INTEGER_get(TS_STATUS_INFO_get0_status(
	    TS_RESP_get_status_info(resp))) == TS_STATUS_GRANTED);
	OPENSSL_free(der);
	der = NULL;
	n = i2d_TS_RESP(resp, &der);
	CHECK(n > 0);
	*tsr = sig_malloc((size_t)n);
	memcpy(*tsr, der, (size_t)n);
	*tsrlen = (size_t)n;
	OPENSSL_free(der);
	TS_RESP_free(resp);
	BIO_free(bio);
	sk_X509_free(certs);
	ASN1_OBJECT_free(policy);
	TS_RESP_CTX_free(ctx);
	X509_ALGOR_free(alg);
	TS_MSG_IMPRINT_free(mi);
	TS_REQ_free(req);
	return 0;
}

/* RFC 6962 section 2.1: MTH over leaf hashes, split at the largest power
 * of two below n. */
static size_t
split(size_t n)
{
	size_t k = 1;

	while (k << 1 < n)
		k <<= 1;
	return k;
}

void
ts_merkle_root(const uint8_t (*leaves)[32], size_t n, uint8_t out[32])
{
	uint8_t l[32], r[32];
	size_t k;

	if (n == 1) {
		memcpy(out, leaves[0], 32);
		return;
	}
	k = split(n);
	ts_merkle_root(leaves, k, l);
	ts_merkle_root(leaves + k, n - k, r);
	sig_merkle_node(l, r, out);
}

size_t
ts_merkle_path(const uint8_t (*leaves)[32], size_t n, size_t m,
    uint8_t (*path)[32])
{
	size_t k, len;

	if (n <= 1)
		return 0;
	k = split(n);
	if (m < k) {
		len = ts_merkle_path(leaves, k, m, path);
		ts_merkle_root(leaves + k, n - k, path[len]);
	} else {
		len = ts_merkle_path(leaves + k, n - k, m - k, path);
		ts_merkle_root(leaves, k, path[len]);
	}
	return len + 1;
}
