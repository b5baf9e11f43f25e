/* pdf-signatures-intact: the cryptography, all OpenSSL's libcrypto (linked
 * statically; docs/plugins.md, "pdf-signatures-intact"). No hand-written
 * crypto: CMS_verify checks the signer's signature over the signed
 * attributes and the message digest over the content.
 *
 * Detached (adbe.pkcs7.detached, ETSI.CAdES.detached): /Contents is a CMS
 * SignedData without content; its content is the byte range, streamed
 * from the file through a BIO. Document timestamp (ETSI.RFC3161): a CMS
 * SignedData of a TSTInfo; the timestamp token's signature is verified,
 * then its message imprint must be the digest, with the algorithm it
 * names, of the byte range.
 *
 * Trust is not the question: the signer certificate must be in the CMS
 * (CMS_verify finds the signer by it) but is not verified against any
 * root, so an expired or self-signed one still verifies
 * (CMS_NO_SIGNER_CERT_VERIFY). The hex string may be padded with zero
 * bytes after the DER; anything else after it is refused. */
#include "sig_check.h"

#include <string.h>

#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ts.h>
#include <openssl/x509.h>

/* The byte range as one stream: [0, a) then [b, b + c). */
struct range {
	const struct pdf_src *src;
	uint64_t off[2], len[2];
	int part;
	int ioerr;
};

static uint8_t rbuf[1 << 20];	/* big reads: the file's size is unbounded */

static size_t
range_read(struct range *r, uint8_t *out, size_t want)
{
	ssize_t n;

	while (r->part < 2 && r->len[r->part] == 0)
		r->part++;
	if (r->part == 2 || r->ioerr)
		return 0;
	if (want > r->len[r->part])
		want = (size_t)r->len[r->part];
	n = r->src->pread(r->src->ctx, out, want, r->off[r->part]);
	if (n <= 0) {
		r->ioerr = 1;	/* short of the range: the file changed */
		return 0;
	}
	r->off[r->part] += (uint64_t)n;
	r->len[r->part] -= (uint64_t)n;
	return (size_t)n;
}

static void
range_init(struct range *r, const struct pdf_src *src, const struct sig *s)
{
	memset(r, 0, sizeof(*r));
	r->src = src;
	r->off[0] = 0;
	r->len[0] = s->range[1];
	r->off[1] = s->range[2];
	r->len[1] = s->range[3];
}

/* A source BIO over struct range, buffered: CMS reads 4 KiB at a time. */
struct rbio {
	struct range *r;
	size_t at, have;
};

static int
rbio_read(BIO *b, char *out, int len)
{
	struct rbio *rb = BIO_get_data(b);
	size_t n;

	if (len <= 0)
		return 0;
	if (rb->at == rb->have) {
		rb->at = 0;
		rb->have = range_read(rb->r, rbuf, sizeof(rbuf));
		if (rb->have == 0)
			return 0;
	}
	n = rb->have - rb->at;
	if (n > (size_t)len)
		n = (size_t)len;
	memcpy(out, rbuf + rb->at, n);
	rb->at += n;
	return (int)n;
}

static long
rbio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	(void)b;
	(void)num;
	(void)ptr;
	return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static BIO *
rbio_new(struct rbio *rb)
{
	static BIO_METHOD *meth;
	BIO *b;

	if (meth == NULL) {
		meth = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK,
		    "pdf byte range");
		if (meth == NULL || !BIO_meth_set_read(meth, rbio_read) ||
		    !BIO_meth_set_ctrl(meth, rbio_ctrl))
			return NULL;
	}
	if ((b = BIO_new(meth)) == NULL)
		return NULL;
	BIO_set_data(b, rb);
	BIO_set_init(b, 1);
	return b;
}

/* /Contents, decoded: the gap without its '<' and '>'. */
static enum enc_answer
contents(const struct pdf_src *src, const struct sig *s, uint8_t *der,
    size_t *len)
{
	static uint8_t hex[SIG_CONTENTS_MAX];
	size_t n = (size_t)(s->range[2] - s->range[1] - 2), i;
	enum enc_answer e;

	if ((e = enc_read(src, hex, n, s->range[1] + 1)) != ENC_NO)
		return e == ENC_IOERR ? e : ENC_NO;
	for (i = 0; i < n; i += 2) {
		int h = hex[i], l = hex[i + 1];

		h = h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10;
		l = l <= '9' ? l - '0' : (l | 0x20) - 'a' + 10;
		der[i / 2] = (uint8_t)(h << 4 | l);	/* sig_shape checked */
	}
	*len = n / 2;
	return ENC_YES;
}

static CMS_ContentInfo *
cms_parse(const uint8_t *der, size_t len)
{
	const unsigned char *p = der;
	CMS_ContentInfo *cms;

	if (len > LONG_MAX ||
	    (cms = d2i_CMS_ContentInfo(NULL, &p, (long)len)) == NULL)
		return NULL;
	for (; p < der + len; p++) {
		if (*p != 0) {
			CMS_ContentInfo_free(cms);
			return NULL;
		}
	}
	if (OBJ_obj2nid(CMS_get0_type(cms)) != NID_pkcs7_signed) {
		CMS_ContentInfo_free(cms);
		return NULL;
	}
	return cms;
}

static enum enc_answer
verify_detached(CMS_ContentInfo *cms, struct range *r)
{
	struct rbio rb = { r, 0, 0 };
	BIO *in;
	int ok;

	if (CMS_is_detached(cms) != 1)
		return ENC_NO;
	if ((in = rbio_new(&rb)) == NULL)
		return ENC_UNJUDGED;
	ok = CMS_verify(cms, NULL, NULL, in, NULL,
	    CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY);
	BIO_free(in);
	if (r->ioerr)
		return ENC_IOERR;
	return ok == 1 ? ENC_YES : ENC_NO;
}

/* The digest of the byte range with md, into out (EVP_MAX_MD_SIZE). */
static enum enc_answer
range_digest(struct range *r, const EVP_MD *md, uint8_t *out,
    unsigned *outlen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n;
	int ok;

	if (ctx == NULL)
		return ENC_UNJUDGED;
	ok = EVP_DigestInit_ex(ctx, md, NULL);
	while (ok && (n = range_read(r, rbuf, sizeof(rbuf))) > 0)
		ok = EVP_DigestUpdate(ctx, rbuf, n);
	ok = ok && EVP_DigestFinal_ex(ctx, out, outlen);
	EVP_MD_CTX_free(ctx);
	if (r->ioerr)
		return ENC_IOERR;
	return ok ? ENC_YES : ENC_UNJUDGED;
}

static enum enc_answer
verify_timestamp(CMS_ContentInfo *cms, struct range *r)
{
	uint8_t dg[EVP_MAX_MD_SIZE];
	unsigned dglen = 0;
	const ASN1_OBJECT *alg;
	const unsigned char *p;
	const ASN1_OCTET_STRING *want;
	TS_MSG_IMPRINT *imp;
	TS_TST_INFO *tst = NULL;
	const EVP_MD *md;
	BIO *out;
	char *tok;
	long toklen;
	enum enc_answer e = ENC_NO;

	if (CMS_is_detached(cms) != 0 ||
	    OBJ_obj2nid(CMS_get0_eContentType(cms)) != NID_id_smime_ct_TSTInfo)
		return ENC_NO;
	if ((out = BIO_new(BIO_s_mem())) == NULL)
		return ENC_UNJUDGED;
	if (CMS_verify(cms, NULL, NULL, NULL, out,
	    CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY) != 1)
		goto done;
	toklen = BIO_get_mem_data(out, &tok);
	p = (const unsigned char *)tok;
	if (toklen <= 0 || (tst = d2i_TS_TST_INFO(NULL, &p, toklen)) == NULL ||
	    p != (const unsigned char *)tok + toklen)
		goto done;
	imp = TS_TST_INFO_get_msg_imprint(tst);
	X509_ALGOR_get0(&alg, NULL, NULL, TS_MSG_IMPRINT_get_algo(imp));
	want = TS_MSG_IMPRINT_get_msg(imp);
	if ((md = EVP_get_digestbyobj(alg)) == NULL)
		goto done;
	if ((e = range_digest(r, md, dg, &dglen)) != ENC_YES)
		goto done;
	e = (int)dglen == ASN1_STRING_length(want) &&
	    memcmp(dg, ASN1_STRING_get0_data(want), dglen) == 0 ?
	    ENC_YES : ENC_NO;
done:
	TS_TST_INFO_free(tst);
	BIO_free(out);
	return e;
}

enum enc_answer
sig_verify(const struct pdf_src *src, const struct sig *s)
{
	static uint8_t der[SIG_CONTENTS_MAX / 2];
	CMS_ContentInfo *cms;
	struct range r;
	size_t len = 0;
	enum enc_answer e;

	if ((e = contents(src, s, der, &len)) != ENC_YES)
		return e;
	if ((cms = cms_parse(der, len)) == NULL) {
		ERR_clear_error();
		return ENC_NO;
	}
	range_init(&r, src, s);
	e = s->kind == SIG_TIMESTAMP ? verify_timestamp(cms, &r) :
	    verify_detached(cms, &r);
	CMS_ContentInfo_free(cms);
	ERR_clear_error();
	return e;
}
