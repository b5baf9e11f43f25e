/* libFuzzer target for the passkey parsers (docs/hub.md, "Passkeys"): the
 * CARD, DECISION-PK and DECISION-P layouts, a COSE key, a registration and
 * an assertion. The first byte picks the parser; for the registration and
 * the assertion the rest is split into parts by u16 big-endian lengths.
 * Beyond ASan/UBSan it checks what the console and the hub rely on: a
 * layout that parses re-encodes to the same bytes (one encoding per
 * message), a key that parses is at most PK_MAX_COSE bytes of one of the
 * two algorithms and its text form parses back to it, and an assertion
 * that verifies gives authData's counter (and a refused one gives 0). */
#include "hubwire/keys.h"
#include "hubwire/msg.h"
#include "hubwire/passkey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_passkey: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hw_keypair key;
static struct pk_key es, ed;

/* The software authenticator's two keys (tests/hub/softpasskey.py). */
static const char ES_TEXT[] = "cose:pQECAyYgASFYIA916elqW_9_TXXPeMvSismjo8Gt"
    "YRZsRcDJqUJC3yxOIlggX5lZqPI6d84lXKavxihds3SgjycEqxBoQ-LbMCdQpQ0";
static const char ED_TEXT[] = "cose:pAEBAycgBiFYIIqI4910CfGV_VLbLTy6XXLKZwm_"
    "HZQSG_N0iAG0D29c";

static void
init(void)
{
	static int done;
	uint8_t seed[32];

	if (done)
		return;
	done = 1;
	if (sodium_init() < 0)
		abort();
	memset(seed, 7, sizeof(seed));
	hw_key_from_seed(&key, seed);
	CHECK(pk_key_from_text(ES_TEXT, &es) == PK_OK);
	CHECK(pk_key_from_text(ED_TEXT, &ed) == PK_OK);
}

static void
card(const uint8_t *d, size_t n)
{
	static struct hw_card c;
	struct buf *b;

	if (hw_card_parse(d, n, &c) != HW_OK)
		return;
	CHECK(c.nlines <= HW_MAX_CARD_LINES);
	CHECK(hw_card_encode(&c, key.sk, &b) == HW_OK);
	CHECK(buf_len(b) == n);
	CHECK(memcmp(buf_data(b), d, c.signed_len) == 0);
	buf_free(b);
}

static void
pk(const uint8_t *d, size_t n)
{
	static struct hw_pk p;
	struct buf *b;

	if (hw_pk_parse(d, n, &p) != HW_OK)
		return;
	CHECK(p.nhashes >= 1 && p.nhashes <= HW_MAX_PK_HASHES);
	CHECK(hw_pk_encode(&p, &b) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, n) == 0);
	buf_free(b);
}

static void
decp(const uint8_t *d, size_t n)
{
	struct hw_envelope e;
	struct buf *b;

	if (hw_decp_parse(d, n, &e) != HW_OK)
		return;
	CHECK(hw_decp_encode(&e, &b) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, n) == 0);
	buf_free(b);
}

static void
cose(const uint8_t *d, size_t n)
{
	struct pk_key k, k2;
	char text[PK_TEXT_MAX];

	if (pk_key_parse(d, n, &k) != PK_OK)
		return;
	CHECK(n <= PK_MAX_COSE && k.cose_len == n);
	CHECK(k.alg == PK_ALG_ES256 || k.alg == PK_ALG_EDDSA);
	CHECK(pk_key_to_text(&k, text, sizeof(text)) == 0);
	CHECK(pk_key_from_text(text, &k2) == PK_OK);
	CHECK(memcmp(&k, &k2, sizeof(k)) == 0);
}

/* Up to 4 parts, each a u16 length and its bytes. */
static size_t
parts(const uint8_t *d, size_t n, const uint8_t **p, size_t *l, size_t max)
{
	size_t i, off = 0;

	for (i = 0; i < max; i++) {
		if (n - off < 2)
			break;
		l[i] = (size_t)d[off] << 8 | d[off + 1];
		off += 2;
		if (l[i] > n - off)
			l[i] = n - off;
		p[i] = d + off;
		off += l[i];
	}
	return i;
}

static void
registration(const uint8_t *d, size_t n)
{
	static const uint8_t chal[32] = { 100 };
	const uint8_t *p[2];
	size_t l[2], cl = 0;
	uint8_t cred[PK_MAX_CRED_ID];
	struct pk_key k;

	if (parts(d, n, p, l, 2) != 2)
		return;
	if (pk_registration(p[0], l[0], p[1], l[1], "localhost",
	    "https://localhost:8443", chal, sizeof(chal), &k, cred, &cl) !=
	    PK_OK)
		return;
	CHECK(cl >= 1 && cl <= PK_MAX_CRED_ID);
	CHECK(k.alg == PK_ALG_ES256 || k.alg == PK_ALG_EDDSA);
}

static void
assertion(const uint8_t *d, size_t n)
{
	uint8_t chal[32];
	const uint8_t *p[3];
	size_t l[3];
	uint32_t counter;
	static const uint8_t h[1][32] = { { 0 } };

	if (parts(d, n, p, l, 3) != 3)
		return;
	pk_decision_challenge(chal, 1, 0, h, 1);
	/* Whatever verifies has its counter from authData's bytes 33..36
	 * (the seeds hold valid assertions of both keys). */
	for (int i = 0; i < 2; i++) {
		enum pk_status st = pk_assertion_verify(i ? &ed : &es,
		    "localhost", "https://localhost:8443", chal, 32, p[0], l[0],
		    p[1], l[1], p[2], l[2], &counter);
		CHECK(st >= PK_OK && st <= PK_NOMEM);
		if (st == PK_OK)
			CHECK(l[0] >= 37 && counter == ((uint32_t)p[0][33] << 24 |
			    (uint32_t)p[0][34] << 16 | (uint32_t)p[0][35] << 8 |
			    p[0][36]));
		else
			CHECK(counter == 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	init();
	if (size < 1)
		return 0;
	switch (data[0] % 6) {
	case 0: card(data + 1, size - 1); break;
	case 1: pk(data + 1, size - 1); break;
	case 2: decp(data + 1, size - 1); break;
	case 3: cose(data + 1, size - 1); break;
	case 4: registration(data + 1, size - 1); break;
	default: assertion(data + 1, size - 1); break;
	}
	return 0;
}
