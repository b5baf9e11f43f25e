/* Passkeys: COSE keys, registrations and assertions (docs/hub.md,
 * "Passkeys"). Everything here is untrusted input the page relayed: the
 * CBOR is parsed with libcbor, the client data with jansson, the
 * signatures are verified by libfido2, never by hand. Each input has a
 * byte limit checked before it is parsed, and nothing may follow the
 * last item (a trailing byte is PK_FORMAT). */
#include "hubwire/passkey.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cbor.h>
#include <fido.h>
#include <fido/eddsa.h>
#include <fido/es256.h>
#include <jansson.h>
#include <sodium.h>

#define PK_ID_DOMAIN	"lockhub/passkey/v1/id"
#define PK_DEC_DOMAIN	"lockhub/passkey/v1/decision"
#define AD_MIN		37	/* rpIdHash, flags, counter */
#define AD_MAX		1024	/* an assertion's authenticatorData */
#define ATT_MAX		4096	/* a registration's attestationObject */
#define CDJ_MAX		4096
#define CHAL_MAX	64
#define SIG_MIN		8
#define SIG_MAX		256

#define F_UP	0x01
#define F_UV	0x04
#define F_AT	0x40
#define F_ED	0x80

static const char *const names[] = {
	[PK_OK] = "ok",
	[PK_FORMAT] = "format",
	[PK_KEY] = "key",
	[PK_TYPE] = "type",
	[PK_CHALLENGE] = "challenge",
	[PK_ORIGIN] = "origin",
	[PK_RP] = "rp",
	[PK_NO_UP] = "no-up",
	[PK_NO_UV] = "no-uv",
	[PK_SIGNATURE] = "signature",
	[PK_COUNTER] = "counter",
	[PK_NOMEM] = "nomem",
};

const char *
pk_status_str(enum pk_status s)
{
	if ((unsigned)s >= sizeof(names) / sizeof(names[0]) || !names[s])
		return "unknown";
	return names[s];
}

static void
pk_init_once(void)
{
	if (sodium_init() < 0)
		abort();
	fido_init(0);
}

/* Once per process, whichever thread comes first (lockhub's are several). */
static void
pk_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)pthread_once(&once, pk_init_once);
}

/* libcbor's cbor_load() allocates a collection of the size its header
 * declares before reading it (a 5-byte map header asks for gigabytes:
 * found by fuzz_passkey). So the bytes are first walked with libcbor's
 * streaming decoder, which allocates nothing: every array or map must fit
 * in the bytes left, and indefinite lengths (never in WebAuthn's canonical
 * CBOR) are refused. */
struct cbor_scan {
	size_t left;
	int bad;
};

static void
scan_array(void *c, size_t n)
{
	struct cbor_scan *s = c;

	if (n > s->left)
		s->bad = 1;
}

static void
scan_map(void *c, size_t n)
{
	struct cbor_scan *s = c;

	if (n > s->left / 2)
		s->bad = 1;
}

static void
scan_indef(void *c)
{
	((struct cbor_scan *)c)->bad = 1;
}

static int
cbor_bounded(const uint8_t *d, size_t len)
{
	struct cbor_callbacks cb = cbor_empty_callbacks;
	struct cbor_decoder_result r;
	struct cbor_scan s = { 0, 0 };
	size_t off = 0;

	cb.array_start = scan_array;
	cb.map_start = scan_map;
	cb.indef_array_start = scan_indef;
	cb.indef_map_start = scan_indef;
	cb.byte_string_start = scan_indef;
	cb.string_start = scan_indef;
	while (off < len) {
		s.left = len - off;
		r = cbor_stream_decode(d + off, len - off, &cb, &s);
		if (r.status != CBOR_DECODER_FINISHED || r.read == 0 || s.bad)
			return 0;
		off += r.read;
	}
	return 1;
}

/* One CBOR item that is exactly d[0..len), or NULL. */
static cbor_item_t *
cbor_exact(const uint8_t *d, size_t len)
{
	struct cbor_load_result res;
	cbor_item_t *it;

	if (len == 0 || !cbor_bounded(d, len))
		return NULL;
	it = cbor_load(d, len, &res);
	if (it == NULL)
		return NULL;
	if (res.error.code != CBOR_ERR_NONE || res.read != len) {
		cbor_decref(&it);
		return NULL;
	}
	return it;
}

static int
cbor_small_int(const cbor_item_t *it, int64_t *v)
{
	uint64_t u;

	if (cbor_isa_uint(it)) {
		u = cbor_get_int(it);
		if (u > 1000)
			return -1;
		*v = (int64_t)u;
		return 0;
	}
	if (cbor_isa_negint(it)) {
		u = cbor_get_int(it);
		if (u > 1000)
			return -1;
		*v = -1 - (int64_t)u;
		return 0;
	}
	return -1;
}

static int
cbor_bytes32(const cbor_item_t *it, uint8_t out[32])
{
	if (!cbor_isa_bytestring(it) || !cbor_bytestring_is_definite(it) ||
	    cbor_bytestring_length(it) != 32)
		return -1;
	memcpy(out, cbor_bytestring_handle(it), 32);
	return 0;
}

/* The COSE key's fields: EC2/P-256/ES256 (kty 2, alg -7, crv 1, x, y) or
 * OKP/Ed25519/EdDSA (kty 1, alg -8, crv 6, x), those labels only, none
 * twice, in a definite map that is the whole input. */
static enum pk_status
cose_fields(const uint8_t *cose, size_t len, int *alg, uint8_t x[32],
    uint8_t y[32])
{
	static const int64_t labels[] = { 1, 3, -1, -2, -3 };
	int64_t kty = 0, a = 0, crv = 0, lab;
	unsigned seen = 0, bit;
	struct cbor_pair *p;
	cbor_item_t *m;
	size_t i, n, j;
	enum pk_status st = PK_KEY;

	if (len == 0 || len > PK_MAX_COSE)
		return PK_KEY;
	if ((m = cbor_exact(cose, len)) == NULL)
		return PK_KEY;
	if (!cbor_isa_map(m) || !cbor_map_is_definite(m) ||
	    (n = cbor_map_size(m)) < 4 || n > 5)
		goto out;
	p = cbor_map_handle(m);
	for (i = 0; i < n; i++) {
		if (cbor_small_int(p[i].key, &lab) != 0)
			goto out;
		for (j = 0; j < 5 && labels[j] != lab; j++)
			;
		if (j == 5)
			goto out;
		bit = 1u << j;
		if (seen & bit)
			goto out;
		seen |= bit;
		if (lab == 1 && cbor_small_int(p[i].value, &kty) != 0)
			goto out;
		if (lab == 3 && cbor_small_int(p[i].value, &a) != 0)
			goto out;
		if (lab == -1 && cbor_small_int(p[i].value, &crv) != 0)
			goto out;
		if (lab == -2 && cbor_bytes32(p[i].value, x) != 0)
			goto out;
		if (lab == -3 && cbor_bytes32(p[i].value, y) != 0)
			goto out;
	}
	if (n == 5 && seen == 0x1f && kty == 2 && a == PK_ALG_ES256 &&
	    crv == 1) {
		es256_pk_t *pk = es256_pk_new();
		uint8_t pt[65];

		if (pk == NULL) {
			st = PK_NOMEM;
			goto out;
		}
		/* libfido2 refuses a point not on the curve. */
		pt[0] = 0x04;
		memcpy(pt + 1, x, 32);
		memcpy(pt + 33, y, 32);
		if (es256_pk_from_ptr(pk, pt, sizeof(pt)) == FIDO_OK) {
			*alg = PK_ALG_ES256;
			st = PK_OK;
		}
		es256_pk_free(&pk);
	} else if (n == 4 && seen == 0x0f && kty == 1 && a == PK_ALG_EDDSA &&
	    crv == 6) {
		*alg = PK_ALG_EDDSA;
		memset(y, 0, 32);
		st = PK_OK;
	}
out:
	cbor_decref(&m);
	return st;
}

enum pk_status
pk_key_parse(const uint8_t *cose, size_t len, struct pk_key *out)
{
	crypto_generichash_state h;
	uint8_t x[32], y[32];
	enum pk_status st;
	int alg = 0;

	pk_init();
	memset(out, 0, sizeof(*out));
	if ((st = cose_fields(cose, len, &alg, x, y)) != PK_OK)
		return st;
	out->alg = alg;
	memcpy(out->cose, cose, len);
	out->cose_len = len;
	crypto_generichash_init(&h, NULL, 0, PK_ID_LEN);
	crypto_generichash_update(&h, (const uint8_t *)PK_ID_DOMAIN,
	    strlen(PK_ID_DOMAIN));
	crypto_generichash_update(&h, cose, len);
	crypto_generichash_final(&h, out->id, PK_ID_LEN);
	return PK_OK;
}

int
pk_key_to_text(const struct pk_key *k, char *out, size_t outlen)
{
	size_t need = 5 + sodium_base64_ENCODED_LEN(k->cose_len,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);

	if (k->cose_len == 0 || k->cose_len > PK_MAX_COSE || outlen < need)
		return -1;
	memcpy(out, "cose:", 5);
	sodium_bin2base64(out + 5, outlen - 5, k->cose, k->cose_len,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return 0;
}

enum pk_status
pk_key_from_text(const char *text, struct pk_key *out)
{
	uint8_t cose[PK_MAX_COSE];
	char again[PK_TEXT_MAX];
	const char *end = NULL;
	size_t n = 0, tl;
	enum pk_status st;

	pk_init();
	memset(out, 0, sizeof(*out));
	if (text == NULL || strncmp(text, "cose:", 5) != 0)
		return PK_FORMAT;
	tl = strlen(text + 5);
	if (tl == 0 || tl > PK_TEXT_MAX - 6)
		return PK_FORMAT;
	if (sodium_base642bin(cose, sizeof(cose), text + 5, tl, NULL, &n,
	    &end, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    end != text + 5 + tl)
		return PK_FORMAT;
	if ((st = pk_key_parse(cose, n, out)) != PK_OK)
		return st;
	/* One spelling per key: the text must be what we would write. */
	if (pk_key_to_text(out, again, sizeof(again)) != 0 ||
	    strcmp(again, text) != 0) {
		memset(out, 0, sizeof(*out));
		return PK_FORMAT;
	}
	return PK_OK;
}

void
pk_decision_challenge(uint8_t out[32], uint8_t verdict,
    uint32_t mute_minutes, const uint8_t (*ticket_hashes)[32], size_t n)
{
	crypto_hash_sha256_state h;
	uint8_t b[9];
	size_t i;

	pk_init();
	b[0] = verdict;
	b[1] = mute_minutes >> 24;
	b[2] = mute_minutes >> 16;
	b[3] = mute_minutes >> 8;
	b[4] = mute_minutes;
	b[5] = (uint32_t)n >> 24;
	b[6] = (uint32_t)n >> 16;
	b[7] = (uint32_t)n >> 8;
	b[8] = (uint32_t)n;
	crypto_hash_sha256_init(&h);
	/* The domain with its NUL: the 0x00 of the contract. */
	crypto_hash_sha256_update(&h, (const uint8_t *)PK_DEC_DOMAIN,
	    strlen(PK_DEC_DOMAIN) + 1);
	crypto_hash_sha256_update(&h, b, sizeof(b));
	for (i = 0; i < n; i++)
		crypto_hash_sha256_update(&h, ticket_hashes[i], 32);
	crypto_hash_sha256_final(&h, out);
}

/* clientDataJSON: a JSON object (no duplicate member) of the type, with
 * the challenge (base64url, no padding, the one spelling), the origin, and
 * neither crossOrigin true nor a topOrigin (an iframe's). */
static enum pk_status
client_data(const uint8_t *cdj, size_t len, const char *type,
    const uint8_t *challenge, size_t clen, const char *origin)
{
	char want[sodium_base64_ENCODED_LEN(CHAL_MAX,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
	json_error_t jerr;
	json_t *o, *v;
	enum pk_status st = PK_FORMAT;

	if (cdj == NULL || len < 1 || len > CDJ_MAX || challenge == NULL ||
	    clen < 1 || clen > CHAL_MAX || origin == NULL)
		return PK_FORMAT;
	o = json_loadb((const char *)cdj, len, JSON_REJECT_DUPLICATES, &jerr);
	if (o == NULL)
		return PK_FORMAT;
	if (!json_is_object(o))
		goto out;
	v = json_object_get(o, "type");
	if (!json_is_string(v))
		goto out;
	if (strcmp(json_string_value(v), type) != 0) {
		st = PK_TYPE;
		goto out;
	}
	v = json_object_get(o, "challenge");
	if (!json_is_string(v))
		goto out;
	sodium_bin2base64(want, sizeof(want), challenge, clen,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	if (strcmp(json_string_value(v), want) != 0) {
		st = PK_CHALLENGE;
		goto out;
	}
	v = json_object_get(o, "origin");
	if (!json_is_string(v))
		goto out;
	if (strcmp(json_string_value(v), origin) != 0) {
		st = PK_ORIGIN;
		goto out;
	}
	v = json_object_get(o, "crossOrigin");
	if (v != NULL && !json_is_boolean(v))
		goto out;
	if (json_is_true(v) || json_object_get(o, "topOrigin") != NULL) {
		st = PK_ORIGIN;
		goto out;
	}
	st = PK_OK;
out:
	json_decref(o);
	return st;
}

struct authdata {
	uint8_t flags;
	uint32_t counter;
	const uint8_t *cred_id, *cose;
	size_t cred_id_len, cose_len;
};

/* Where the CBOR item starting at d ends (within len), or 0. */
static size_t
cbor_first_len(const uint8_t *d, size_t len)
{
	struct cbor_load_result res;
	cbor_item_t *it;

	if (len == 0 || !cbor_bounded(d, len) ||
	    (it = cbor_load(d, len, &res)) == NULL)
		return 0;
	cbor_decref(&it);
	return res.error.code == CBOR_ERR_NONE ? res.read : 0;
}

/* authenticatorData: rpIdHash, flags, counter; the attested credential
 * data when registering (AT set, and only then); the extensions (a CBOR
 * map) when ED is set; nothing else. Structure first (PK_FORMAT), then the
 * rpIdHash, UP and UV in that order. */
static enum pk_status
authdata_parse(const uint8_t *d, size_t len, const char *rp_id,
    int registration, struct authdata *a)
{
	uint8_t rph[32];
	size_t off = AD_MIN, n;
	cbor_item_t *ext;
	int ok;

	memset(a, 0, sizeof(*a));
	if (d == NULL || rp_id == NULL || len < AD_MIN ||
	    len > (registration ? ATT_MAX : AD_MAX))
		return PK_FORMAT;
	a->flags = d[32];
	a->counter = (uint32_t)d[33] << 24 | (uint32_t)d[34] << 16 |
	    (uint32_t)d[35] << 8 | d[36];
	if (!!(a->flags & F_AT) != !!registration)
		return PK_FORMAT;
	if (registration) {
		if (len - off < 18)
			return PK_FORMAT;
		off += 16;	/* AAGUID: the statement is not checked */
		a->cred_id_len = (size_t)d[off] << 8 | d[off + 1];
		off += 2;
		if (a->cred_id_len < 1 || a->cred_id_len > PK_MAX_CRED_ID ||
		    len - off < a->cred_id_len)
			return PK_FORMAT;
		a->cred_id = d + off;
		off += a->cred_id_len;
		n = cbor_first_len(d + off, len - off);
		if (n == 0 || n > PK_MAX_COSE)
			return PK_FORMAT;
		a->cose = d + off;
		a->cose_len = n;
		off += n;
	}
	if (a->flags & F_ED) {
		if ((ext = cbor_exact(d + off, len - off)) == NULL)
			return PK_FORMAT;
		ok = cbor_isa_map(ext) && cbor_map_is_definite(ext);
		cbor_decref(&ext);
		if (!ok)
			return PK_FORMAT;
	} else if (off != len)
		return PK_FORMAT;
	crypto_hash_sha256(rph, (const uint8_t *)rp_id, strlen(rp_id));
	if (sodium_memcmp(rph, d, 32) != 0)
		return PK_RP;
	if (!(a->flags & F_UP))
		return PK_NO_UP;
	if (!(a->flags & F_UV))
		return PK_NO_UV;
	return PK_OK;
}

/* The signature over authData || SHA-256(clientDataJSON), by libfido2. */
static enum pk_status
signature(int alg, const uint8_t x[32], const uint8_t y[32],
    const char *rp_id, const uint8_t *authdata, size_t authdata_len,
    const uint8_t *cdj, size_t cdj_len, const uint8_t *sig, size_t sig_len)
{
	uint8_t cdh[32], pt[65];
	fido_assert_t *a;
	es256_pk_t *es = NULL;
	eddsa_pk_t *ed = NULL;
	const void *pk;
	enum pk_status st = PK_SIGNATURE;
	int r;

	if (sig == NULL || sig_len < SIG_MIN || sig_len > SIG_MAX)
		return PK_FORMAT;
	if ((a = fido_assert_new()) == NULL)
		return PK_NOMEM;
	crypto_hash_sha256(cdh, cdj, cdj_len);
	if (alg == PK_ALG_ES256) {
		pt[0] = 0x04;
		memcpy(pt + 1, x, 32);
		memcpy(pt + 33, y, 32);
		if ((es = es256_pk_new()) == NULL) {
			st = PK_NOMEM;
			goto out;
		}
		if (es256_pk_from_ptr(es, pt, sizeof(pt)) != FIDO_OK) {
			st = PK_KEY;
			goto out;
		}
		pk = es;
	} else {
		if ((ed = eddsa_pk_new()) == NULL) {
			st = PK_NOMEM;
			goto out;
		}
		if (eddsa_pk_from_ptr(ed, x, 32) != FIDO_OK) {
			st = PK_KEY;
			goto out;
		}
		pk = ed;
	}
	if (fido_assert_set_count(a, 1) != FIDO_OK ||
	    fido_assert_set_rp(a, rp_id) != FIDO_OK ||
	    fido_assert_set_clientdata_hash(a, cdh, sizeof(cdh)) != FIDO_OK ||
	    fido_assert_set_authdata_raw(a, 0, authdata, authdata_len) !=
	    FIDO_OK ||
	    fido_assert_set_sig(a, 0, sig, sig_len) != FIDO_OK ||
	    fido_assert_set_up(a, FIDO_OPT_TRUE) != FIDO_OK ||
	    fido_assert_set_uv(a, FIDO_OPT_TRUE) != FIDO_OK)
		goto out;
	r = fido_assert_verify(a, 0, alg == PK_ALG_ES256 ? COSE_ES256 :
	    COSE_EDDSA, pk);
	if (r == FIDO_OK)
		st = PK_OK;
out:
	es256_pk_free(&es);
	eddsa_pk_free(&ed);
	fido_assert_free(&a);
	return st;
}

enum pk_status
pk_assertion_verify(const struct pk_key *key, const char *rp_id,
    const char *origin, const uint8_t *challenge, size_t challenge_len,
    const uint8_t *authdata, size_t authdata_len, const uint8_t *cdj,
    size_t cdj_len, const uint8_t *sig, size_t sig_len, uint32_t *counter)
{
	struct authdata ad;
	uint8_t x[32], y[32];
	enum pk_status st;
	int alg = 0;

	pk_init();
	if (counter != NULL)
		*counter = 0;
	if (key == NULL || rp_id == NULL || origin == NULL)
		return PK_FORMAT;
	/* The key as pinned: parsed again, never taken from the message. */
	if (cose_fields(key->cose, key->cose_len, &alg, x, y) != PK_OK ||
	    alg != key->alg)
		return PK_KEY;
	if ((st = client_data(cdj, cdj_len, "webauthn.get", challenge,
	    challenge_len, origin)) != PK_OK)
		return st;
	if ((st = authdata_parse(authdata, authdata_len, rp_id, 0, &ad)) !=
	    PK_OK)
		return st;
	if ((st = signature(alg, x, y, rp_id, authdata, authdata_len, cdj,
	    cdj_len, sig, sig_len)) != PK_OK)
		return st;
	if (counter != NULL)
		*counter = ad.counter;
	return PK_OK;
}

/* attestationObject: a definite map of exactly fmt (text), attStmt (a
 * map, not checked: the page asks for "none") and authData (bytes). */
static enum pk_status
attestation(const uint8_t *att, size_t len, const uint8_t **ad,
    size_t *ad_len, cbor_item_t **hold)
{
	struct cbor_pair *p;
	cbor_item_t *m;
	unsigned seen = 0;
	size_t i, kl;
	const char *k;

	*hold = NULL;
	if (att == NULL || len < 1 || len > ATT_MAX ||
	    (m = cbor_exact(att, len)) == NULL)
		return PK_FORMAT;
	if (!cbor_isa_map(m) || !cbor_map_is_definite(m) ||
	    cbor_map_size(m) != 3)
		goto bad;
	p = cbor_map_handle(m);
	for (i = 0; i < 3; i++) {
		if (!cbor_isa_string(p[i].key) ||
		    !cbor_string_is_definite(p[i].key))
			goto bad;
		k = (const char *)cbor_string_handle(p[i].key);
		kl = cbor_string_length(p[i].key);
		if (kl == 3 && memcmp(k, "fmt", 3) == 0 && !(seen & 1) &&
		    cbor_isa_string(p[i].value))
			seen |= 1;
		else if (kl == 7 && memcmp(k, "attStmt", 7) == 0 &&
		    !(seen & 2) && cbor_isa_map(p[i].value))
			seen |= 2;
		else if (kl == 8 && memcmp(k, "authData", 8) == 0 &&
		    !(seen & 4) && cbor_isa_bytestring(p[i].value) &&
		    cbor_bytestring_is_definite(p[i].value)) {
			seen |= 4;
			*ad = cbor_bytestring_handle(p[i].value);
			*ad_len = cbor_bytestring_length(p[i].value);
		} else
			goto bad;
	}
	*hold = m;
	return PK_OK;
bad:
	cbor_decref(&m);
	return PK_FORMAT;
}

enum pk_status
pk_registration(const uint8_t *att, size_t att_len, const uint8_t *cdj,
    size_t cdj_len, const char *rp_id, const char *origin,
    const uint8_t *challenge, size_t challenge_len, struct pk_key *key,
    uint8_t *cred_id, size_t *cred_id_len)
{
	struct authdata a;
	const uint8_t *ad = NULL;
	size_t ad_len = 0;
	cbor_item_t *hold = NULL;
	enum pk_status st;

	pk_init();
	memset(key, 0, sizeof(*key));
	*cred_id_len = 0;
	if (rp_id == NULL || origin == NULL)
		return PK_FORMAT;
	if ((st = client_data(cdj, cdj_len, "webauthn.create", challenge,
	    challenge_len, origin)) != PK_OK)
		return st;
	if ((st = attestation(att, att_len, &ad, &ad_len, &hold)) != PK_OK)
		return st;
	if ((st = authdata_parse(ad, ad_len, rp_id, 1, &a)) != PK_OK)
		goto out;
	if ((st = pk_key_parse(a.cose, a.cose_len, key)) != PK_OK)
		goto out;
	memcpy(cred_id, a.cred_id, a.cred_id_len);
	*cred_id_len = a.cred_id_len;
out:
	cbor_decref(&hold);
	return st;
}
