/* libFuzzer target for lockhub's request logic (src/hub/api.c) on an
 * in-memory store: each endpoint's body parser behind a valid signature
 * (the first byte picks the endpoint, the rest is the body), the
 * Lockhub-Auth header parser, and the router on arbitrary paths. Checks:
 * no crash, leak or overread; every answer is a status the API documents,
 * with a static text or a binary body; nothing that does not verify
 * reaches the store (the ticket count and the decision stay as they were
 * unless the input is a well-signed message, which a fuzzer cannot
 * forge). */
#include "hub/hub.h"
#include "hubwire/keys.h"
#include "hubwire/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_hub_api: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOW 1767225600000LL
#define TID "t_00112233445566778899aabbccddeeff"

static struct hub H;
static struct hw_keypair inst, dev;
static unsigned long long counter;

static long long
fixed_clock(void)
{
	return NOW;
}

static void
init(void)
{
	static int done;
	static struct hw_ticket t;
	uint8_t seed[32];
	struct hs_key k;
	struct buf *b;
	const char *why;
	uint64_t seq;

	if (done)
		return;
	done = 1;
	if (sodium_init() < 0)
		abort();
	hub_cfg_defaults(&H.cfg);
	H.clock_ms = fixed_clock;
	/* the phone page's API on (page_api.c) */
	H.rp_id = "localhost";
	H.origin = "https://localhost";
	memset(seed, 3, 32);
	hw_key_from_seed(&H.key, seed);
	memset(seed, 1, 32);
	hw_key_from_seed(&inst, seed);
	memset(seed, 2, 32);
	hw_key_from_seed(&dev, seed);
	if (hub_store_sqlite_open(&H.store, ":memory:", &why) != 0)
		abort();
	memset(&k, 0, sizeof(k));
	k.role = HW_ROLE_INSTANCE;
	strcpy(k.name, "desk");
	memcpy(k.pk, inst.pk, 32);
	CHECK(H.store.ops->enroll(&H.store, &k) == HS_OK);
	k.role = HW_ROLE_DEVICE;
	strcpy(k.name, "alice");
	memcpy(k.pk, dev.pk, 32);
	CHECK(H.store.ops->enroll(&H.store, &k) == HS_OK);
	/* One ticket to decide on. */
	memset(&t, 0, sizeof(t));
	strcpy(t.instance, "desk");
	memcpy(t.instance_key, inst.pk, 32);
	strcpy(t.id, TID);
	t.created_ms = NOW;
	t.expires_ms = NOW + 300000;
	strcpy(t.agent_label, "uid 1000");
	strcpy(t.screen.profile, "p");
	strcpy(t.screen.key, "k");
	t.screen.left_before = 1;
	t.napprovers = 1;
	memcpy(t.approvers[0], dev.pk, 32);
	CHECK(hw_ticket_encode(&t, inst.sk, &b) == HW_OK);
	CHECK(H.store.ops->put_ticket(&H.store, TID, "desk", buf_data(b),
	    buf_len(b), (const uint8_t (*)[32])t.approvers, t.napprovers, NOW,
	    NOW + 600000, &seq) == HS_OK);
	buf_free(b);
}

/* A valid Lockhub-Auth header for this request, a fresh nonce each time
 * (NULL when the path cannot be signed). */
static char *
auth_for(const char *method, const char *path, const uint8_t *body,
    size_t len, const struct hw_keypair *kp)
{
	struct hw_request q;
	struct buf *b;
	char *out;
	size_t olen;

	memset(&q, 0, sizeof(q));
	snprintf(q.method, sizeof(q.method), "%s", method);
	snprintf(q.path, sizeof(q.path), "%s", path);
	hw_hash(body, len, q.body_hash);
	q.time_ms = NOW;
	counter++;
	memcpy(q.nonce, &counter, sizeof(counter));
	memcpy(q.key, kp->pk, 32);
	/* A path outside the alphabet cannot be signed: sent unsigned. */
	if (hw_request_encode(&q, kp->sk, &b) != HW_OK)
		return NULL;
	olen = sodium_base64_ENCODED_LEN(buf_len(b),
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	out = malloc(olen);
	CHECK(out != NULL);
	sodium_bin2base64(out, olen, buf_data(b), buf_len(b),
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	buf_free(b);
	return out;
}

static void
check_resp(const struct hub_resp *rs)
{
	static const unsigned ok[] = { 0, 200, 201, 204, 400, 401, 403, 404,
	    409, 413, 500 };
	size_t i;
	int found = 0;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		found |= rs->status == ok[i];
	CHECK(found);
	CHECK(rs->body == NULL || rs->status == 200);
}

static void
one_page(const char *method, const char *path, const char *auth,
    const char *cookie, const uint8_t *body, size_t len);

static void
one(const char *method, const char *path, const char *auth,
    const uint8_t *body, size_t len)
{
	one_page(method, path, auth, NULL, body, len);
}

/* A request as the page sends it: its header, its origin, a cookie. */
static void
one_page(const char *method, const char *path, const char *auth,
    const char *cookie, const uint8_t *body, size_t len)
{
	struct hub_req rq;
	struct hub_resp rs;
	struct hub_who who;
	struct hs_ticket t;
	struct hs_decisions d;

	memset(&rq, 0, sizeof(rq));
	rq.method = method;
	rq.path = path;
	rq.auth = auth;
	rq.cookie = cookie;
	rq.origin = H.origin;
	rq.page_hdr = 1;
	rq.body = body;
	rq.body_len = len;
	if (hub_auth(&H, &rq, &who, &rs) != 0) {
		check_resp(&rs);
		return;
	}
	hub_route(&H, &rq, &who, 1, &rs);
	check_resp(&rs);
	/* A fuzzed body never decides the ticket: it cannot carry a valid
	 * device signature. */
	CHECK(rs.status != 201 || strcmp(path, "/v1/tickets") == 0);
	/* nor enrols a passkey or opens a session */
	CHECK(rs.set_cookie[0] == '\0');
	hub_resp_free(&rs);
	CHECK(H.store.ops->get_ticket(&H.store, TID, NULL, &t) == HS_OK);
	CHECK(!t.decided);
	hs_ticket_free(&t);
	CHECK(H.store.ops->decisions(&H.store, TID, 0, &d) == HS_OK &&
	    d.n == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char dpath[] = "/v1/tickets/" TID "/decision";
	static const char cpath[] = "/v1/tickets/" TID "/card";
	static const char *const page[] = { "/v1/page/register/challenge",
	    "/v1/page/register", "/v1/page/login", "/v1/page/decision" };
	uint8_t *body;
	char *s, *auth;
	size_t n;

	init();
	if (size < 1)
		return 0;
	n = size - 1;
	body = malloc(n ? n : 1);
	CHECK(body != NULL);
	memcpy(body, data + 1, n);
	switch (data[0] % 7) {
	case 0:
		auth = auth_for("POST", "/v1/tickets", body, n, &inst);
		one("POST", "/v1/tickets", auth, body, n);
		free(auth);
		break;
	case 1:
		auth = auth_for("POST", dpath, body, n, &dev);
		one("POST", dpath, auth, body, n);
		free(auth);
		break;
	case 2:
		s = malloc(n + 1);
		CHECK(s != NULL);
		memcpy(s, body, n);
		s[n] = '\0';
		one("GET", "/v1/pending", s, NULL, 0);
		free(s);
		break;
	case 3:
		s = malloc(n + 1);
		CHECK(s != NULL);
		memcpy(s, body, n);
		s[n] = '\0';
		auth = auth_for("GET", s[0] == '/' ? s : "/", NULL, 0, &dev);
		one("GET", s, auth, NULL, 0);
		free(auth);
		free(s);
		break;
	case 4:		/* the console's CARD */
		auth = auth_for("POST", cpath, body, n, &inst);
		one("POST", cpath, auth, body, n);
		free(auth);
		break;
	case 5:		/* the page's JSON and DECISION-PK bodies */
		one_page("POST", page[(data[0] / 7) % 4], NULL, NULL, body, n);
		break;
	case 6:		/* a session cookie */
		s = malloc(n + 1);
		CHECK(s != NULL);
		memcpy(s, body, n);
		s[n] = '\0';
		one_page("GET", "/v1/page/tickets", NULL, s, NULL, 0);
		free(s);
		break;
	}
	free(body);
	return 0;
}
