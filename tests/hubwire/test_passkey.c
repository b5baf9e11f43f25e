/* Unit tests for the passkey code (src/hubwire/passkey.c) and layouts
 * (passkey_msg.c): every vector of passkey_vectors.txt (made by a software
 * authenticator, tests/hubwire/make_passkey_vectors.py, ES256 and EdDSA)
 * gives its status: the good assertion passes with its counter; wrong
 * type, challenge, origin, crossOrigin, rpIdHash, UP off, UV off, a bad
 * signature, the other algorithm's key and trailing bytes are refused with
 * theirs. CARD, DECISION-PK and DECISION-P encode and parse back, and
 * every truncation, a trailing byte and each out-of-limit field are
 * refused. cmocka, TAP output.
 *
 *   test_passkey VECTORS */
#include "hubwire/keys.h"
#include "hubwire/msg.h"
#include "hubwire/passkey.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

static const char *vectors_path;

static size_t
unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = strlen(s), i;

	if (strcmp(s, "-") == 0)
		return 0;
	assert_true(n % 2 == 0 && n / 2 <= max);
	for (i = 0; i < n / 2; i++) {
		unsigned v;
		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n / 2;
}

#define MAXW 12
static int
split(char *line, char **w)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(line, " \n", &save); t && n < MAXW;
	    t = strtok_r(NULL, " \n", &save))
		w[n++] = t;
	return n;
}

static uint8_t b1[8192], b2[8192], b3[8192], b4[8192];

static void
one_key(char **w)
{
	struct pk_key k, k2;
	char text[PK_TEXT_MAX];
	size_t n = unhex(w[3], b1, sizeof(b1));
	enum pk_status st = pk_key_parse(b1, n, &k);

	if (strcmp(pk_status_str(st), w[2]) != 0)
		fail_msg("key %s: %s, want %s", w[1], pk_status_str(st), w[2]);
	if (st != PK_OK)
		return;
	unhex(w[4], b2, 32);
	assert_memory_equal(k.id, b2, 32);
	assert_int_equal(pk_key_to_text(&k, text, sizeof(text)), 0);
	assert_string_equal(text, w[5]);
	assert_int_equal(pk_key_from_text(text, &k2), PK_OK);
	assert_memory_equal(&k, &k2, sizeof(k));
	assert_int_equal(pk_key_to_text(&k, text, 10), -1);
	/* Another spelling is refused; another key has another id. */
	text[strlen(text) - 1] ^= 1;
	if (pk_key_from_text(text, &k2) == PK_OK)
		assert_memory_not_equal(k.id, k2.id, 32);
	text[strlen(text) - 1] ^= 1;
	strcat(text, "A");
	assert_int_not_equal(pk_key_from_text(text, &k2), PK_OK);
	assert_int_equal(pk_key_from_text(w[5] + 1, &k2), PK_FORMAT);
}

static void
one_assert(char **w)
{
	struct pk_key k;
	size_t nk, nc, na, nd, ns;
	uint8_t chal[64];
	uint32_t counter = 99;
	enum pk_status st;

	nk = unhex(w[4], b1, sizeof(b1));
	assert_int_equal(pk_key_parse(b1, nk, &k), PK_OK);
	nc = unhex(w[7], chal, sizeof(chal));
	na = unhex(w[8], b2, sizeof(b2));
	nd = unhex(w[9], b3, sizeof(b3));
	ns = unhex(w[10], b4, sizeof(b4));
	st = pk_assertion_verify(&k, w[5], w[6], chal, nc, b2, na, b3, nd, b4,
	    ns, &counter);
	if (strcmp(pk_status_str(st), w[2]) != 0)
		fail_msg("assert %s: %s, want %s", w[1], pk_status_str(st),
		    w[2]);
	assert_int_equal(counter, strtoul(w[3], NULL, 10));
	if (st != PK_OK)
		return;
	/* The same assertion under another rp id, origin or challenge. */
	assert_int_equal(pk_assertion_verify(&k, "localhost.", w[6], chal, nc,
	    b2, na, b3, nd, b4, ns, &counter), PK_RP);
	assert_int_equal(pk_assertion_verify(&k, w[5], "https://localhost",
	    chal, nc, b2, na, b3, nd, b4, ns, &counter), PK_ORIGIN);
	chal[0] ^= 1;
	assert_int_equal(pk_assertion_verify(&k, w[5], w[6], chal, nc, b2, na,
	    b3, nd, b4, ns, &counter), PK_CHALLENGE);
	chal[0] ^= 1;
	/* Every truncation of each part is refused. */
	for (size_t i = 0; i < na; i++)
		assert_int_not_equal(pk_assertion_verify(&k, w[5], w[6], chal,
		    nc, b2, i, b3, nd, b4, ns, NULL), PK_OK);
	for (size_t i = 0; i < nd; i++)
		assert_int_not_equal(pk_assertion_verify(&k, w[5], w[6], chal,
		    nc, b2, na, b3, i, b4, ns, NULL), PK_OK);
	for (size_t i = 0; i < ns; i++)
		assert_int_not_equal(pk_assertion_verify(&k, w[5], w[6], chal,
		    nc, b2, na, b3, nd, b4, i, NULL), PK_OK);
}

static void
one_reg(char **w)
{
	struct pk_key k;
	uint8_t chal[64], cred[PK_MAX_CRED_ID], want[PK_MAX_CRED_ID];
	size_t nc, na, nd, ncred = 0, nwant;
	enum pk_status st;

	nc = unhex(w[5], chal, sizeof(chal));
	na = unhex(w[6], b1, sizeof(b1));
	nd = unhex(w[7], b2, sizeof(b2));
	st = pk_registration(b1, na, b2, nd, w[3], w[4], chal, nc, &k, cred,
	    &ncred);
	if (strcmp(pk_status_str(st), w[2]) != 0)
		fail_msg("reg %s: %s, want %s", w[1], pk_status_str(st), w[2]);
	if (st != PK_OK) {
		assert_int_equal(ncred, 0);
		return;
	}
	assert_int_equal(k.cose_len, unhex(w[8], b3, sizeof(b3)));
	assert_memory_equal(k.cose, b3, k.cose_len);
	nwant = unhex(w[9], want, sizeof(want));
	assert_int_equal(ncred, nwant);
	assert_memory_equal(cred, want, ncred);
	for (size_t i = 0; i < na; i++)
		assert_int_not_equal(pk_registration(b1, i, b2, nd, w[3], w[4],
		    chal, nc, &k, cred, &ncred), PK_OK);
}

static void
one_challenge(char **w)
{
	uint8_t hs[16][32], out[32], want[32];
	size_t n = unhex(w[3], (uint8_t *)hs, sizeof(hs)) / 32;

	pk_decision_challenge(out, (uint8_t)atoi(w[1]),
	    (uint32_t)strtoul(w[2], NULL, 10), (const uint8_t (*)[32])hs, n);
	unhex(w[4], want, 32);
	assert_memory_equal(out, want, 32);
}

static void
test_vectors(void **state)
{
	char line[32768], *w[MAXW];
	int counts[5] = { 0 };
	FILE *f = fopen(vectors_path, "r");

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		int n;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		n = split(line, w);
		if (strcmp(w[0], "key") == 0 && n == 6) {
			one_key(w);
			counts[0]++;
		} else if (strcmp(w[0], "assert") == 0 && n == 11) {
			one_assert(w);
			counts[1]++;
		} else if (strcmp(w[0], "reg") == 0 && n == 10) {
			one_reg(w);
			counts[2]++;
		} else if (strcmp(w[0], "challenge") == 0 && n == 5) {
			one_challenge(w);
			counts[3]++;
		} else
			fail_msg("bad vector line: %s", w[0]);
	}
	fclose(f);
	/* Both algorithms, every spoiled case (make_passkey_vectors.py). */
	assert_true(counts[0] >= 14 && counts[1] >= 30 && counts[2] >= 16 &&
	    counts[3] >= 3);
}

static void
test_status_names(void **state)
{
	(void)state;
	assert_string_equal(pk_status_str(PK_NO_UV), "no-uv");
	assert_string_equal(pk_status_str(PK_COUNTER), "counter");
	assert_string_equal(pk_status_str((enum pk_status)99), "unknown");
}

/* ---- layouts ---- */

static struct hw_keypair kp;

static void
sample_card(struct hw_card *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->instance, "box-1");
	strcpy(c->ticket, "t_0123456789abcdef0123456789abcdef");
	memset(c->ticket_hash, 0xab, 32);
	c->nlines = 3;
	strcpy(c->lines[0], "Approve this plan?");
	strcpy(c->lines[1], "");
	strcpy(c->lines[2], "  key: reports/q3.pdf \\x1b[31m");
}

static void
test_card(void **state)
{
	static struct hw_card c, p;
	struct buf *b = NULL;
	uint8_t *d;
	size_t i, n;

	(void)state;
	sample_card(&c);
	assert_int_equal(hw_card_encode(&c, kp.sk, &b), HW_OK);
	n = buf_len(b);
	d = malloc(n + 1);
	memcpy(d, buf_data(b), n);
	assert_int_equal(hw_card_parse(d, n, &p), HW_OK);
	assert_int_equal(hw_verify(d, p.signed_len, p.sig, kp.pk), HW_OK);
	memcpy(c.sig, p.sig, 64);
	c.signed_len = p.signed_len;
	assert_memory_equal(&c, &p, sizeof(c));
	for (i = 0; i < n; i++) {
		assert_int_not_equal(hw_card_parse(d, i, &p), HW_OK);
		assert_int_equal(p.nlines, 0);
	}
	d[n] = 0;
	assert_int_equal(hw_card_parse(d, n + 1, &p), HW_E_TRAILING);
	buf_free(b);
	/* A control byte, too many lines: never signed. */
	c.lines[1][0] = 0x1b;
	assert_int_equal(hw_card_encode(&c, kp.sk, &b), HW_E_VALUE);
	sample_card(&c);
	c.nlines = HW_MAX_CARD_LINES + 1;
	assert_int_equal(hw_card_encode(&c, kp.sk, &b), HW_E_COUNT);
	/* The largest card fits its cap. */
	c.nlines = HW_MAX_CARD_LINES;
	for (i = 0; i < c.nlines; i++) {
		memset(c.lines[i], '~', HW_MAX_CARD_LINE);
		c.lines[i][HW_MAX_CARD_LINE] = 0;
	}
	assert_int_equal(hw_card_encode(&c, kp.sk, &b), HW_OK);
	assert_int_equal(hw_card_parse(buf_data(b), buf_len(b), &p), HW_OK);
	buf_free(b);
	free(d);
}

static const uint8_t ad[37] = { 1, 2, 3 }, cdj[] = "{}", sig[70] = { 4 },
	cred[16] = { 5 };

static void
sample_pk(struct hw_pk *p)
{
	memset(p, 0, sizeof(*p));
	p->verdict = HW_APPROVE;
	p->nhashes = 2;
	memset(p->hashes[0], 1, 32);
	memset(p->hashes[1], 2, 32);
	memset(p->passkey_id, 3, 32);
	p->cred_id = cred;
	p->cred_id_len = sizeof(cred);
	p->authdata = ad;
	p->authdata_len = sizeof(ad);
	p->cdj = cdj;
	p->cdj_len = 2;
	p->sig = sig;
	p->sig_len = sizeof(sig);
}

static void
test_pk(void **state)
{
	static struct hw_pk p, q;
	struct buf *b = NULL, *e = NULL;
	struct hw_envelope env, got;
	uint8_t *d, h[32];
	size_t i, n;

	(void)state;
	sample_pk(&p);
	assert_int_equal(hw_pk_encode(&p, &b), HW_OK);
	n = buf_len(b);
	d = malloc(n + 1);
	memcpy(d, buf_data(b), n);
	assert_int_equal(hw_pk_parse(d, n, &q), HW_OK);
	assert_int_equal(q.verdict, 1);
	assert_int_equal(q.nhashes, 2);
	assert_memory_equal(q.hashes, p.hashes, 64);
	assert_memory_equal(q.sig, sig, sizeof(sig));
	assert_int_equal(q.cdj_len, 2);
	assert_true(hw_pk_names(&q, p.hashes[1]));
	memset(h, 9, 32);
	assert_false(hw_pk_names(&q, h));
	for (i = 0; i < n; i++) {
		assert_int_not_equal(hw_pk_parse(d, i, &q), HW_OK);
		assert_int_equal(q.nhashes, 0);
	}
	d[n] = 0;
	assert_int_equal(hw_pk_parse(d, n + 1, &q), HW_E_TRAILING);
	/* The envelope. */
	env.dev = d;
	env.dev_len = n;
	env.hub = d;		/* any bytes: the framing only */
	env.hub_len = 40;
	assert_int_equal(hw_decp_encode(&env, &e), HW_OK);
	assert_int_equal(hw_decp_parse(buf_data(e), buf_len(e), &got), HW_OK);
	assert_int_equal(got.dev_len, n);
	assert_memory_equal(got.dev, d, n);
	assert_int_equal(got.hub_len, 40);
	for (i = 0; i < buf_len(e); i++)
		assert_int_not_equal(hw_decp_parse(buf_data(e), i, &got), HW_OK);
	assert_int_equal(hw_decision_parse(buf_data(e), buf_len(e),
	    &(struct hw_envelope){ 0 }), HW_E_MAGIC);
	buf_free(e);
	buf_free(b);
	/* Semantics the encoder refuses and the parser too. */
	p.verdict = HW_DENY_MUTE;
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_VALUE);	/* no minutes */
	p.mute_minutes = 1441;
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_VALUE);
	p.mute_minutes = 30;
	assert_int_equal(hw_pk_encode(&p, &b), HW_OK);
	assert_int_equal(hw_pk_parse(buf_data(b), buf_len(b), &q), HW_OK);
	assert_int_equal(q.mute_minutes, 30);
	buf_free(b);
	p.verdict = HW_APPROVE;
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_VALUE);	/* minutes */
	sample_pk(&p);
	memset(p.hashes[1], 1, 32);
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_VALUE);	/* twice */
	sample_pk(&p);
	p.nhashes = 0;
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_COUNT);
	p.nhashes = 17;
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_COUNT);
	sample_pk(&p);
	p.authdata_len = 36;
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_LENGTH);
	sample_pk(&p);
	p.sig_len = 7;
	assert_int_equal(hw_pk_encode(&p, &b), HW_E_LENGTH);
	/* A verdict 3 and minutes on an approval, in the parser. */
	sample_pk(&p);
	assert_int_equal(hw_pk_encode(&p, &b), HW_OK);
	memcpy(d, buf_data(b), buf_len(b));
	d[HW_HEADER_LEN + 4] = 3;
	assert_int_equal(hw_pk_parse(d, buf_len(b), &q), HW_E_VALUE);
	d[HW_HEADER_LEN + 4] = 1;
	d[HW_HEADER_LEN + 5 + 4 + 3] = 1;
	assert_int_equal(hw_pk_parse(d, buf_len(b), &q), HW_E_VALUE);
	buf_free(b);
	free(d);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_card),
		cmocka_unit_test(test_pk),
	};
	uint8_t seed[32];

	if (argc != 2) {
		fprintf(stderr, "usage: test_passkey VECTORS\n");
		return 2;
	}
	vectors_path = argv[1];
	if (sodium_init() < 0)
		return 1;
	memset(seed, 3, sizeof(seed));
	hw_key_from_seed(&kp, seed);
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
