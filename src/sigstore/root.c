/* The Sigstore trusted root (application/vnd.dev.sigstore.trustedroot+json
 * ;version=0.1): Fulcio CAs, Rekor logs, CT logs and TSAs, each with its
 * validity window. The root is the trust anchor of every signature, so a
 * malformed root is refused whole rather than read in part: a window
 * without a start is an error, never "since forever". Fields this verifier
 * does not use (operator, uri, subject, checkpointKeyId...) are ignored so
 * that a newer root still loads. */
#include "sigstore/internal.h"
#include "lib/jsonx.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/x509.h>

#define ROOT_MEDIA_TYPE "application/vnd.dev.sigstore.trustedroot+json;version=0.1"

static int
parse_window(const json_t *o, struct sig_window *w)
{
	const json_t *vf = jf_get(o, "validFor");
	const char *s;

	if (!json_is_object(vf))
		return SIGSTORE_E_ROOT_VALIDITY;
	s = jf_str(vf, "start", 64);
	if (s == NULL || sig_parse_rfc3339(s, &w->start) != SIGSTORE_OK)
		return SIGSTORE_E_ROOT_VALIDITY;
	w->end = SIG_TIME_MAX;
	if (jf_get(vf, "end") != NULL) {
		s = jf_str(vf, "end", 64);
		if (s == NULL || sig_parse_rfc3339(s, &w->end) != SIGSTORE_OK)
			return SIGSTORE_E_ROOT_VALIDITY;
	}
	if (w->end < w->start)
		return SIGSTORE_E_ROOT_VALIDITY;
	return SIGSTORE_OK;
}

/* "https://rekor.sigstore.dev/..." -> "rekor.sigstore.dev": the name a
 * log signs its checkpoints under. */
static int
log_name(const char *url, char *out, size_t outlen)
{
	const char *p = url, *e;
	size_t n, i;

	if (strncmp(p, "https://", 8) == 0)
		p += 8;
	else if (strncmp(p, "http://", 7) == 0)
		p += 7;
	else
		return SIGSTORE_E_ROOT_SHAPE;
	e = strchr(p, '/');
	n = e == NULL ? strlen(p) : (size_t)(e - p);
	if (n == 0 || n >= outlen)
		return SIGSTORE_E_ROOT_SHAPE;
	for (i = 0; i < n; i++)
		if (p[i] <= 0x20 || p[i] >= 0x7f || p[i] == '+')
			return SIGSTORE_E_ROOT_SHAPE;
	memcpy(out, p, n);
	out[n] = '\0';
	return SIGSTORE_OK;
}

static const struct {
	const char *details;
	enum sig_keytype type;
	int pkcs1;
} key_details[] = {
	{ "PKIX_ECDSA_P256_SHA_256", SK_ECDSA_P256, 0 },
	{ "PKIX_ECDSA_P384_SHA_384", SK_ECDSA_P384, 0 },
	{ "PKIX_ECDSA_P521_SHA_512", SK_ECDSA_P521, 0 },
	{ "PKIX_ED25519", SK_ED25519, 0 },
	{ "PKCS1_RSA_PKCS1V5", SK_RSA, 1 },
	{ "PKIX_RSA_PKCS1V5", SK_RSA, 0 },
	{ "PKIX_RSA_PKCS1V15_2048_SHA256", SK_RSA, 0 },
	{ "PKIX_RSA_PKCS1V15_3072_SHA256", SK_RSA, 0 },
	{ "PKIX_RSA_PKCS1V15_4096_SHA256", SK_RSA, 0 },
};

static int
parse_key(const json_t *pk, struct sig_key *key)
{
	const char *details = jf_str(pk, "keyDetails", 64);
	uint8_t *raw = NULL;
	size_t rawlen, i;
	int ret;

	memset(key, 0, sizeof(*key));
	if (details == NULL)
		return SIGSTORE_E_ROOT_SHAPE;
	ret = jf_b64(pk, "rawBytes", SIG_MAX_KEY, &raw, &rawlen);
	if (ret != SIGSTORE_OK)
		return SIGSTORE_E_ROOT_KEY;
	for (i = 0; i < sizeof(key_details) / sizeof(key_details[0]); i++)
		if (strcmp(details, key_details[i].details) == 0)
			break;
	if (i == sizeof(key_details) / sizeof(key_details[0])) {
		/* A key type we cannot use: kept, unusable (SK_NONE), so a
		 * newer root with an extra log still loads. */
		free(raw);
		return SIGSTORE_OK;
	}
	if (key_details[i].pkcs1)
		ret = sig_key_from_pkcs1(raw, rawlen, key);
	else
		ret = sig_key_from_spki(raw, rawlen, key);
	free(raw);
	if (ret != SIGSTORE_OK || key->type != key_details[i].type) {
		sig_key_free(key);
		return SIGSTORE_E_ROOT_KEY;
	}
	return SIGSTORE_OK;
}

static int
parse_log(const json_t *o, struct sig_log *log)
{
	const json_t *pk, *id;
	const char *url, *alg;
	uint8_t *raw = NULL;
	size_t rawlen;
	int ret;

	if (!json_is_object(o))
		return SIGSTORE_E_ROOT_SHAPE;
	url = jf_str(o, "baseUrl", SIG_MAX_URL - 1);
	if (url == NULL)
		return SIGSTORE_E_ROOT_SHAPE;
	memcpy(log->base_url, url, strlen(url) + 1);
	if ((ret = log_name(url, log->name, sizeof(log->name))) != 0)
		return ret;
	if (jf_get(o, "hashAlgorithm") != NULL) {
		alg = jf_str(o, "hashAlgorithm", 32);
		if (alg == NULL || strcmp(alg, "SHA2_256") != 0)
			return SIGSTORE_E_ROOT_SHAPE;
	}
	id = jf_get(o, "logId");
	if (!json_is_object(id) || jf_b64(id, "keyId", sizeof(log->log_id),
	    &raw, &rawlen) != SIGSTORE_OK)
		return SIGSTORE_E_ROOT_SHAPE;
	memcpy(log->log_id, raw, rawlen);
	log->log_id_len = rawlen;
	free(raw);
	pk = jf_get(o, "publicKey");
	if (!json_is_object(pk))
		return SIGSTORE_E_ROOT_SHAPE;
	if ((ret = parse_window(pk, &log->valid)) != SIGSTORE_OK)
		return ret;
	return parse_key(pk, &log->key);
}

static void
authority_free(struct sig_authority *a)
{
	X509_free(a->anchor);
	sk_X509_pop_free(a->untrusted, X509_free);
	memset(a, 0, sizeof(*a));
}

static int
parse_authority(const json_t *o, struct sig_authority *a)
{
	const json_t *chain, *certs, *c;
	size_t i, n;
	int ret;

	if (!json_is_object(o))
		return SIGSTORE_E_ROOT_SHAPE;
	if ((ret = parse_window(o, &a->valid)) != SIGSTORE_OK)
		return ret;
	chain = jf_get(o, "certChain");
	certs = json_is_object(chain) ? jf_get(chain, "certificates") : NULL;
	n = json_array_size(certs);
	if (!json_is_array(certs) || n == 0 || n > SIG_MAX_CHAIN)
		return SIGSTORE_E_ROOT_SHAPE;
	a->untrusted = sk_X509_new_null();
	if (a->untrusted == NULL)
		return SIGSTORE_E_INTERNAL;
	json_array_foreach(certs, i, c) {
		uint8_t *der;
		size_t len;
		X509 *x;
		if (!json_is_object(c) || jf_b64(c, "rawBytes", SIG_MAX_CERT,
		    &der, &len) != SIGSTORE_OK)
			return SIGSTORE_E_ROOT_SHAPE;
		ret = sig_cert_from_der(der, len, &x);
		free(der);
		if (ret != SIGSTORE_OK)
			return SIGSTORE_E_ROOT_KEY;
		if (i + 1 == n)
			a->anchor = x;
		else if (sk_X509_push(a->untrusted, x) <= 0) {
			X509_free(x);
			return SIGSTORE_E_INTERNAL;
		}
	}
	return SIGSTORE_OK;
}

void
sigstore_root_free(struct sigstore_root *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->ntlogs; i++)
		sig_key_free(&r->tlogs[i].key);
	for (i = 0; i < r->nctlogs; i++)
		sig_key_free(&r->ctlogs[i].key);
	for (i = 0; i < r->ncas; i++)
		authority_free(&r->cas[i]);
	for (i = 0; i < r->ntsas; i++)
		authority_free(&r->tsas[i]);
	free(r);
}

static int
parse_logs(const json_t *doc, const char *key, struct sig_log *logs,
    size_t *n)
{
	const json_t *arr = jf_get(doc, key), *v;
	size_t i;
	int ret;

	if (arr == NULL)
		return SIGSTORE_OK;
	if (!json_is_array(arr))
		return SIGSTORE_E_ROOT_SHAPE;
	if (json_array_size(arr) > SIG_MAX_LOGS)
		return SIGSTORE_E_LIMIT;
	json_array_foreach(arr, i, v) {
		ret = parse_log(v, &logs[i]);
		*n = i + 1;	/* so the key is freed even on failure */
		if (ret != SIGSTORE_OK)
			return ret;
	}
	return SIGSTORE_OK;
}

static int
parse_authorities(const json_t *doc, const char *key,
    struct sig_authority *as, size_t *n)
{
	const json_t *arr = jf_get(doc, key), *v;
	size_t i;
	int ret;

	if (arr == NULL)
		return SIGSTORE_OK;
	if (!json_is_array(arr))
		return SIGSTORE_E_ROOT_SHAPE;
	if (json_array_size(arr) > SIG_MAX_AUTHORITIES)
		return SIGSTORE_E_LIMIT;
	json_array_foreach(arr, i, v) {
		ret = parse_authority(v, &as[i]);
		*n = i + 1;
		if (ret != SIGSTORE_OK)
			return ret;
	}
	return SIGSTORE_OK;
}

int
sigstore_root_parse(const uint8_t *data, size_t len,
    struct sigstore_root **out)
{
	struct sigstore_root *r = NULL;
	const char *mt;
	json_t *doc = NULL;
	int ret;

	*out = NULL;
	if (len > SIGSTORE_MAX_ROOT)
		return SIGSTORE_E_TOO_BIG;
	doc = jsonx_parse((const char *)data, len, SIGSTORE_MAX_ROOT, 16);
	if (doc == NULL)
		return SIGSTORE_E_JSON;
	ret = SIGSTORE_E_ROOT_SHAPE;
	if (!json_is_object(doc))
		goto out;
	mt = jf_str(doc, "mediaType", 128);
	ret = SIGSTORE_E_ROOT_MEDIA_TYPE;
	if (mt == NULL || strcmp(mt, ROOT_MEDIA_TYPE) != 0)
		goto out;
	r = sig_malloc(sizeof(*r));
	if ((ret = parse_logs(doc, "tlogs", r->tlogs, &r->ntlogs)) != 0 ||
	    (ret = parse_logs(doc, "ctlogs", r->ctlogs, &r->nctlogs)) != 0 ||
	    (ret = parse_authorities(doc, "certificateAuthorities", r->cas,
	    &r->ncas)) != 0 ||
	    (ret = parse_authorities(doc, "timestampAuthorities", r->tsas,
	    &r->ntsas)) != 0)
		goto out;
	*out = r;
	r = NULL;
	ret = SIGSTORE_OK;
out:
	sigstore_root_free(r);
	json_decref(doc);
	return ret;
}

int
sigstore_root_load(const char *path, int require_root_owned,
    struct sigstore_root **out)
{
	uint8_t *data;
	size_t len;
	int ret;

	*out = NULL;
	ret = sig_read_file(path, SIGSTORE_MAX_ROOT, require_root_owned, &data,
	    &len);
	if (ret != SIGSTORE_OK)
		return ret;
	ret = sigstore_root_parse(data, len, out);
	free(data);
	return ret;
}

const struct sig_log *
sig_root_find_log(const struct sig_log *logs, size_t n, const uint8_t *id,
    size_t idlen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (logs[i].log_id_len == idlen &&
		    memcmp(logs[i].log_id, id, idlen) == 0)
			return &logs[i];
	return NULL;
}
