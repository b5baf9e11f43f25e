/* Sigstore bundles (media types 0.1, 0.2, 0.3): the one place bundle JSON
 * becomes C values. The bundle is attacker-controlled bytes, so the parse
 * is closed: unknown keys are refused at every level, every base64 and DER
 * field is decoded strictly here, every count and size has a ceiling. What
 * the verifier later reads comes only from struct sigstore_bundle. */
#include "sigstore/internal.h"
#include "lib/jsonx.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *media_type;
	int version;
} media_types[] = {
	{ "application/vnd.dev.sigstore.bundle+json;version=0.1", 1 },
	{ "application/vnd.dev.sigstore.bundle+json;version=0.2", 2 },
	{ "application/vnd.dev.sigstore.bundle+json;version=0.3", 3 },
	{ "application/vnd.dev.sigstore.bundle.v0.3+json", 3 },
};

static void
entry_free(struct sig_tlog_entry *e)
{
	free(e->set);
	free(e->hashes);
	free(e->checkpoint);
	free(e->body);
	free(e->body_b64);
	memset(e, 0, sizeof(*e));
}

void
sigstore_bundle_free(struct sigstore_bundle *b)
{
	size_t i;

	if (b == NULL)
		return;
	X509_free(b->leaf);
	free(b->sig);
	free(b->payload_type);
	free(b->payload);
	for (i = 0; i < b->nentries; i++)
		entry_free(&b->entries[i]);
	for (i = 0; i < b->ntsr; i++)
		free(b->tsr[i]);
	free(b);
}

static int
copy_str(const json_t *o, const char *key, char *out, size_t outlen)
{
	const char *s = jf_str(o, key, outlen - 1);

	if (s == NULL || *s == '\0')
		return SIGSTORE_E_SHAPE;
	memcpy(out, s, strlen(s) + 1);
	return SIGSTORE_OK;
}

static int
parse_proof(const json_t *p, struct sig_tlog_entry *e)
{
	static const char *const req[] = { "rootHash", "treeSize", NULL };
	static const char *const opt[] = { "logIndex", "hashes", "checkpoint",
	    NULL };
	static const char *const cpk[] = { "envelope", NULL };
	const json_t *hashes, *h, *cp;
	const char *env;
	size_t i;
	int ret;

	if ((ret = jf_keys(p, req, opt)) != SIGSTORE_OK)
		return ret;
	/* proto3 JSON omits zero values: an absent index is index 0. */
	e->proof_index = 0;
	if (jf_get(p, "logIndex") != NULL &&
	    jf_i64(p, "logIndex", 0, INT64_MAX, &e->proof_index) != 0)
		return SIGSTORE_E_SHAPE;
	if (jf_i64(p, "treeSize", 1, INT64_MAX, &e->tree_size) != 0)
		return SIGSTORE_E_SHAPE;
	if ((ret = jf_b64_fixed(p, "rootHash", e->root_hash, 32)) != 0)
		return ret;
	hashes = jf_get(p, "hashes");
	if (hashes != NULL) {
		if (!json_is_array(hashes))
			return SIGSTORE_E_SHAPE;
		if (json_array_size(hashes) > SIG_MAX_PROOF_HASHES)
			return SIGSTORE_E_LIMIT;
		e->hashes = sig_malloc(32 * (json_array_size(hashes) + 1));
		json_array_foreach(hashes, i, h) {
			if (!json_is_string(h))
				return SIGSTORE_E_SHAPE;
			ret = sig_b64_decode_fixed(json_string_value(h),
			    json_string_length(h), e->hashes[i], 32);
			if (ret != SIGSTORE_OK)
				return ret;
			e->nhashes = i + 1;
		}
	}
	cp = jf_get(p, "checkpoint");
	if (cp != NULL) {
		if ((ret = jf_keys(cp, cpk, NULL)) != SIGSTORE_OK)
			return ret;
		env = jf_str(cp, "envelope", SIG_MAX_CHECKPOINT);
		if (env == NULL || *env == '\0')
			return SIGSTORE_E_CHECKPOINT;
		e->checkpoint_len = strlen(env);
		e->checkpoint = sig_strndup(env, e->checkpoint_len);
	}
	e->has_proof = 1;
	return SIGSTORE_OK;
}

static int
parse_entry(const json_t *o, struct sig_tlog_entry *e)
{
	static const char *const req[] = { "logId", "kindVersion",
	    "canonicalizedBody", NULL };
	static const char *const opt[] = { "logIndex", "integratedTime",
	    "inclusionPromise", "inclusionProof", NULL };
	static const char *const idk[] = { "keyId", NULL };
	static const char *const kvk[] = { "kind", "version", NULL };
	static const char *const spk[] = { "signedEntryTimestamp", NULL };
	const json_t *id, *kv, *sp, *pr;
	const char *b64;
	uint8_t *raw;
	size_t rawlen;
	int ret;

	if ((ret = jf_keys(o, req, opt)) != SIGSTORE_OK)
		return ret;
	e->log_index = 0;
	if (jf_get(o, "logIndex") != NULL &&
	    jf_i64(o, "logIndex", 0, INT64_MAX, &e->log_index) != 0)
		return SIGSTORE_E_SHAPE;
	id = jf_get(o, "logId");
	if ((ret = jf_keys(id, idk, NULL)) != SIGSTORE_OK)
		return ret;
	if ((ret = jf_b64(id, "keyId", sizeof(e->log_id), &raw, &rawlen)) != 0)
		return ret;
	memcpy(e->log_id, raw, rawlen);
	e->log_id_len = rawlen;
	free(raw);
	kv = jf_get(o, "kindVersion");
	if ((ret = jf_keys(kv, kvk, NULL)) != SIGSTORE_OK ||
	    (ret = copy_str(kv, "kind", e->kind, sizeof(e->kind))) != 0 ||
	    (ret = copy_str(kv, "version", e->version,
	    sizeof(e->version))) != 0)
		return ret;
	if (jf_get(o, "integratedTime") != NULL) {
		if (jf_i64(o, "integratedTime", 0, INT64_MAX / SIG_NS - 1,
		    &e->integrated_time) != 0)
			return SIGSTORE_E_SHAPE;
		e->has_integrated_time = e->integrated_time != 0;
	}
	b64 = jf_str(o, "canonicalizedBody", 4 * (SIG_MAX_BODY / 3 + 1));
	if (b64 == NULL)
		return SIGSTORE_E_SHAPE;
	ret = sig_b64_decode(b64, strlen(b64), SIG_MAX_BODY, &e->body,
	    &e->body_len);
	if (ret != SIGSTORE_OK)
		return ret;
	e->body_b64 = sig_strndup(b64, strlen(b64));
	sp = jf_get(o, "inclusionPromise");
	if (sp != NULL) {
		if ((ret = jf_keys(sp, spk, NULL)) != SIGSTORE_OK ||
		    (ret = jf_b64(sp, "signedEntryTimestamp", SIG_MAX_SIG,
		    &e->set, &e->set_len)) != SIGSTORE_OK)
			return ret;
	}
	pr = jf_get(o, "inclusionProof");
	if (pr != NULL && (ret = parse_proof(pr, e)) != SIGSTORE_OK)
		return ret;
	return SIGSTORE_OK;
}

static int
parse_chain(const json_t *chain, struct sigstore_bundle *b)
{
	static const char *const ck[] = { "certificates", NULL };
	static const char *const rk[] = { "rawBytes", NULL };
	const json_t *certs, *c;
	size_t i;
	int ret;

	if ((ret = jf_keys(chain, ck, NULL)) != SIGSTORE_OK)
		return SIGSTORE_E_MATERIAL;
	certs = jf_get(chain, "certificates");
	if (!json_is_array(certs) || json_array_size(certs) == 0)
		return SIGSTORE_E_MATERIAL;
	if (json_array_size(certs) > SIG_MAX_CHAIN)
		return SIGSTORE_E_LIMIT;
	json_array_foreach(certs, i, c) {
		uint8_t *der;
		size_t len;
		X509 *x;
		if ((ret = jf_keys(c, rk, NULL)) != SIGSTORE_OK ||
		    (ret = jf_b64(c, "rawBytes", SIG_MAX_CERT, &der,
		    &len)) != SIGSTORE_OK)
			return ret;
		ret = sig_cert_from_der(der, len, &x);
		free(der);
		if (ret != SIGSTORE_OK)
			return ret;
		if (i == 0) {
			b->leaf = x;
			continue;
		}
		/* Intermediates come from the trusted root only; a root
		 * shipped inside the bundle is a forgery attempt. */
		ret = sig_cert_is_self_signed(x) ? SIGSTORE_E_ROOT_IN_BUNDLE :
		    SIGSTORE_OK;
		X509_free(x);
		if (ret != SIGSTORE_OK)
			return ret;
	}
	return SIGSTORE_OK;
}

static int
parse_material(const json_t *vm, struct sigstore_bundle *b)
{
	static const char *const req[] = { NULL };
	static const char *const opt[] = { "x509CertificateChain",
	    "certificate", "publicKey", "tlogEntries",
	    "timestampVerificationData", NULL };
	static const char *const rk[] = { "rawBytes", NULL };
	static const char *const pkk[] = { "hint", NULL };
	static const char *const tvk[] = { "rfc3161Timestamps", NULL };
	static const char *const tsk[] = { "signedTimestamp", NULL };
	const json_t *chain, *cert, *pk, *tlogs, *tvd, *ts, *v;
	uint8_t *der;
	size_t len, i;
	int ret;

	if ((ret = jf_keys(vm, req, opt)) != SIGSTORE_OK)
		return ret;
	chain = jf_get(vm, "x509CertificateChain");
	cert = jf_get(vm, "certificate");
	pk = jf_get(vm, "publicKey");
	if ((chain != NULL) + (cert != NULL) + (pk != NULL) != 1)
		return SIGSTORE_E_MATERIAL;
	if (chain != NULL) {
		/* 0.3 replaced the chain by the leaf alone. */
		if (b->version >= 3)
			return SIGSTORE_E_MATERIAL;
		b->material = MAT_CHAIN;
		if ((ret = parse_chain(chain, b)) != SIGSTORE_OK)
			return ret;
	} else if (cert != NULL) {
		if (b->version < 3)
			return SIGSTORE_E_MATERIAL;
		b->material = MAT_CERT;
		if ((ret = jf_keys(cert, rk, NULL)) != SIGSTORE_OK ||
		    (ret = jf_b64(cert, "rawBytes", SIG_MAX_CERT, &der,
		    &len)) != SIGSTORE_OK)
			return ret == SIGSTORE_E_SHAPE ? SIGSTORE_E_MATERIAL : ret;
		ret = sig_cert_from_der(der, len, &b->leaf);
		free(der);
		if (ret != SIGSTORE_OK)
			return ret;
	} else {
		b->material = MAT_KEY;
		if ((ret = jf_keys(pk, NULL, pkk)) != SIGSTORE_OK)
			return ret;
		/* The hint names the key for humans; it is never used. */
		if (jf_get(pk, "hint") != NULL &&
		    jf_str(pk, "hint", SIG_MAX_NAME) == NULL)
			return SIGSTORE_E_SHAPE;
	}
	tlogs = jf_get(vm, "tlogEntries");
	if (tlogs != NULL) {
		if (!json_is_array(tlogs))
			return SIGSTORE_E_SHAPE;
		if (json_array_size(tlogs) > SIG_MAX_TLOG_ENTRIES)
			return SIGSTORE_E_LIMIT;
		json_array_foreach(tlogs, i, v) {
			b->nentries = i + 1;
			if ((ret = parse_entry(v, &b->entries[i])) != 0)
				return ret;
		}
	}
	tvd = jf_get(vm, "timestampVerificationData");
	if (tvd == NULL)
		return SIGSTORE_OK;
	if ((ret = jf_keys(tvd, NULL, tvk)) != SIGSTORE_OK)
		return ret;
	ts = jf_get(tvd, "rfc3161Timestamps");
	if (ts == NULL)
		return SIGSTORE_OK;
	if (!json_is_array(ts))
		return SIGSTORE_E_SHAPE;
	if (json_array_size(ts) > SIG_MAX_TIMESTAMPS)
		return SIGSTORE_E_LIMIT;
	json_array_foreach(ts, i, v) {
		if ((ret = jf_keys(v, tsk, NULL)) != SIGSTORE_OK ||
		    (ret = jf_b64(v, "signedTimestamp", SIG_MAX_TSR,
		    &b->tsr[i], &b->tsr_len[i])) != SIGSTORE_OK)
			return ret;
		b->ntsr = i + 1;
	}
	return SIGSTORE_OK;
}

static int
parse_message(const json_t *ms, struct sigstore_bundle *b)
{
	static const char *const req[] = { "signature", NULL };
	static const char *const opt[] = { "messageDigest", NULL };
	static const char *const mdk[] = { "algorithm", "digest", NULL };
	const json_t *md;
	const char *alg;
	int ret;

	if ((ret = jf_keys(ms, req, opt)) != SIGSTORE_OK)
		return ret;
	b->content = CONTENT_MSG;
	if ((ret = jf_b64(ms, "signature", SIG_MAX_SIG, &b->sig,
	    &b->sig_len)) != SIGSTORE_OK)
		return ret;
	md = jf_get(ms, "messageDigest");
	if (md == NULL)
		return SIGSTORE_OK;
	if ((ret = jf_keys(md, mdk, NULL)) != SIGSTORE_OK)
		return ret;
	alg = jf_str(md, "algorithm", 32);
	if (alg == NULL || strcmp(alg, "SHA2_256") != 0)
		return SIGSTORE_E_UNSUPPORTED_KEY;
	if ((ret = jf_b64_fixed(md, "digest", b->digest, 32)) != SIGSTORE_OK)
		return ret;
	b->has_digest = 1;
	return SIGSTORE_OK;
}

static int
parse_dsse(const json_t *env, struct sigstore_bundle *b)
{
	static const char *const req[] = { "payload", "payloadType",
	    "signatures", NULL };
	static const char *const sk[] = { "sig", NULL };
	static const char *const sko[] = { "keyid", NULL };
	const json_t *sigs, *s;
	const char *type;
	int ret;

	if ((ret = jf_keys(env, req, NULL)) != SIGSTORE_OK)
		return ret;
	b->content = CONTENT_DSSE;
	type = jf_str(env, "payloadType", SIG_MAX_NAME);
	if (type == NULL || *type == '\0')
		return SIGSTORE_E_DSSE;
	b->payload_type = sig_strndup(type, strlen(type));
	if ((ret = jf_b64(env, "payload", SIG_MAX_PAYLOAD, &b->payload,
	    &b->payload_len)) != SIGSTORE_OK)
		return ret;
	sigs = jf_get(env, "signatures");
	/* Exactly one signature: with several, "verified" would have to say
	 * by whom, and the log entry binds one. */
	if (!json_is_array(sigs) || json_array_size(sigs) != 1)
		return SIGSTORE_E_DSSE;
	s = json_array_get(sigs, 0);
	if ((ret = jf_keys(s, sk, sko)) != SIGSTORE_OK)
		return ret;
	if (jf_get(s, "keyid") != NULL && jf_str(s, "keyid",
	    SIG_MAX_NAME) == NULL)
		return SIGSTORE_E_SHAPE;
	return jf_b64(s, "sig", SIG_MAX_SIG, &b->sig, &b->sig_len);
}

int
sigstore_bundle_parse(const uint8_t *data, size_t len,
    struct sigstore_bundle **out)
{
	static const char *const req[] = { "mediaType",
	    "verificationMaterial", NULL };
	static const char *const opt[] = { "messageSignature",
	    "dsseEnvelope", NULL };
	struct sigstore_bundle *b = NULL;
	const json_t *ms, *env;
	const char *mt;
	json_t *doc;
	size_t i;
	int ret;

	*out = NULL;
	if (len > SIGSTORE_MAX_BUNDLE)
		return SIGSTORE_E_TOO_BIG;
	doc = jsonx_parse((const char *)data, len, SIGSTORE_MAX_BUNDLE, 12);
	if (doc == NULL)
		return SIGSTORE_E_JSON;
	if ((ret = jf_keys(doc, req, opt)) != SIGSTORE_OK)
		goto out;
	b = sig_malloc(sizeof(*b));
	mt = jf_str(doc, "mediaType", 128);
	ret = SIGSTORE_E_MEDIA_TYPE;
	if (mt == NULL)
		goto out;
	for (i = 0; i < sizeof(media_types) / sizeof(media_types[0]); i++)
		if (strcmp(mt, media_types[i].media_type) == 0)
			b->version = media_types[i].version;
	if (b->version == 0)
		goto out;
	ms = jf_get(doc, "messageSignature");
	env = jf_get(doc, "dsseEnvelope");
	ret = SIGSTORE_E_SHAPE;
	if ((ms != NULL) == (env != NULL))
		goto out;
	if ((ret = parse_material(jf_get(doc, "verificationMaterial"),
	    b)) != SIGSTORE_OK)
		goto out;
	ret = ms != NULL ? parse_message(ms, b) : parse_dsse(env, b);
	if (ret != SIGSTORE_OK)
		goto out;
	*out = b;
	b = NULL;
out:
	sigstore_bundle_free(b);
	json_decref(doc);
	return ret;
}
