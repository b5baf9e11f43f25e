/* Keys, certificates and signatures through OpenSSL's EVP and X509 APIs.
 * Every DER input must be consumed whole and re-encode to the same bytes:
 * one spelling per object, so two parsers cannot disagree on it. */
#include "sigstore/internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

static int
spki_of(EVP_PKEY *pk, uint8_t **out, size_t *outlen)
{
	unsigned char *der = NULL;
	int n = i2d_PUBKEY(pk, &der);

	if (n <= 0)
		return SIGSTORE_E_DER;
	*out = sig_malloc((size_t)n);
	memcpy(*out, der, (size_t)n);
	*outlen = (size_t)n;
	OPENSSL_free(der);
	return SIGSTORE_OK;
}

static enum sig_keytype
type_of(EVP_PKEY *pk)
{
	char group[64];
	size_t glen = 0;

	switch (EVP_PKEY_get_base_id(pk)) {
	case EVP_PKEY_EC:
		if (EVP_PKEY_get_group_name(pk, group, sizeof(group),
		    &glen) != 1)
			return SK_NONE;
		if (strcmp(group, "prime256v1") == 0)
			return SK_ECDSA_P256;
		if (strcmp(group, "secp384r1") == 0)
			return SK_ECDSA_P384;
		if (strcmp(group, "secp521r1") == 0)
			return SK_ECDSA_P521;
		return SK_NONE;
	case EVP_PKEY_ED25519:
		return SK_ED25519;
	case EVP_PKEY_RSA:
		return EVP_PKEY_get_bits(pk) >= 2048 ? SK_RSA : SK_NONE;
	default:
		return SK_NONE;
	}
}

int
sig_key_from_pkey(EVP_PKEY *pkey, struct sig_key *out)
{
	memset(out, 0, sizeof(*out));
	out->type = type_of(pkey);
	if (out->type == SK_NONE)
		return SIGSTORE_E_UNSUPPORTED_KEY;
	if (spki_of(pkey, &out->spki, &out->spki_len) != SIGSTORE_OK)
		return SIGSTORE_E_DER;
	if (EVP_PKEY_up_ref(pkey) != 1) {
		free(out->spki);
		memset(out, 0, sizeof(*out));
		return SIGSTORE_E_INTERNAL;
	}
	out->pkey = pkey;
	return SIGSTORE_OK;
}

int
sig_key_from_spki(const uint8_t *der, size_t len, struct sig_key *out)
{
	const unsigned char *p = der;
	EVP_PKEY *pk;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len == 0 || len > SIG_MAX_KEY)
		return SIGSTORE_E_DER;
	pk = d2i_PUBKEY(NULL, &p, (long)len);
	if (pk == NULL || p != der + len) {
		EVP_PKEY_free(pk);
		return SIGSTORE_E_DER;
	}
	ret = sig_key_from_pkey(pk, out);
	EVP_PKEY_free(pk);
	if (ret == SIGSTORE_OK && (out->spki_len != len ||
	    memcmp(out->spki, der, len) != 0)) {
		sig_key_free(out);
		return SIGSTORE_E_DER;
	}
	return ret;
}

int
sig_key_from_pkcs1(const uint8_t *der, size_t len, struct sig_key *out)
{
	const unsigned char *p = der;
	EVP_PKEY *pk;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len == 0 || len > SIG_MAX_KEY)
		return SIGSTORE_E_DER;
	pk = d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, (long)len);
	if (pk == NULL || p != der + len) {
		EVP_PKEY_free(pk);
		return SIGSTORE_E_DER;
	}
	ret = sig_key_from_pkey(pk, out);
	EVP_PKEY_free(pk);
	return ret;
}

void
sig_key_free(struct sig_key *k)
{
	EVP_PKEY_free(k->pkey);
	free(k->spki);
	memset(k, 0, sizeof(*k));
}

int
sig_key_equal(const struct sig_key *a, const struct sig_key *b)
{
	return a->spki != NULL && b->spki != NULL &&
	    a->spki_len == b->spki_len &&
	    memcmp(a->spki, b->spki, a->spki_len) == 0;
}

int
sig_verify_msg(const struct sig_key *k, const uint8_t *msg, size_t len,
    const uint8_t *sig, size_t siglen)
{
	const EVP_MD *md;
	EVP_MD_CTX *ctx;
	int ok;

	switch (k->type) {
	case SK_ECDSA_P256:
	case SK_RSA:
		md = EVP_sha256();
		break;
	case SK_ECDSA_P384:
		md = EVP_sha384();
		break;
	case SK_ECDSA_P521:
		md = EVP_sha512();
		break;
	case SK_ED25519:
		md = NULL;
		break;
	default:
		return SIGSTORE_E_UNSUPPORTED_KEY;
	}
	if (siglen == 0 || siglen > SIG_MAX_SIG)
		return SIGSTORE_E_SIGNATURE;
	ctx = EVP_MD_CTX_new();
	if (ctx == NULL)
		return SIGSTORE_E_INTERNAL;
	ok = EVP_DigestVerifyInit(ctx, NULL, md, NULL, k->pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	return ok ? SIGSTORE_OK : SIGSTORE_E_SIGNATURE;
}

int
sig_verify_sha256(const struct sig_key *k, const uint8_t digest[32],
    const uint8_t *sig, size_t siglen)
{
	EVP_PKEY_CTX *ctx;
	int ok;

	if (k->type != SK_ECDSA_P256 && k->type != SK_RSA)
		return SIGSTORE_E_UNSUPPORTED_KEY;
	if (siglen == 0 || siglen > SIG_MAX_SIG)
		return SIGSTORE_E_SIGNATURE;
	ctx = EVP_PKEY_CTX_new(k->pkey, NULL);
	if (ctx == NULL)
		return SIGSTORE_E_INTERNAL;
	ok = EVP_PKEY_verify_init(ctx) == 1 &&
	    EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 &&
	    EVP_PKEY_verify(ctx, sig, siglen, digest, 32) == 1;
	EVP_PKEY_CTX_free(ctx);
	return ok ? SIGSTORE_OK : SIGSTORE_E_SIGNATURE;
}

int
sig_cert_from_der(const uint8_t *der, size_t len, X509 **out)
{
	const unsigned char *p = der;
	unsigned char *re = NULL;
	X509 *c;
	int n;

	*out = NULL;
	if (len == 0 || len > SIG_MAX_CERT)
		return SIGSTORE_E_DER;
	c = d2i_X509(NULL, &p, (long)len);
	if (c == NULL || p != der + len) {
		X509_free(c);
		return SIGSTORE_E_DER;
	}
	n = i2d_X509(c, &re);
	if (n <= 0 || (size_t)n != len || memcmp(re, der, len) != 0) {
		OPENSSL_free(re);
		X509_free(c);
		return SIGSTORE_E_DER;
	}
	OPENSSL_free(re);
	*out = c;
	return SIGSTORE_OK;
}

/* One PEM block of the expected type, nothing but whitespace around it,
 * no headers. Returns the DER bytes. */
static int
pem_one(const uint8_t *pem, size_t len, const char *type, uint8_t **der,
    long *derlen)
{
	char *name = NULL, *header = NULL;
	unsigned char *data = NULL;
	BIO *bio;
	char rest[64];
	int n, ret = SIGSTORE_E_DER;

	*der = NULL;
	if (len == 0 || len > 4 * SIG_MAX_CERT)
		return SIGSTORE_E_DER;
	bio = BIO_new_mem_buf(pem, (int)len);
	if (bio == NULL)
		return SIGSTORE_E_INTERNAL;
	if (PEM_read_bio(bio, &name, &header, &data, derlen) != 1)
		goto out;
	if (strcmp(name, type) != 0 || header[0] != '\0' || *derlen <= 0)
		goto out;
	while ((n = BIO_read(bio, rest, sizeof(rest))) > 0) {
		int i;
		for (i = 0; i < n; i++)
			if (rest[i] != '\n' && rest[i] != '\r' &&
			    rest[i] != ' ' && rest[i] != '\t')
				goto out;
	}
	*der = data;
	data = NULL;
	ret = SIGSTORE_OK;
out:
	OPENSSL_free(name);
	OPENSSL_free(header);
	OPENSSL_free(data);
	BIO_free(bio);
	return ret;
}

int
sig_cert_from_pem(const uint8_t *pem, size_t len, X509 **out)
{
	uint8_t *der;
	long n;
	int ret;

	*out = NULL;
	ret = pem_one(pem, len, "CERTIFICATE", &der, &n);
	if (ret != SIGSTORE_OK)
		return ret;
	ret = sig_cert_from_der(der, (size_t)n, out);
	OPENSSL_free(der);
	return ret;
}

int
sig_key_from_pem(const uint8_t *pem, size_t len, struct sig_key *out)
{
	uint8_t *der;
	long n;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = pem_one(pem, len, "PUBLIC KEY", &der, &n);
	if (ret != SIGSTORE_OK)
		return ret;
	ret = sig_key_from_spki(der, (size_t)n, out);
	OPENSSL_free(der);
	return ret;
}

int
sig_cert_equal(X509 *a, X509 *b)
{
	unsigned char *da = NULL, *db = NULL;
	int na = i2d_X509(a, &da), nb = i2d_X509(b, &db);
	int eq = na > 0 && na == nb && memcmp(da, db, (size_t)na) == 0;

	OPENSSL_free(da);
	OPENSSL_free(db);
	return eq;
}

int
sig_cert_is_self_signed(X509 *c)
{
	/* Self-issued, whether or not the signature checks: a root has no
	 * business inside a bundle either way. */
	return X509_check_issued(c, c) == X509_V_OK ||
	    X509_NAME_cmp(X509_get_subject_name(c),
	    X509_get_issuer_name(c)) == 0;
}
