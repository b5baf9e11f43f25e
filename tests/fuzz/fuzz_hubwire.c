/* libFuzzer target for every hub layout parser (src/hubwire): TICKET,
 * DECISION-DEV, DECISION-HUB, the DECISION and DEVPOST envelopes, VALUES,
 * REQUEST, TICKETLIST and DECISIONLIST. The first byte picks the parser, the rest is the
 * message. Beyond ASan/UBSan it checks what the console, lox and the hub
 * rely on: whatever parses re-encodes (signed with a fixed key) to bytes
 * that parse to the same fields; text fields hold no NUL before their end
 * and fit their buffers; a parse error leaves no list count behind. */
#include "hubwire/keys.h"
#include "hubwire/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_hubwire: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hw_keypair key;

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
}

static void
ticket(const uint8_t *d, size_t n)
{
	static struct hw_ticket t, u;
	struct buf *b;

	if (hw_ticket_parse(d, n, &t) != HW_OK)
		return;
	CHECK(t.signed_len + 4 + HW_SIG_LEN == n);
	CHECK(strlen(t.screen.key) >= 1 && strlen(t.screen.key) <= HW_MAX_KEY);
	CHECK(t.screen.reveals == t.screen.nplugins);
	CHECK(hw_ticket_encode(&t, key.sk, &b) == HW_OK);
	/* Same fields, a new signature: the prefix is the same bytes. */
	CHECK(buf_len(b) == n);
	CHECK(memcmp(buf_data(b), d, t.signed_len) == 0);
	CHECK(hw_ticket_parse(buf_data(b), buf_len(b), &u) == HW_OK);
	CHECK(hw_verify(buf_data(b), u.signed_len, u.sig, key.pk) == HW_OK);
	memcpy(u.sig, t.sig, HW_SIG_LEN);
	CHECK(memcmp(&t, &u, sizeof(t)) == 0);
	buf_free(b);
}

static void
dev(const uint8_t *d, size_t n)
{
	struct hw_dev x, y;
	struct buf *b;

	if (hw_dev_parse(d, n, &x) != HW_OK)
		return;
	CHECK(hw_dev_encode(&x, key.sk, &b) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, x.signed_len) == 0);
	CHECK(hw_dev_parse(buf_data(b), buf_len(b), &y) == HW_OK);
	memcpy(y.sig, x.sig, HW_SIG_LEN);
	CHECK(memcmp(&x, &y, sizeof(x)) == 0);
	buf_free(b);
}

static void
hub(const uint8_t *d, size_t n)
{
	struct hw_hub x, y;
	struct buf *b;

	if (hw_hub_parse(d, n, &x) != HW_OK)
		return;
	CHECK(x.quorum >= 1 && x.quorum <= HW_MAX_QUORUM);
	CHECK(hw_hub_encode(&x, key.sk, &b) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, x.signed_len) == 0);
	CHECK(hw_hub_parse(buf_data(b), buf_len(b), &y) == HW_OK);
	memcpy(y.sig, x.sig, HW_SIG_LEN);
	CHECK(memcmp(&x, &y, sizeof(x)) == 0);
	buf_free(b);
}

static void
envelope(const uint8_t *d, size_t n, int decision)
{
	struct hw_envelope e, f;
	struct buf *b;
	struct hw_dev x;
	struct hw_hub y;

	if ((decision ? hw_decision_parse(d, n, &e) :
	    hw_devpost_parse(d, n, &e)) != HW_OK)
		return;
	CHECK(e.dev >= d && e.dev + e.dev_len <= d + n);
	CHECK(e.box >= d && e.box + e.box_len <= d + n);
	CHECK((decision ? hw_decision_encode(&e, &b) :
	    hw_devpost_encode(&e, &b)) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, n) == 0);
	CHECK((decision ? hw_decision_parse(buf_data(b), n, &f) :
	    hw_devpost_parse(buf_data(b), n, &f)) == HW_OK);
	buf_free(b);
	/* the console parses the parts next */
	(void)hw_dev_parse(e.dev, e.dev_len, &x);
	if (decision)
		(void)hw_hub_parse(e.hub, e.hub_len, &y);
}

static void
values(const uint8_t *d, size_t n)
{
	struct hw_values vs;
	size_t i;

	memset(&vs, 0, sizeof(vs));
	if (hw_values_parse(d, n, &vs) != HW_OK) {
		CHECK(vs.n == 0);
		return;
	}
	for (i = 0; i < vs.n; i++) {
		CHECK(vs.v[i].len >= 1 && vs.v[i].len <= HW_MAX_VALUE);
		CHECK(vs.v[i].bytes >= d && vs.v[i].bytes + vs.v[i].len <= d + n);
	}
}

static void
request(const uint8_t *d, size_t n)
{
	struct hw_request x, y;
	struct buf *b;

	if (hw_request_parse(d, n, &x) != HW_OK)
		return;
	CHECK(x.path[0] == '/');
	CHECK(hw_request_encode(&x, key.sk, &b) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, x.signed_len) == 0);
	CHECK(hw_request_parse(buf_data(b), buf_len(b), &y) == HW_OK);
	buf_free(b);
}

static void
list(const uint8_t *d, size_t n)
{
	static struct hw_list l;
	struct buf *b;
	size_t i;

	if (hw_list_parse(d, n, &l) != HW_OK)
		return;
	for (i = 0; i < l.n; i++)
		CHECK(l.items[i].seq <= l.seq);
	CHECK(hw_list_encode(&l, &b) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, n) == 0);
	buf_free(b);
	/* lox parses each ticket next */
	for (i = 0; i < l.n; i++)
		ticket(l.items[i].ticket, l.items[i].ticket_len);
}

static void
declist(const uint8_t *d, size_t n)
{
	static struct hw_declist l;
	struct buf *b;
	size_t i;

	if (hw_declist_parse(d, n, &l) != HW_OK) {
		CHECK(l.n == 0);
		return;
	}
	CHECK(l.n <= HW_MAX_DECLIST_ITEMS);
	CHECK(hw_declist_encode(&l, &b) == HW_OK);
	CHECK(buf_len(b) == n && memcmp(buf_data(b), d, n) == 0);
	buf_free(b);
	/* the console parses each envelope next */
	for (i = 0; i < l.n; i++)
		envelope(l.item[i], l.item_len[i], 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	init();
	if (size < 1)
		return 0;
	/* An exact-size copy: ASan catches a read past the end. */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 1, size - 1);
	switch (data[0] % 9) {
	case 0: ticket(copy, size - 1); break;
	case 1: dev(copy, size - 1); break;
	case 2: hub(copy, size - 1); break;
	case 3: envelope(copy, size - 1, 1); break;
	case 4: envelope(copy, size - 1, 0); break;
	case 5: values(copy, size - 1); break;
	case 6: request(copy, size - 1); break;
	case 7: list(copy, size - 1); break;
	case 8: declist(copy, size - 1); break;
	}
	free(copy);
	return 0;
}
