/* Passkeys (WebAuthn) for decisions from the hub's page (docs/hub.md,
 * "Passkeys"): a passkey's COSE key and its id, the registration the page
 * sends the hub, the challenge a decision signs and the verification of an
 * assertion, which the console does itself before anything runs.
 *
 * The API is the contract shared by the console and the hub
 * (docs/hub.md, "Passkeys"): do not change it on one side only. Every
 * input is untrusted: parsed once, strictly, with limits; the CBOR with
 * libcbor, the client data with jansson, the signatures with libfido2. */
#ifndef LOCKFILE_HUBWIRE_PASSKEY_H
#define LOCKFILE_HUBWIRE_PASSKEY_H

#include <stddef.h>
#include <stdint.h>

#define PK_MAX_COSE	160
#define PK_MAX_CRED_ID	1023
#define PK_ID_LEN	32
#define PK_TEXT_MAX	(5 + 216 + 1)	/* "cose:" + base64url(160) + NUL */
#define PK_ALG_ES256	(-7)
#define PK_ALG_EDDSA	(-8)
#define PK_MAX_MUTE	1440		/* minutes, verdict 2 */
#define PK_MAX_HASHES	16		/* ticket hashes one gesture signs */

enum pk_status { PK_OK = 0, PK_FORMAT, PK_KEY, PK_TYPE, PK_CHALLENGE,
    PK_ORIGIN, PK_RP, PK_NO_UP, PK_NO_UV, PK_SIGNATURE, PK_COUNTER,
    PK_NOMEM };

const char *pk_status_str(enum pk_status);	/* static text */

struct pk_key {
	int alg;			/* -7 or -8 */
	uint8_t cose[PK_MAX_COSE];
	size_t cose_len;
	uint8_t id[PK_ID_LEN];
};

/* A COSE key's bytes: strict (only the keys of its kind, the right curve
 * and lengths); fills id. */
enum pk_status pk_key_parse(const uint8_t *cose, size_t len,
    struct pk_key *out);
/* Text form "cose:..." both ways. */
enum pk_status pk_key_from_text(const char *text, struct pk_key *out);
int pk_key_to_text(const struct pk_key *k, char *out, size_t outlen);
/* A registration: attestationObject (CBOR map fmt/attStmt/authData; the
 * statement is ignored: "none" is what the page asks) and clientDataJSON
 * (type "webauthn.create", challenge == the bytes given, origin).
 * authData: rpIdHash == SHA-256(rp_id), UP and UV set, AT set, the
 * credential id and COSE key parsed. cred_id holds PK_MAX_CRED_ID bytes. */
enum pk_status pk_registration(const uint8_t *att, size_t att_len,
    const uint8_t *cdj, size_t cdj_len, const char *rp_id,
    const char *origin, const uint8_t *challenge, size_t challenge_len,
    struct pk_key *key, uint8_t *cred_id, size_t *cred_id_len);
/* challenge = SHA-256("lockhub/passkey/v1/decision" || 0x00 || verdict ||
 * mute minutes (u32 BE) || n (u32 BE) || the n ticket hashes). */
void pk_decision_challenge(uint8_t out[32], uint8_t verdict,
    uint32_t mute_minutes, const uint8_t (*ticket_hashes)[32], size_t n);
/* An assertion: clientDataJSON (JSON object; type "webauthn.get";
 * challenge == the bytes given; origin == origin; crossOrigin absent or
 * false), authData (rpIdHash == SHA-256(rp_id); UP and UV set), the
 * signature with the key (libfido2 fido_assert_verify: ES256 DER, EdDSA
 * 64 bytes). *counter gets authData's counter. */
enum pk_status pk_assertion_verify(const struct pk_key *key,
    const char *rp_id, const char *origin, const uint8_t *challenge,
    size_t challenge_len, const uint8_t *authdata, size_t authdata_len,
    const uint8_t *cdj, size_t cdj_len, const uint8_t *sig, size_t sig_len,
    uint32_t *counter);

#endif
