/* The phone page's side of the hub (docs/hub.md, "Approving from a
 * phone"): the page's files with a strict CSP, passkey registration with a
 * one-time code, sessions from a login assertion over a challenge the hub
 * issued, the approver's pending tickets with the consoles' CARDs, and its
 * DECISION-PKs filed under each ticket they name with the hub's
 * countersignature. The hub checks what it can (the session's passkey is
 * the one that signed, every ticket names it, the hashes are the stored
 * tickets', the assertion verifies); the console checks it all again and
 * stays the authority. JSON in through jansson with limits; every
 * refusal is a static text. */
#include "hub/hub.h"
#include "hub/page.h"
#include "hubwire/msg.h"
#include "hubwire/passkey.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#define PAGE_JSON_MAX	(16 * 1024)
#define PAGE_DECISION_MAX HW_MAX_PK
#define CARD_MAX	HW_MAX_CARD
#define SESSION_MS	(12LL * 60 * 60 * 1000)
#define CHALLENGE_MS	(2LL * 60 * 1000)
#define COOKIE_NAME	"__Host-lockhub"
#define TOKEN_TEXT	43	/* 32 bytes, base64url without padding */

enum page_route {
	P_NONE, P_FILE, P_REG_CHALLENGE, P_REGISTER, P_LOGIN_CHALLENGE,
	P_LOGIN, P_LOGOUT, P_ME, P_TICKETS, P_TICKETS_AFTER, P_DECISION,
};

static enum page_route
page_match(const char *method, const char *path, unsigned long long *seq,
    const struct page_file **file)
{
	static const char after[] = "/v1/page/tickets/after/";
	int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
	size_t i;

	if (get)
		for (i = 0; page_files[i].path != NULL; i++)
			if (strcmp(path, page_files[i].path) == 0) {
				if (file != NULL)
					*file = &page_files[i];
				return P_FILE;
			}
	if (post && strcmp(path, "/v1/page/register/challenge") == 0)
		return P_REG_CHALLENGE;
	if (post && strcmp(path, "/v1/page/register") == 0)
		return P_REGISTER;
	if (post && strcmp(path, "/v1/page/login/challenge") == 0)
		return P_LOGIN_CHALLENGE;
	if (post && strcmp(path, "/v1/page/login") == 0)
		return P_LOGIN;
	if (post && strcmp(path, "/v1/page/logout") == 0)
		return P_LOGOUT;
	if (get && strcmp(path, "/v1/page/me") == 0)
		return P_ME;
	if (get && strcmp(path, "/v1/page/tickets") == 0)
		return P_TICKETS;
	if (get && strncmp(path, after, sizeof(after) - 1) == 0 &&
	    strlen(path) <= sizeof(after) - 1 + 19 && seq != NULL &&
	    parse_u64(path + sizeof(after) - 1, 0, 1ULL << 62, seq) == 0)
		return P_TICKETS_AFTER;
	if (post && strcmp(path, "/v1/page/decision") == 0)
		return P_DECISION;
	return P_NONE;
}

int
hub_page_path(const char *method, const char *path)
{
	unsigned long long seq;

	return page_match(method, path, &seq, NULL) != P_NONE;
}

size_t
hub_page_body_cap(const char *method, const char *path)
{
	unsigned long long seq;

	switch (page_match(method, path, &seq, NULL)) {
	case P_REG_CHALLENGE:
	case P_REGISTER:
	case P_LOGIN_CHALLENGE:
	case P_LOGIN:
		return PAGE_JSON_MAX;
	case P_DECISION:
		return PAGE_DECISION_MAX;
	default:
		return 0;
	}
}

/* ---- answers ---- */

/* A JSON answer (the page's API); takes j. */
static void
answer_json(struct hub_resp *rs, unsigned status, json_t *j)
{
	char *s = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	if (s == NULL) {
		hub_answer(rs, 500, "the hub cannot serve this now\n");
		return;
	}
	rs->body = buf_new(strlen(s) + 1);
	if (buf_append(rs->body, s, strlen(s)) != 0) {
		free(s);
		hub_resp_free(rs);
		hub_answer(rs, 500, "the hub cannot serve this now\n");
		return;
	}
	free(s);
	rs->status = status;
	rs->ctype = "application/json";
}

static json_t *
b64u_json(const uint8_t *d, size_t n)
{
	size_t len = sodium_base64_ENCODED_LEN(n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	char *out;
	json_t *j;

	if (n > CARD_MAX || (out = malloc(len)) == NULL)
		return NULL;
	sodium_bin2base64(out, len, d, n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	j = json_string(out);
	free(out);
	return j;
}

/* A JSON body: an object, within its cap (hub_page_body_cap). */
static json_t *
body_json(const struct hub_req *rq)
{
	json_t *j;

	if (rq->body_len == 0)
		return NULL;
	j = json_loadb((const char *)rq->body, rq->body_len,
	    JSON_REJECT_DUPLICATES, NULL);
	if (j != NULL && !json_is_object(j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* A base64url string member into out (at most max bytes, at least min). */
static int
get_b64u(json_t *j, const char *k, uint8_t *out, size_t min, size_t max,
    size_t *len)
{
	const char *s = json_string_value(json_object_get(j, k));

	if (s == NULL || strlen(s) > max * 4 / 3 + 4 ||
	    sodium_base642bin(out, max, s, strlen(s), NULL, len, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 || *len < min)
		return -1;
	return 0;
}

static void
token_text(const uint8_t t[32], char out[TOKEN_TEXT + 1])
{
	sodium_bin2base64(out, TOKEN_TEXT + 1, t, 32,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

/* A fresh random token, stored by its hash (never itself). */
static enum hs_status
token_new(struct hub *h, enum hs_token kind, const char *subject,
    long long life_ms, uint8_t t[32])
{
	uint8_t th[32];

	random_bytes(t, 32);
	hw_hash(t, 32, th);
	return h->store.ops->token_put(&h->store, kind, th, subject,
	    h->clock_ms() + life_ms);
}

static enum hs_status
token_take(struct hub *h, enum hs_token kind, const uint8_t t[32], int consume,
    char subject[HS_MAX_SUBJECT + 1])
{
	uint8_t th[32];

	hw_hash(t, 32, th);
	return h->store.ops->token_use(&h->store, kind, th, h->clock_ms(),
	    consume, subject);
}

static json_t *
passkey_json(const struct hs_passkey *p)
{
	struct pk_key k;
	char cose[PK_TEXT_MAX], fp[HW_FP_LEN + 1], id[65];
	if (pk_key_parse(p->cose, p->cose_len, &k) != PK_OK ||
	    pk_key_to_text(&k, cose, sizeof(cose)) != 0)
		return NULL;
	hw_fingerprint(p->id, fp);
	sodium_bin2hex(id, sizeof(id), p->id, 32);
	return json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", p->name,
	    "cose", cose, "fingerprint", fp, "id", id,
	    "cred", b64u_json(p->cred, p->cred_len));
}

/* ---- the session ---- */

/* The session cookie's passkey: the cookie's token, hashed, is a live
 * session whose passkey is still enrolled (revoking it ends them). */
static int
session(struct hub *h, const struct hub_req *rq, struct hs_passkey *pk,
    uint8_t t[32])
{
	static const char name[] = COOKIE_NAME "=";
	const char *c = rq->cookie, *v;
	char subject[HS_MAX_SUBJECT + 1], text[TOKEN_TEXT + 1];
	uint8_t id[32];
	size_t n;

	if (c == NULL)
		return -1;
	for (v = c; (v = strstr(v, name)) != NULL; v += sizeof(name) - 1)
		if (v == c || (v >= c + 2 && v[-2] == ';' && v[-1] == ' '))
			break;
	if (v == NULL)
		return -1;
	v += sizeof(name) - 1;
	if (strlen(v) < TOKEN_TEXT || (v[TOKEN_TEXT] != '\0' &&
	    v[TOKEN_TEXT] != ';'))
		return -1;
	memcpy(text, v, TOKEN_TEXT);
	text[TOKEN_TEXT] = '\0';
	if (sodium_base642bin(t, 32, text, TOKEN_TEXT, NULL, &n, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 || n != 32)
		return -1;
	if (token_take(h, HS_TOK_SESSION, t, 0, subject) != HS_OK ||
	    strlen(subject) != 64 || sodium_hex2bin(id, sizeof(id), subject, 64,
	    NULL, &n, NULL) != 0 || n != 32)
		return -1;
	return h->store.ops->passkey_get(&h->store, id, NULL, 0, pk) == HS_OK ?
	    0 : -1;
}

/* A POST from the page itself: a custom header (a cross-site form cannot
 * send one without a preflight the hub never grants) and its own origin. */
static int
same_origin_post(const struct hub *h, const struct hub_req *rq)
{
	return rq->page_hdr && rq->origin != NULL &&
	    strcmp(rq->origin, h->origin) == 0;
}

/* ---- registration ---- */

int
hub_passkey_code(struct hub *h, const char *name, char out[HUB_CODE_TEXT + 1])
{
	uint8_t t[32];

	if (token_new(h, HS_TOK_CODE, name, HUB_CODE_MS, t) != HS_OK)
		return -1;
	token_text(t, out);
	sodium_memzero(t, sizeof(t));
	return 0;
}

static int
get_token(json_t *j, const char *k, uint8_t t[32])
{
	size_t n;

	return get_b64u(j, k, t, 32, 32, &n) == 0 && n == 32 ? 0 : -1;
}

/* The code is looked at (not used up: the registration uses it) and a
 * registration challenge issued for its name. */
static void
reg_challenge(struct hub *h, json_t *j, struct hub_resp *rs)
{
	char name[HS_MAX_SUBJECT + 1], text[TOKEN_TEXT + 1];
	uint8_t code[32], ch[32];

	if (j == NULL || get_token(j, "code", code) != 0) {
		hub_answer(rs, 400, "not a registration code\n");
		return;
	}
	if (token_take(h, HS_TOK_CODE, code, 0, name) != HS_OK) {
		hub_answer(rs, 403, "the code is unknown or expired\n");
		return;
	}
	if (token_new(h, HS_TOK_REG, name, CHALLENGE_MS, ch) != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	token_text(ch, text);
	answer_json(rs, 200, json_pack("{s:s, s:s, s:s}", "challenge", text,
	    "name", name, "rp_id", h->rp_id));
}

static void
do_register(struct hub *h, json_t *j, struct hub_resp *rs)
{
	static __thread uint8_t att[PAGE_JSON_MAX], cdj[PAGE_JSON_MAX];
	char name[HS_MAX_SUBJECT + 1], chname[HS_MAX_SUBJECT + 1];
	uint8_t code[32], ch[32];
	size_t att_len, cdj_len;
	struct hs_passkey p;
	struct pk_key k;
	enum pk_status ps;
	enum hs_status st;

	if (j == NULL || get_token(j, "code", code) != 0 ||
	    get_token(j, "challenge", ch) != 0 ||
	    get_b64u(j, "attestationObject", att, 1, sizeof(att), &att_len) ||
	    get_b64u(j, "clientDataJSON", cdj, 1, sizeof(cdj), &cdj_len)) {
		hub_answer(rs, 400, "not a registration\n");
		return;
	}
	/* Both used up here, whatever follows: one try per code. */
	if (token_take(h, HS_TOK_CODE, code, 1, name) != HS_OK ||
	    token_take(h, HS_TOK_REG, ch, 1, chname) != HS_OK ||
	    strcmp(name, chname) != 0) {
		hub_answer(rs, 403, "the code or the challenge is unknown or expired\n");
		return;
	}
	memset(&p, 0, sizeof(p));
	ps = pk_registration(att, att_len, cdj, cdj_len, h->rp_id, h->origin,
	    ch, sizeof(ch), &k, p.cred, &p.cred_len);
	if (ps != PK_OK) {
		logit("page: a registration for %s refused: %s", name,
		    pk_status_str(ps));
		hub_answer(rs, 400, "the registration does not verify\n");
		return;
	}
	ASSERT(str_fmt(p.name, sizeof(p.name), "%s", name) == STR_OK);
	memcpy(p.id, k.id, 32);
	memcpy(p.cose, k.cose, k.cose_len);
	p.cose_len = k.cose_len;
	st = h->store.ops->passkey_enroll(&h->store, &p);
	if (st == HS_EXISTS) {
		hub_answer(rs, 409, "this name or passkey is enrolled already\n");
		return;
	}
	if (st != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	logit("page: passkey %s enrolled", name);
	answer_json(rs, 201, passkey_json(&p));
}

/* ---- login ---- */

static void
login_challenge(struct hub *h, struct hub_resp *rs)
{
	char text[TOKEN_TEXT + 1];
	uint8_t ch[32];

	if (token_new(h, HS_TOK_LOGIN, "", CHALLENGE_MS, ch) != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	token_text(ch, text);
	answer_json(rs, 200, json_pack("{s:s}", "challenge", text));
}

static void
do_login(struct hub *h, json_t *j, struct hub_resp *rs)
{
	static __thread uint8_t ad[1024], cdj[4096], sig[256], cred[HS_MAX_CRED];
	char subject[HS_MAX_SUBJECT + 1], text[TOKEN_TEXT + 1], idhex[65];
	size_t ad_len, cdj_len, sig_len, cred_len;
	uint8_t ch[32], t[32];
	struct hs_passkey p;
	struct pk_key k;
	uint32_t counter;

	if (j == NULL || get_token(j, "challenge", ch) != 0 ||
	    get_b64u(j, "credentialId", cred, 1, sizeof(cred), &cred_len) ||
	    get_b64u(j, "authenticatorData", ad, 37, sizeof(ad), &ad_len) ||
	    get_b64u(j, "clientDataJSON", cdj, 1, sizeof(cdj), &cdj_len) ||
	    get_b64u(j, "signature", sig, 8, sizeof(sig), &sig_len)) {
		hub_answer(rs, 400, "not a login\n");
		return;
	}
	/* Only a challenge this hub issued, once: never a decision's. */
	if (token_take(h, HS_TOK_LOGIN, ch, 1, subject) != HS_OK) {
		hub_answer(rs, 403, "the challenge is unknown or expired\n");
		return;
	}
	if (h->store.ops->passkey_get(&h->store, NULL, cred, cred_len, &p) !=
	    HS_OK || pk_key_parse(p.cose, p.cose_len, &k) != PK_OK) {
		hub_answer(rs, 403, "the passkey is not enrolled\n");
		return;
	}
	if (pk_assertion_verify(&k, h->rp_id, h->origin, ch, sizeof(ch), ad,
	    ad_len, cdj, cdj_len, sig, sig_len, &counter) != PK_OK) {
		hub_answer(rs, 403, "the assertion does not verify\n");
		return;
	}
	sodium_bin2hex(idhex, sizeof(idhex), p.id, 32);
	if (token_new(h, HS_TOK_SESSION, idhex, SESSION_MS, t) != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	token_text(t, text);
	sodium_memzero(t, sizeof(t));
	ASSERT(str_fmt(rs->set_cookie, sizeof(rs->set_cookie),
	    COOKIE_NAME "=%s; Path=/; Secure; HttpOnly; SameSite=Strict; "
	    "Max-Age=%lld", text, SESSION_MS / 1000) == STR_OK);
	sodium_memzero(text, sizeof(text));
	logit("page: %s signed in", p.name);
	answer_json(rs, 200, passkey_json(&p));
}

/* ---- tickets ---- */

/* The session passkey's pending tickets that carry a card: a ticket
 * without one cannot be shown (the page shows the console's lines only).
 * after: only newer than that (0: all); 0 items and a long-poll then wait. */
static void
list_tickets(struct hub *h, const struct hs_passkey *pk, uint64_t after,
    int waiting, int timed_out, struct hub_resp *rs)
{
	struct hs_pending p;
	json_t *items = json_array(), *it;
	uint64_t newest = after;
	struct buf *card;
	size_t i;

	if (items == NULL || h->store.ops->pending(&h->store, pk->id, after,
	    HW_MAX_LIST - 65536, &p) != HS_OK) {
		json_decref(items);
		hub_store_failed(h, rs);
		return;
	}
	for (i = 0; i < p.n; i++) {
		static __thread struct hw_ticket t;
		if (hw_ticket_parse(buf_data(p.body[i]), buf_len(p.body[i]),
		    &t) != HW_OK ||
		    h->store.ops->get_card(&h->store, t.id, &card) != HS_OK)
			continue;
		it = json_pack("{s:s, s:I, s:o}", "id", t.id,
		    "seq", (json_int_t)p.seq[i], "card",
		    b64u_json(buf_data(card), buf_len(card)));
		buf_free(card);
		if (it == NULL || json_array_append_new(items, it) != 0)
			continue;
		if (p.seq[i] > newest)
			newest = p.seq[i];
	}
	hs_pending_free(&p);
	if (waiting && json_array_size(items) == 0) {
		json_decref(items);
		if (timed_out) {
			hub_answer(rs, 204, NULL);
			return;
		}
		rs->status = 0;
		rs->wait = HUB_WAIT_LIST;
		return;
	}
	answer_json(rs, 200, json_pack("{s:I, s:o}", "seq", (json_int_t)newest,
	    "tickets", items));
}

/* ---- decisions ---- */

/* The pending ticket naming this passkey whose hash is hash: its id. */
static int
find_ticket(struct hub *h, const struct hs_passkey *pk, const uint8_t hash[32],
    char id[HW_ID_LEN + 1])
{
	static __thread struct hw_ticket t;
	struct hs_pending p;
	uint8_t th[32];
	uint64_t after = 0;
	size_t i;
	int found = 0;

	/* Pages of the passkey's pending tickets, oldest first. */
	for (;;) {
		if (h->store.ops->pending(&h->store, pk->id, after,
		    HW_MAX_LIST - 65536, &p) != HS_OK)
			return -1;
		for (i = 0; i < p.n && !found; i++) {
			hw_hash(buf_data(p.body[i]), buf_len(p.body[i]), th);
			if (sodium_memcmp(th, hash, 32) == 0 &&
			    hw_ticket_parse(buf_data(p.body[i]),
			    buf_len(p.body[i]), &t) == HW_OK &&
			    hw_ticket_names(&t, pk->id)) {
				ASSERT(str_fmt(id, HW_ID_LEN + 1, "%s", t.id) ==
				    STR_OK);
				found = 1;
			}
		}
		if (found || p.n < HW_MAX_LIST_ITEMS) {
			hs_pending_free(&p);
			return found ? 0 : -1;
		}
		after = p.seq[p.n - 1];
		hs_pending_free(&p);
	}
}

/* The DECISION-P for one ticket: the DECISION-PK and the hub's DECISION-HUB
 * over its hash, for this ticket, approver = the passkey's name. */
static enum hs_status
file_one(struct hub *h, const struct hs_passkey *pk, const char *id,
    const struct hub_req *rq)
{
	struct hw_envelope e;
	struct buf *hubsig = NULL, *decision = NULL;
	enum hs_status st;

	if (hw_hub_countersign(rq->body, rq->body_len, id, pk->name,
	    (uint64_t)h->clock_ms(), h->key.pk, h->key.sk, &hubsig) != HW_OK)
		return HS_ERR;
	memset(&e, 0, sizeof(e));
	e.dev = rq->body;
	e.dev_len = rq->body_len;
	e.hub = buf_data(hubsig);
	e.hub_len = buf_len(hubsig);
	if (hw_decp_encode(&e, &decision) != HW_OK) {
		buf_free(hubsig);
		return HS_ERR;
	}
	buf_free(hubsig);
	st = h->store.ops->put_decision(&h->store, id, pk->id,
	    buf_data(decision), buf_len(decision), h->clock_ms());
	buf_free(decision);
	return st;
}

static void
post_decision(struct hub *h, const struct hs_passkey *pk,
    const struct hub_req *rq, struct hub_resp *rs)
{
	static __thread struct hw_pk d;
	char ids[HW_MAX_PK_HASHES][HW_ID_LEN + 1];
	uint8_t ch[32];
	struct pk_key k;
	uint32_t counter;
	json_t *filed;
	size_t i;
	enum hs_status st;

	if (hw_pk_parse(rq->body, rq->body_len, &d) != HW_OK) {
		hub_answer(rs, 400, "not a passkey decision\n");
		return;
	}
	/* The session's passkey signs its own decisions only. */
	if (sodium_memcmp(d.passkey_id, pk->id, 32) != 0 ||
	    d.cred_id_len != pk->cred_len ||
	    sodium_memcmp(d.cred_id, pk->cred, pk->cred_len) != 0) {
		hub_answer(rs, 403, "the decision is not this passkey's\n");
		return;
	}
	/* Every ticket it lists is pending and names this passkey; another
	 * one is as unknown as a missing one (issue 26 item 1). */
	for (i = 0; i < d.nhashes; i++)
		if (find_ticket(h, pk, d.hashes[i], ids[i]) != 0) {
			hub_answer(rs, 404, "no such ticket\n");
			return;
		}
	pk_decision_challenge(ch, d.verdict, d.mute_minutes,
	    (const uint8_t (*)[32])d.hashes, d.nhashes);
	if (pk_key_parse(pk->cose, pk->cose_len, &k) != PK_OK ||
	    pk_assertion_verify(&k, h->rp_id, h->origin, ch, sizeof(ch),
	    d.authdata, d.authdata_len, d.cdj, d.cdj_len, d.sig, d.sig_len,
	    &counter) != PK_OK) {
		hub_answer(rs, 403, "the assertion does not verify\n");
		return;
	}
	if ((filed = json_array()) == NULL) {
		hub_answer(rs, 500, "the hub cannot serve this now\n");
		return;
	}
	/* Filed under each ticket, once per approver; other hub processes
	 * are told after each commit (docs/hub.md, "Operating several
	 * hubs"). */
	for (i = 0; i < d.nhashes; i++) {
		st = file_one(h, pk, ids[i], rq);
		if (st == HS_OK) {
			(void)json_array_append_new(filed, json_string(ids[i]));
			if (h->store.ops->changed != NULL)
				h->store.ops->changed(&h->store, 'd', ids[i]);
		} else if (st != HS_EXISTS && st != HS_NOT_FOUND) {
			json_decref(filed);
			hub_store_failed(h, rs);
			return;
		}
	}
	if (json_array_size(filed) == 0) {
		json_decref(filed);
		hub_answer(rs, 409, "the tickets are decided\n");
		return;
	}
	logit("page: %s decided %zu ticket(s)", pk->name,
	    json_array_size(filed));
	answer_json(rs, 201, json_pack("{s:o}", "filed", filed));
	/* Every console waiting on one of them looks again. */
	rs->notify = HUB_WAIT_NONE;
	rs->wake_all = 1;
}

/* ---- the console's CARD ---- */

void
hub_post_card(struct hub *h, const char *id, const struct hub_req *rq,
    const struct hub_who *who, struct hub_resp *rs)
{
	static __thread struct hw_card c;
	struct hs_ticket t;
	uint8_t hash[32];
	enum hs_status st;

	if (hw_card_parse(rq->body, rq->body_len, &c) != HW_OK) {
		hub_answer(rs, 400, "not a card\n");
		return;
	}
	st = h->store.ops->get_ticket(&h->store, id, NULL, &t);
	if (st == HS_NOT_FOUND || (st == HS_OK &&
	    strcmp(t.instance, who->key.name) != 0)) {
		hs_ticket_free(&t);
		hub_answer(rs, 404, "no such ticket\n");
		return;
	}
	if (st != HS_OK) {
		hs_ticket_free(&t);
		hub_store_failed(h, rs);
		return;
	}
	hw_hash(buf_data(t.body), buf_len(t.body), hash);
	hs_ticket_free(&t);
	/* The card of exactly this ticket, signed by the posting console. */
	if (strcmp(c.ticket, id) != 0 || strcmp(c.instance, who->key.name) != 0 ||
	    sodium_memcmp(c.ticket_hash, hash, 32) != 0) {
		hub_answer(rs, 400, "the card is not this ticket's\n");
		return;
	}
	if (hw_verify(rq->body, c.signed_len, c.sig, who->key.pk) != HW_OK) {
		hub_answer(rs, 400, "the card's signature does not verify\n");
		return;
	}
	st = h->store.ops->put_card(&h->store, id, rq->body, rq->body_len);
	if (st == HS_EXISTS) {
		hub_answer(rs, 409, "a card is there already\n");
		return;
	}
	if (st == HS_NOT_FOUND) {
		hub_answer(rs, 404, "no such ticket\n");
		return;
	}
	if (st != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	hub_answer(rs, 201, "card posted\n");
	/* An open page lists a ticket once its card is there. */
	rs->notify = HUB_WAIT_LIST;
}

/* ---- the route ---- */

static void
serve_file(const struct page_file *f, struct hub_resp *rs)
{
	rs->body = buf_new(f->len + 1);
	if (buf_append(rs->body, f->data, f->len) != 0) {
		hub_resp_free(rs);
		hub_answer(rs, 500, "the hub cannot serve this now\n");
		return;
	}
	rs->status = 200;
	rs->ctype = f->type;
}

void
hub_page_route(struct hub *h, const struct hub_req *rq, int timed_out,
    struct hub_resp *rs)
{
	const struct page_file *file = NULL;
	unsigned long long seq = 0;
	enum page_route r = page_match(rq->method, rq->path, &seq, &file);
	struct hs_passkey pk;
	char subject[HS_MAX_SUBJECT + 1];
	uint8_t tok[32];
	json_t *j = NULL;

	rs->page = 1;
	if (h->rp_id == NULL || h->origin == NULL || r == P_NONE) {
		hub_answer(rs, 404, "no such endpoint\n");
		return;
	}
	if (r == P_FILE) {
		serve_file(file, rs);
		return;
	}
	if (strcmp(rq->method, "POST") == 0 && !same_origin_post(h, rq)) {
		hub_answer(rs, 403, "a cross-origin request\n");
		return;
	}
	switch (r) {
	case P_REG_CHALLENGE:
	case P_REGISTER:
	case P_LOGIN:
		if ((j = body_json(rq)) == NULL) {
			hub_answer(rs, 400, "not a JSON object\n");
			return;
		}
		if (r == P_REG_CHALLENGE)
			reg_challenge(h, j, rs);
		else if (r == P_REGISTER)
			do_register(h, j, rs);
		else
			do_login(h, j, rs);
		json_decref(j);
		return;
	case P_LOGIN_CHALLENGE:
		login_challenge(h, rs);
		return;
	default:
		break;
	}
	if (session(h, rq, &pk, tok) != 0) {
		hub_answer(rs, 401, "sign in first\n");
		return;
	}
	switch (r) {
	case P_LOGOUT:
		/* the session is gone from the store, not only the cookie */
		if (token_take(h, HS_TOK_SESSION, tok, 1, subject) == HS_ERR) {
			hub_store_failed(h, rs);
			return;
		}
		ASSERT(str_fmt(rs->set_cookie, sizeof(rs->set_cookie),
		    COOKIE_NAME "=x; Path=/; Secure; HttpOnly; SameSite=Strict; "
		    "Max-Age=0") == STR_OK);
		hub_answer(rs, 200, "signed out\n");
		return;
	case P_ME:
		answer_json(rs, 200, passkey_json(&pk));
		return;
	case P_TICKETS:
		list_tickets(h, &pk, 0, 0, timed_out, rs);
		return;
	case P_TICKETS_AFTER:
		list_tickets(h, &pk, seq, 1, timed_out, rs);
		return;
	case P_DECISION:
		post_decision(h, &pk, rq, rs);
		return;
	default:
		hub_answer(rs, 404, "no such endpoint\n");
	}
}
