/* testsign: a throw-away Sigstore for tests (Fulcio-like CA, Rekor-like
 * log, CT log, TSA), built on OpenSSL. Never a production signer: its keys
 * sit in a directory in the clear. See testsign.c for the commands. */
#ifndef LOCKFILE_TESTSIGN_H
#define LOCKFILE_TESTSIGN_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

/* testsign_pki.c */
EVP_PKEY *ts_genkey(void);
int ts_write_key(const char *dir, const char *name, EVP_PKEY *k);
EVP_PKEY *ts_read_key(const char *dir, const char *name);
int ts_write_cert(const char *dir, const char *name, X509 *c);
X509 *ts_read_cert(const char *dir, const char *name);

/* A CA certificate; issuer NULL means self-signed. pathlen < 0: none. */
X509 *ts_make_ca(const char *cn, EVP_PKEY *key, X509 *issuer,
    EVP_PKEY *issuer_key, int pathlen, int eku_nid, time_t nb, time_t na);
/* A TSA signing certificate (EKU timeStamping, critical). */
X509 *ts_make_tsa_leaf(const char *cn, EVP_PKEY *key, X509 *issuer,
    EVP_PKEY *issuer_key, time_t nb, time_t na);

struct ts_identity {
	const char *san;
	int san_email;
	const char *issuer;		/* OID .1.8 */
	const char *issuer_v1;		/* OID .1.1; NULL: same as issuer */
	int no_issuer_v2;		/* only .1.1 */
	const char *repo;		/* .1.12 or NULL */
	const char *ref;		/* .1.14 or NULL */
	const char *repo_id;		/* .1.15 or NULL */
	const char *owner_id;		/* .1.17 or NULL */
	int eku_nid;			/* NID_code_sign normally */
};

/* A Fulcio-like leaf for key, issued by issuer; without SCT yet. */
X509 *ts_make_leaf(const struct ts_identity *id, EVP_PKEY *key, X509 *issuer,
    EVP_PKEY *issuer_key, time_t nb, time_t na);
/* Embed one SCT by the CT log key ct_key (log id from log_spki's hash),
 * then re-sign the leaf. */
int ts_embed_sct(X509 *leaf, X509 *issuer, EVP_PKEY *issuer_key,
    EVP_PKEY *ct_key, const uint8_t log_id[32], uint64_t ts_ms);

/* The same leaf with a BER TBS (how 1: the TBS length in a longer form
 * than needed; 2: the first critical TRUE spelled 01), signed again as
 * encoded: OpenSSL keeps the received bytes, so it still verifies. */
X509 *ts_ber_variant(X509 *leaf, EVP_PKEY *issuer_key, int how);

/* ECDSA/SHA-256 signature of msg (or of a digest already computed). */
int ts_sign(EVP_PKEY *k, const uint8_t *msg, size_t len, uint8_t **sig,
    size_t *siglen);
int ts_sign_digest(EVP_PKEY *k, const uint8_t digest[32], uint8_t **sig,
    size_t *siglen);
/* DER SPKI and its SHA-256. */
int ts_spki(EVP_PKEY *k, uint8_t **der, size_t *len);
/* PEM text of a certificate. */
char *ts_cert_pem(X509 *c);
char *ts_cert_der_b64(X509 *c);

/* RFC 3161 response over data, by the TSA key and certificate. */
int ts_timestamp(EVP_PKEY *tsa_key, X509 *tsa_cert, X509 *tsa_root,
    const uint8_t *data, size_t len, uint8_t **tsr, size_t *tsrlen);

/* RFC 6962 tree over leaf hashes: root and audit path of leaf m. */
void ts_merkle_root(const uint8_t (*leaves)[32], size_t n, uint8_t out[32]);
size_t ts_merkle_path(const uint8_t (*leaves)[32], size_t n, size_t m,
    uint8_t (*path)[32]);

#endif
