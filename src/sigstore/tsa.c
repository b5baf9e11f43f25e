/* RFC 3161 timestamps through OpenSSL's TS API. The timestamped data is
 * the signature's bytes (client-spec 4.2.1); the TSA's certificate must
 * chain to a timestamp authority of the trusted root, validated at the
 * token's own genTime (a TSA certificate that has expired since is fine,
 * one that had expired then is not), and genTime must lie in that
 * authority's validFor window. */
#include "sigstore/internal.h"

#include <openssl/bio.h>
#include <openssl/pkcs7.h>
#include <openssl/ts.h>

static int
strong_digest(const X509_ALGOR *alg)
{
	const ASN1_OBJECT *obj = NULL;
	int nid;

	if (alg == NULL)
		return 0;
	X509_ALGOR_get0(&obj, NULL, NULL, alg);
	nid = OBJ_obj2nid(obj);
	return nid == NID_sha256 || nid == NID_sha384 || nid == NID_sha512;
}

/* OpenSSL accepts any digest it knows for the imprint and the signer;
 * a SHA-1 (or MD5) timestamp is refused here. Exactly one signer. */
static int
strong_token(TS_RESP *resp, TS_TST_INFO *tst)
{
	STACK_OF(PKCS7_SIGNER_INFO) *sis;
	X509_ALGOR *dig = NULL;
	PKCS7 *token = TS_RESP_get_token(resp);

	if (token == NULL || !PKCS7_type_is_signed(token) ||
	    !strong_digest(TS_MSG_IMPRINT_get_algo(
	    TS_TST_INFO_get_msg_imprint(tst))))
		return 0;
	sis = PKCS7_get_signer_info(token);
	if (sis == NULL || sk_PKCS7_SIGNER_INFO_num(sis) != 1)
		return 0;
	PKCS7_SIGNER_INFO_get0_algs(sk_PKCS7_SIGNER_INFO_value(sis, 0), NULL,
	    &dig, NULL);
	return strong_digest(dig);
}

static int
verify_with(const struct sig_authority *a, TS_RESP *resp,
    const uint8_t *data, size_t datalen, sig_time t)
{
	TS_VERIFY_CTX *ctx = TS_VERIFY_CTX_new();
	X509_STORE *store = X509_STORE_new();
	STACK_OF(X509) *certs = X509_chain_up_ref(a->untrusted);
	BIO *bio = BIO_new_mem_buf(data, (int)datalen);
	X509_VERIFY_PARAM *param;
	int ok = 0;

	if (ctx == NULL || store == NULL || certs == NULL || bio == NULL ||
	    datalen > SIG_MAX_SIG)
		goto out;
	if (X509_STORE_add_cert(store, a->anchor) != 1)
		goto out;
	param = X509_STORE_get0_param(store);
	X509_VERIFY_PARAM_set_time(param, (time_t)(t / SIG_NS));
	/* The root names its anchor: it need not be self-signed. */
	X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN);
	X509_VERIFY_PARAM_set_depth(param, SIG_MAX_CHAIN);
	/* 112-bit security: no SHA-1 signatures, no short keys. */
	X509_VERIFY_PARAM_set_auth_level(param, 2);
	TS_VERIFY_CTX_set_flags(ctx, TS_VFY_VERSION | TS_VFY_SIGNATURE |
	    TS_VFY_DATA | TS_VFY_SIGNER);
	/* The context owns what is handed to it from here on. */
	TS_VERIFY_CTX_set_data(ctx, bio);
	bio = NULL;
	TS_VERIFY_CTX_set_store(ctx, store);
	store = NULL;
	TS_VERIFY_CTX_set_certs(ctx, certs);
	certs = NULL;
	ok = TS_RESP_verify_response(ctx, resp) == 1;
out:
	BIO_free(bio);
	X509_STORE_free(store);
	sk_X509_pop_free(certs, X509_free);
	TS_VERIFY_CTX_free(ctx);
	return ok;
}

int
sig_tsa_verify(const struct sigstore_root *root, const uint8_t *tsr,
    size_t tsr_len, const uint8_t *data, size_t datalen, sig_time *when)
{
	const unsigned char *p = tsr;
	TS_RESP *resp;
	TS_TST_INFO *tst;
	sig_time t;
	size_t i;
	int ret = SIGSTORE_E_TSA;

	if (tsr_len == 0 || tsr_len > SIG_MAX_TSR)
		return SIGSTORE_E_TSA;
	resp = d2i_TS_RESP(NULL, &p, (long)tsr_len);
	if (resp == NULL || p != tsr + tsr_len)
		goto out;
	tst = TS_RESP_get_tst_info(resp);
	if (tst == NULL || !strong_token(resp, tst) ||
	    sig_asn1_time(TS_TST_INFO_get_time(tst), &t) != SIGSTORE_OK)
		goto out;
	for (i = 0; i < root->ntsas; i++) {
		if (!verify_with(&root->tsas[i], resp, data, datalen, t))
			continue;
		if (!sig_window_has(&root->tsas[i].valid, t)) {
			ret = SIGSTORE_E_TSA_VALIDITY;
			continue;
		}
		*when = t;
		ret = SIGSTORE_OK;
		break;
	}
out:
	TS_RESP_free(resp);
	return ret;
}
