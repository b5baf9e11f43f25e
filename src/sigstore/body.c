/* Transparency log entry bodies: hashedrekord 0.0.1 / 0.0.2, dsse 0.0.1 /
 * 0.0.2 and intoto 0.0.2. A body is signed by the log, not by the signer;
 * what it proves is that *this* signature by *this* signer over *this*
 * artifact was logged, so each of the three is compared with the bundle and
 * the artifact, never taken from the body. The layouts are closed: an
 * unknown key in a body we interpret is refused. */
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct signer {
	X509 *leaf;			/* certificate bundles */
	const struct sig_key *key;	/* managed-key bundles */
};

int
sig_entry_is_v2(const struct sig_tlog_entry *e)
{
	return strcmp(e->version, "0.0.2") == 0 &&
	    (strcmp(e->kind, "hashedrekord") == 0 ||
	    strcmp(e->kind, "dsse") == 0);
}

void
sig_dsse_pae(const char *type, const uint8_t *payload, size_t len,
    uint8_t **out, size_t *outlen)
{
	size_t tlen = strlen(type), cap = tlen + len + 64;
	uint8_t *buf = sig_malloc(cap);
	size_t n;

	/* "DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload */
	ASSERT(str_fmt((char *)buf, cap, "DSSEv1 %zu %s %zu ", tlen, type,
	    len) == STR_OK);
	n = strlen((char *)buf);
	ASSERT(n + len < cap);
	memcpy(buf + n, payload, len);
	*out = buf;
	*outlen = n + len;
}

/* Base64 that must decode to exactly want/wantlen. */
static int
b64_equals(const char *s, size_t slen, const uint8_t *want, size_t wantlen,
    size_t max)
{
	uint8_t *raw;
	size_t len;
	int eq;

	if (sig_b64_decode(s, slen, max, &raw, &len) != SIGSTORE_OK)
		return 0;
	eq = len == wantlen && memcmp(raw, want, len) == 0;
	free(raw);
	return eq;
}

static int
str_b64_equals(const json_t *o, const char *key, const uint8_t *want,
    size_t wantlen, size_t max)
{
	const json_t *v = jf_get(o, key);

	return json_is_string(v) && b64_equals(json_string_value(v),
	    json_string_length(v), want, wantlen, max);
}

static int
hex_field_equals(const json_t *hash, const uint8_t digest[32])
{
	static const char *const hk[] = { "algorithm", "value", NULL };
	char hex[SHA256_HEX_LEN + 1];
	const char *alg, *val;

	if (jf_keys(hash, hk, NULL) != SIGSTORE_OK)
		return 0;
	alg = jf_str(hash, "algorithm", 16);
	val = jf_str(hash, "value", SHA256_HEX_LEN);
	if (alg == NULL || val == NULL || strcmp(alg, "sha256") != 0)
		return 0;
	hex_encode(digest, 32, hex);
	return strcmp(val, hex) == 0;
}

static int
v2_digest_equals(const json_t *d, const uint8_t digest[32])
{
	static const char *const dk[] = { "algorithm", "digest", NULL };
	const char *alg;

	if (jf_keys(d, dk, NULL) != SIGSTORE_OK)
		return 0;
	alg = jf_str(d, "algorithm", 16);
	return alg != NULL && strcmp(alg, "SHA2_256") == 0 &&
	    str_b64_equals(d, "digest", digest, 32, 32);
}

/* Rekor v1 bodies carry the signer as base64 of a PEM block. */
static int
pem_signer_equals(const char *b64, size_t b64len, const struct signer *s)
{
	struct sig_key k;
	uint8_t *pem;
	size_t len;
	X509 *c;
	int eq = 0;

	if (sig_b64_decode(b64, b64len, 4 * SIG_MAX_CERT, &pem,
	    &len) != SIGSTORE_OK)
		return 0;
	if (s->leaf != NULL) {
		if (sig_cert_from_pem(pem, len, &c) == SIGSTORE_OK) {
			eq = sig_cert_equal(c, s->leaf);
			X509_free(c);
		}
	} else if (sig_key_from_pem(pem, len, &k) == SIGSTORE_OK) {
		eq = sig_key_equal(&k, s->key);
		sig_key_free(&k);
	}
	free(pem);
	return eq;
}

static int
pem_field_equals(const json_t *o, const char *key, const struct signer *s)
{
	const json_t *v = jf_get(o, key);

	return json_is_string(v) && pem_signer_equals(json_string_value(v),
	    json_string_length(v), s);
}

/* Rekor v2 bodies carry the signer as DER (certificate or SPKI). */
static int
v2_verifier_equals(const json_t *v, const struct signer *s)
{
	static const char *const req[] = { "keyDetails", NULL };
	static const char *const opt[] = { "x509Certificate", "publicKey",
	    NULL };
	static const char *const rk[] = { "rawBytes", NULL };
	const json_t *cert, *pk;
	uint8_t *der;
	size_t len;
	X509 *c;
	int eq = 0;

	if (jf_keys(v, req, opt) != SIGSTORE_OK ||
	    jf_str(v, "keyDetails", 64) == NULL)
		return 0;
	cert = jf_get(v, "x509Certificate");
	pk = jf_get(v, "publicKey");
	if ((cert != NULL) == (pk != NULL))
		return 0;
	if (s->leaf != NULL) {
		if (cert == NULL || jf_keys(cert, rk, NULL) != SIGSTORE_OK ||
		    jf_b64(cert, "rawBytes", SIG_MAX_CERT, &der, &len) != 0)
			return 0;
		if (sig_cert_from_der(der, len, &c) == SIGSTORE_OK) {
			eq = sig_cert_equal(c, s->leaf);
			X509_free(c);
		}
		free(der);
		return eq;
	}
	return pk != NULL && jf_keys(pk, rk, NULL) == SIGSTORE_OK &&
	    str_b64_equals(pk, "rawBytes", s->key->spki, s->key->spki_len,
	    SIG_MAX_KEY);
}

static int
match_hashedrekord_v1(const json_t *spec, const struct sigstore_bundle *b,
    const uint8_t digest[32], const struct signer *s)
{
	static const char *const sk[] = { "data", "signature", NULL };
	static const char *const dk[] = { "hash", NULL };
	static const char *const gk[] = { "content", "publicKey", NULL };
	static const char *const pk[] = { "content", NULL };
	const json_t *data = jf_get(spec, "data"), *sig, *pub;

	if (b->content != CONTENT_MSG || jf_keys(spec, sk, NULL) != 0 ||
	    jf_keys(data, dk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	sig = jf_get(spec, "signature");
	if (jf_keys(sig, gk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	pub = jf_get(sig, "publicKey");
	if (jf_keys(pub, pk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	if (!hex_field_equals(jf_get(data, "hash"), digest) ||
	    !str_b64_equals(sig, "content", b->sig, b->sig_len, SIG_MAX_SIG) ||
	    !pem_field_equals(pub, "content", s))
		return SIGSTORE_E_ENTRY_MISMATCH;
	return SIGSTORE_OK;
}

static int
match_hashedrekord_v2(const json_t *spec, const struct sigstore_bundle *b,
    const uint8_t digest[32], const struct signer *s)
{
	static const char *const sk[] = { "hashedRekordV002", NULL };
	static const char *const hk[] = { "data", "signature", NULL };
	static const char *const gk[] = { "content", "verifier", NULL };
	const json_t *hr = jf_get(spec, "hashedRekordV002"), *sig;
	uint8_t pae_digest[32], *pae;
	size_t pae_len;

	if (jf_keys(spec, sk, NULL) != 0 || jf_keys(hr, hk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	sig = jf_get(hr, "signature");
	if (jf_keys(sig, gk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	if (b->content == CONTENT_DSSE) {
		/* Rekor v2 logs a DSSE envelope as a hashedrekord over its
		 * PAE (rekor-v2-spec 6.1.4). */
		sig_dsse_pae(b->payload_type, b->payload, b->payload_len, &pae,
		    &pae_len);
		sha256_mem(pae, pae_len, pae_digest);
		free(pae);
		digest = pae_digest;
	}
	if (!v2_digest_equals(jf_get(hr, "data"), digest) ||
	    !str_b64_equals(sig, "content", b->sig, b->sig_len, SIG_MAX_SIG) ||
	    !v2_verifier_equals(jf_get(sig, "verifier"), s))
		return SIGSTORE_E_ENTRY_MISMATCH;
	return SIGSTORE_OK;
}

static int
match_dsse_v1(const json_t *spec, const struct sigstore_bundle *b,
    const struct signer *s)
{
	static const char *const sk[] = { "envelopeHash", "payloadHash",
	    "signatures", NULL };
	static const char *const gk[] = { "signature", "verifier", NULL };
	const json_t *sigs = jf_get(spec, "signatures"), *g;
	uint8_t pd[32];

	if (b->content != CONTENT_DSSE || jf_keys(spec, sk, NULL) != 0 ||
	    !json_is_array(sigs))
		return SIGSTORE_E_ENTRY_BODY;
	if (json_array_size(sigs) != 1)
		return SIGSTORE_E_ENTRY_MISMATCH;
	g = json_array_get(sigs, 0);
	if (jf_keys(g, gk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	/* envelopeHash covers rekor's re-serialisation of the envelope; the
	 * payload hash and the one signature bind everything it signs. */
	sha256_mem(b->payload, b->payload_len, pd);
	if (!hex_field_equals(jf_get(spec, "payloadHash"), pd) ||
	    !str_b64_equals(g, "signature", b->sig, b->sig_len, SIG_MAX_SIG) ||
	    !pem_field_equals(g, "verifier", s))
		return SIGSTORE_E_ENTRY_MISMATCH;
	return SIGSTORE_OK;
}

static int
match_dsse_v2(const json_t *spec, const struct sigstore_bundle *b,
    const struct signer *s)
{
	static const char *const sk[] = { "dsseV002", NULL };
	static const char *const dk[] = { "payloadHash", "signatures", NULL };
	static const char *const gk[] = { "content", "verifier", NULL };
	const json_t *d = jf_get(spec, "dsseV002"), *sigs, *g;
	uint8_t pd[32];

	if (b->content != CONTENT_DSSE || jf_keys(spec, sk, NULL) != 0 ||
	    jf_keys(d, dk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	sigs = jf_get(d, "signatures");
	if (!json_is_array(sigs))
		return SIGSTORE_E_ENTRY_BODY;
	if (json_array_size(sigs) != 1)
		return SIGSTORE_E_ENTRY_MISMATCH;
	g = json_array_get(sigs, 0);
	if (jf_keys(g, gk, NULL) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	sha256_mem(b->payload, b->payload_len, pd);
	if (!v2_digest_equals(jf_get(d, "payloadHash"), pd) ||
	    !str_b64_equals(g, "content", b->sig, b->sig_len, SIG_MAX_SIG) ||
	    !v2_verifier_equals(jf_get(g, "verifier"), s))
		return SIGSTORE_E_ENTRY_MISMATCH;
	return SIGSTORE_OK;
}

/* intoto 0.0.2 stores the envelope's base64 strings base64-encoded once
 * more: decode the outer layer, compare the inner text with ours. */
static int
double_b64_equals(const json_t *o, const char *key, const uint8_t *want,
    size_t wantlen, size_t max)
{
	const json_t *v = jf_get(o, key);
	char *inner;
	int eq;

	if (!json_is_string(v))
		return 0;
	inner = sig_b64_encode(want, wantlen);
	eq = b64_equals(json_string_value(v), json_string_length(v),
	    (const uint8_t *)inner, strlen(inner), 4 * (max / 3 + 1));
	free(inner);
	return eq;
}

static int
match_intoto_v2(const json_t *spec, const struct sigstore_bundle *b,
    const struct signer *s)
{
	static const char *const sk[] = { "content", NULL };
	static const char *const ck[] = { "envelope", "payloadHash", NULL };
	static const char *const cko[] = { "hash", NULL };
	static const char *const ek[] = { "payloadType", "signatures", NULL };
	static const char *const eko[] = { "payload", NULL };
	static const char *const gk[] = { "sig", "publicKey", NULL };
	static const char *const gko[] = { "keyid", NULL };
	const json_t *c = jf_get(spec, "content"), *env, *sigs, *g;
	const char *type;
	uint8_t pd[32];

	if (b->content != CONTENT_DSSE || jf_keys(spec, sk, NULL) != 0 ||
	    jf_keys(c, ck, cko) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	env = jf_get(c, "envelope");
	if (jf_keys(env, ek, eko) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	sigs = jf_get(env, "signatures");
	if (!json_is_array(sigs))
		return SIGSTORE_E_ENTRY_BODY;
	if (json_array_size(sigs) != 1)
		return SIGSTORE_E_ENTRY_MISMATCH;
	g = json_array_get(sigs, 0);
	if (jf_keys(g, gk, gko) != 0)
		return SIGSTORE_E_ENTRY_BODY;
	type = jf_str(env, "payloadType", SIG_MAX_NAME);
	sha256_mem(b->payload, b->payload_len, pd);
	if (type == NULL || strcmp(type, b->payload_type) != 0 ||
	    !hex_field_equals(jf_get(c, "payloadHash"), pd) ||
	    (jf_get(env, "payload") != NULL && !double_b64_equals(env,
	    "payload", b->payload, b->payload_len, SIG_MAX_PAYLOAD)) ||
	    !double_b64_equals(g, "sig", b->sig, b->sig_len, SIG_MAX_SIG) ||
	    !pem_field_equals(g, "publicKey", s))
		return SIGSTORE_E_ENTRY_MISMATCH;
	return SIGSTORE_OK;
}

int
sig_body_match(const struct sig_tlog_entry *e,
    const struct sigstore_bundle *b, const uint8_t artifact_sha256[32],
    const struct sig_key *key)
{
	static const char *const top[] = { "apiVersion", "kind", "spec",
	    NULL };
	struct signer s = { b->leaf, key };
	const char *kind, *ver;
	const json_t *spec;
	json_t *doc;
	int ret = SIGSTORE_E_ENTRY_BODY;

	if ((s.leaf == NULL) == (s.key == NULL))
		return SIGSTORE_E_INTERNAL;
	doc = jsonx_parse((const char *)e->body, e->body_len, SIG_MAX_BODY, 10);
	if (doc == NULL || jf_keys(doc, top, NULL) != SIGSTORE_OK)
		goto out;
	kind = jf_str(doc, "kind", sizeof(e->kind) - 1);
	ver = jf_str(doc, "apiVersion", sizeof(e->version) - 1);
	spec = jf_get(doc, "spec");
	/* The bundle's kindVersion is a claim about the body: they agree. */
	ret = SIGSTORE_E_ENTRY_KIND;
	if (kind == NULL || ver == NULL || strcmp(kind, e->kind) != 0 ||
	    strcmp(ver, e->version) != 0 || !json_is_object(spec))
		goto out;
	if (strcmp(kind, "hashedrekord") == 0 && strcmp(ver, "0.0.1") == 0)
		ret = match_hashedrekord_v1(spec, b, artifact_sha256, &s);
	else if (strcmp(kind, "hashedrekord") == 0 && strcmp(ver, "0.0.2") == 0)
		ret = match_hashedrekord_v2(spec, b, artifact_sha256, &s);
	else if (strcmp(kind, "dsse") == 0 && strcmp(ver, "0.0.1") == 0)
		ret = match_dsse_v1(spec, b, &s);
	else if (strcmp(kind, "dsse") == 0 && strcmp(ver, "0.0.2") == 0)
		ret = match_dsse_v2(spec, b, &s);
	else if (strcmp(kind, "intoto") == 0 && strcmp(ver, "0.0.2") == 0)
		ret = match_intoto_v2(spec, b, &s);
out:
	json_decref(doc);
	return ret;
}
