/* Keys, certificates and signatures through OpenSSL's EVP and X509 APIs.
 * Every DER input must be strict DER, checked here by our own walker
 * (sig_der_strict: OpenSSL accepts BER and keeps a certificate's received
 * TBS bytes, so "re-encodes to the same bytes" alone would not see it),
 * consumed whole and re-encode to the same bytes: one spelling per object,
 * so two parsers cannot disagree on it. */
#include "sigstore/internal.h"
#include "lib/str.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
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
	if (len == 0 || len > SIG_MAX_KEY || sig_der_strict(der, len) != 0)
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
	if (len == 0 || len > SIG_MAX_KEY || sig_der_strict(der, len) != 0)
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

/* ---- strict DER (X.690 section 10), our own walker ---- */

#define DER_MAX_DEPTH 32

struct tlv {
	unsigned cls;		/* 0 universal, 1 application, 2 context, 3 private */
	int constructed;
	unsigned long tag;
	const uint8_t *val;	/* content */
	size_t len;
	size_t total;		/* identifier + length + content */
};

/* One TLV at p (at most n bytes): minimal identifier and definite,
 * minimal length. 0, or -1. */
static int
der_tlv(const uint8_t *p, size_t n, struct tlv *t)
{
	size_t i = 1, len;

	if (n < 2)
		return -1;
	t->cls = p[0] >> 6;
	t->constructed = (p[0] & 0x20) != 0;
	t->tag = p[0] & 0x1f;
	if (t->tag == 0x1f) {
		/* high tag number: base 128, no leading 0x80, at least 31 */
		t->tag = 0;
		if (p[1] == 0x80)
			return -1;
		do {
			if (i >= n || i > 4)
				return -1;
			t->tag = t->tag << 7 | (p[i] & 0x7f);
		} while (p[i++] & 0x80);
		if (t->tag < 0x1f)
			return -1;
	}
	if (i >= n)
		return -1;
	if (p[i] < 0x80) {
		len = p[i++];
	} else {
		size_t k = p[i++] & 0x7f, j;
		/* 0x80 is BER's indefinite length; at most 4 length bytes, the
		 * first not zero, and the short form where it would do */
		if (k == 0 || k > 4 || i + k > n || p[i] == 0)
			return -1;
		for (len = 0, j = 0; j < k; j++)
			len = len << 8 | p[i++];
		if (len < 0x80)
			return -1;
	}
	if (len > n - i)
		return -1;
	t->val = p + i;
	t->len = len;
	t->total = i + len;
	return 0;
}

static int
all_digits(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	return 1;
}

/* The content rules of the universal primitive types a certificate, a
 * key or an extension uses. */
static int
der_primitive(const struct tlv *t)
{
	const uint8_t *v = t->val;
	size_t n = t->len, i;

	switch (t->tag) {
	case 1:		/* BOOLEAN: one octet, 00 or FF */
		return n == 1 && (v[0] == 0x00 || v[0] == 0xff) ? 0 : -1;
	case 2:		/* INTEGER, ENUMERATED: minimal two's complement */
	case 10:
		if (n == 0)
			return -1;
		if (n > 1 && ((v[0] == 0x00 && !(v[1] & 0x80)) ||
		    (v[0] == 0xff && (v[1] & 0x80))))
			return -1;
		return 0;
	case 3:		/* BIT STRING: unused bits 0..7, zero, none if empty */
		if (n == 0 || v[0] > 7 || (n == 1 && v[0] != 0))
			return -1;
		if (n > 1 && (v[n - 1] & ((1u << v[0]) - 1)) != 0)
			return -1;
		return 0;
	case 5:		/* NULL */
		return n == 0 ? 0 : -1;
	case 6:		/* OBJECT IDENTIFIER: minimal arcs, the last ended */
		if (n == 0 || (v[n - 1] & 0x80))
			return -1;
		for (i = 0; i < n; i++)
			if (v[i] == 0x80 && (i == 0 || !(v[i - 1] & 0x80)))
				return -1;
		return 0;
	case 23:	/* UTCTime: YYMMDDHHMMSSZ */
		return n == 13 && all_digits(v, 12) && v[12] == 'Z' ? 0 : -1;
	case 24:	/* GeneralizedTime: YYYYMMDDHHMMSS[.f]Z, no trailing 0 */
		if (n < 15 || !all_digits(v, 14) || v[n - 1] != 'Z')
			return -1;
		if (n == 15)
			return 0;
		if (v[14] != '.' || n < 17 || !all_digits(v + 15, n - 16) ||
		    v[n - 2] == '0')
			return -1;
		return 0;
	case 16:	/* SEQUENCE and SET are constructed only */
	case 17:
		return -1;
	default:
		return 0;
	}
}

/* memcmp order of two encodings, the shorter padded with zero octets
 * (X.690 11.6, the order of a SET OF). */
static int
set_order(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t i, n = an > bn ? an : bn;

	for (i = 0; i < n; i++) {
		uint8_t x = i < an ? a[i] : 0, y = i < bn ? b[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static int der_value(const uint8_t *p, size_t n, int depth, size_t *used);

/* The content of a constructed value: values filling it exactly; in a
 * SET, in ascending order. */
static int
der_children(const struct tlv *t, int depth)
{
	const uint8_t *prev = NULL;
	size_t off = 0, used, prevlen = 0;

	while (off < t->len) {
		if (der_value(t->val + off, t->len - off, depth + 1, &used) != 0)
			return -1;
		if (t->cls == 0 && t->tag == 17 && prev != NULL &&
		    set_order(prev, prevlen, t->val + off, used) > 0)
			return -1;
		prev = t->val + off;
		prevlen = used;
		off += used;
	}
	return 0;
}

static int
der_value(const uint8_t *p, size_t n, int depth, size_t *used)
{
	struct tlv t;

	if (depth >= DER_MAX_DEPTH || der_tlv(p, n, &t) != 0)
		return -1;
	*used = t.total;
	if (t.constructed) {
		/* universal constructed: SEQUENCE and SET only (DER has no
		 * constructed strings) */
		if (t.cls == 0 && t.tag != 16 && t.tag != 17)
			return -1;
		return der_children(&t, depth);
	}
	return t.cls == 0 ? der_primitive(&t) : 0;
}

int
sig_der_strict(const uint8_t *der, size_t len)
{
	size_t used;

	return der_value(der, len, 0, &used) == 0 && used == len ? 0 : -1;
}

/* The Fulcio extensions .1.1 to .1.6 hold raw bytes, not DER. */
static int
raw_extension(const struct tlv *oid)
{
	/* 1.3.6.1.4.1.57264.1.N: 2b 06 01 04 01 83 bf 30 01 N */
	static const uint8_t fulcio[] = { 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83,
	    0xbf, 0x30, 0x01 };

	return oid->len == sizeof(fulcio) + 1 &&
	    memcmp(oid->val, fulcio, sizeof(fulcio)) == 0 &&
	    oid->val[sizeof(fulcio)] >= 1 && oid->val[sizeof(fulcio)] <= 6;
}

/* Inside a strict DER certificate, every extension's value (an OCTET
 * STRING holding the DER of the extension, which OpenSSL decodes only when
 * asked, BER included) is strict DER too; an explicit critical FALSE (a
 * DEFAULT) is not DER. */
static int
cert_extensions_strict(const uint8_t *der, size_t len)
{
	struct tlv cert, tbs, f, exts, ext, oid, x;
	size_t off, eoff;

	if (der_tlv(der, len, &cert) != 0 || der_tlv(cert.val, cert.len,
	    &tbs) != 0)
		return -1;
	for (off = 0; off < tbs.len; off += f.total) {
		if (der_tlv(tbs.val + off, tbs.len - off, &f) != 0)
			return -1;
		if (!(f.cls == 2 && f.constructed && f.tag == 3))
			continue;
		if (der_tlv(f.val, f.len, &exts) != 0)
			return -1;
		for (eoff = 0; eoff < exts.len; eoff += ext.total) {
			if (der_tlv(exts.val + eoff, exts.len - eoff, &ext) != 0 ||
			    der_tlv(ext.val, ext.len, &oid) != 0 ||
			    der_tlv(oid.val + oid.len, ext.len - oid.total,
			    &x) != 0)
				return -1;
			if (x.cls == 0 && x.tag == 1) {
				if (x.val[0] != 0xff)
					return -1;	/* DEFAULT FALSE spelled out */
				if (der_tlv(x.val + x.len, ext.len - oid.total -
				    x.total, &x) != 0)
					return -1;
			}
			if (x.cls != 0 || x.tag != 4)
				return -1;
			if (!raw_extension(&oid) &&
			    sig_der_strict(x.val, x.len) != 0)
				return -1;
		}
	}
	return 0;
}

int
sig_cert_from_der(const uint8_t *der, size_t len, X509 **out)
{
	const unsigned char *p = der;
	unsigned char *re = NULL, *tbs = NULL;
	struct tlv cert, tbsv;
	X509 *c;
	int n, tn, ok;

	*out = NULL;
	if (len == 0 || len > SIG_MAX_CERT || sig_der_strict(der, len) != 0 ||
	    cert_extensions_strict(der, len) != 0)
		return SIGSTORE_E_DER;
	c = d2i_X509(NULL, &p, (long)len);
	if (c == NULL || p != der + len) {
		X509_free(c);
		return SIGSTORE_E_DER;
	}
	/* The TBS re-encoded from what OpenSSL parsed (not its cached
	 * copy of the received bytes) must be the received TBS: a DEFAULT
	 * spelled out or any other second spelling is refused. */
	n = i2d_X509(c, &re);
	tn = i2d_re_X509_tbs(c, &tbs);
	ok = n > 0 && (size_t)n == len && memcmp(re, der, len) == 0 &&
	    der_tlv(der, len, &cert) == 0 &&
	    der_tlv(cert.val, cert.len, &tbsv) == 0 && tn > 0 &&
	    (size_t)tn == tbsv.total && memcmp(tbs, tbsv.val - (tbsv.total -
	    tbsv.len), tbsv.total) == 0;
	OPENSSL_free(re);
	OPENSSL_free(tbs);
	if (!ok) {
		X509_free(c);
		return SIGSTORE_E_DER;
	}
	*out = c;
	return SIGSTORE_OK;
}

/* Exactly one PEM block of the expected type (RFC 7468's strict form, read
 * by us: PEM_read_bio() skips any text before the BEGIN line): the BEGIN
 * line first, non-empty base64 lines (of any length: Rekor stores some on
 * one line), the END line, at most one newline after it and nothing else;
 * no headers. Returns the DER bytes
 * (free()). */
static int
pem_one(const uint8_t *pem, size_t len, const char *type, uint8_t **der,
    size_t *derlen)
{
	char begin[64], end[64], *b64;
	size_t bl, el, i, n = 0;
	int line = 0;
	const uint8_t *p;
	int ret;

	*der = NULL;
	if (len == 0 || len > 4 * SIG_MAX_CERT)
		return SIGSTORE_E_DER;
	if (str_fmt(begin, sizeof(begin), "-----BEGIN %s-----\n", type) !=
	    STR_OK || str_fmt(end, sizeof(end), "-----END %s-----", type) !=
	    STR_OK)
		return SIGSTORE_E_INTERNAL;
	bl = strlen(begin);
	el = strlen(end);
	if (len < bl + el || memcmp(pem, begin, bl) != 0)
		return SIGSTORE_E_DER;
	/* the END line, then at most one newline */
	if (len >= el + 1 && pem[len - 1] == '\n')
		len--;
	if (memcmp(pem + len - el, end, el) != 0 || pem[len - el - 1] != '\n')
		return SIGSTORE_E_DER;
	b64 = sig_malloc(len);
	for (p = pem + bl, i = 0; p + i < pem + len - el; i++) {
		uint8_t c = p[i];
		if (c == '\n') {
			if (line == 0)
				goto bad;	/* an empty line */
			line = 0;
			continue;
		}
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '='))
			goto bad;
		line = 1;
		b64[n++] = (char)c;
	}
	if (n == 0)
		goto bad;
	ret = sig_b64_decode(b64, n, SIG_MAX_CERT, der, derlen);
	free(b64);
	return ret == SIGSTORE_OK ? SIGSTORE_OK : SIGSTORE_E_DER;
bad:
	free(b64);
	return SIGSTORE_E_DER;
}

int
sig_cert_from_pem(const uint8_t *pem, size_t len, X509 **out)
{
	uint8_t *der;
	size_t n;
	int ret;

	*out = NULL;
	ret = pem_one(pem, len, "CERTIFICATE", &der, &n);
	if (ret != SIGSTORE_OK)
		return ret;
	ret = sig_cert_from_der(der, n, out);
	free(der);
	return ret;
}

int
sig_key_from_pem(const uint8_t *pem, size_t len, struct sig_key *out)
{
	uint8_t *der;
	size_t n;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = pem_one(pem, len, "PUBLIC KEY", &der, &n);
	if (ret != SIGSTORE_OK)
		return ret;
	ret = sig_key_from_spki(der, n, out);
	free(der);
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
