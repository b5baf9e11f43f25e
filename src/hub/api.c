/* The hub's request logic (see hub.h; the endpoints are listed in
 * docs/hub.md, "The hub's API"). Bodies are the binary layouts of
 * src/hubwire, parsed strictly; every refusal is an HTTP status with a
 * static text, never an echo of what was sent. */
#include "hub/hub.h"
#include "hubwire/msg.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#define TICKET_GRACE_MS	60000	/* a decision may still arrive late */

void
hub_cfg_defaults(struct hub_cfg *c)
{
	c->poll_ms = HUB_DEFAULT_POLL_MS;
	c->skew_ms = HUB_DEFAULT_SKEW_MS;
	c->keep_max_ms = HUB_DEFAULT_KEEP_MS;
	c->rate_burst = HUB_DEFAULT_BURST;
	c->rate_refill_ms = HUB_DEFAULT_REFILL_MS;
	c->max_conns = HUB_DEFAULT_MAX_CONNS;
	c->max_per_ip = HUB_DEFAULT_MAX_PER_IP;
	c->max_waiters = HUB_DEFAULT_MAX_WAITERS;
	c->conn_timeout_s = HUB_DEFAULT_CONN_TIMEOUT;
	c->request_ms = HUB_DEFAULT_REQUEST_MS;
	c->recheck_ms = HUB_DEFAULT_RECHECK_MS;
	c->ntrusted = 0;
}

/* Other hub processes on the same store learn of a commit (docs/hub.md,
 * "Operating several hubs"): after the commit, outside its transaction, so
 * a notification never lengthens the writers' critical section; a lost
 * one costs the long-polls' recheck timer, nothing more. */
static void
changed(struct hub *h, char kind, const char *id)
{
	if (h->store.ops->changed != NULL)
		h->store.ops->changed(&h->store, kind, id);
}

long long
hub_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- routes ---- */

enum route {
	R_NONE,
	R_HEALTH,		/* GET  /v1/health */
	R_POST_TICKET,		/* POST /v1/tickets                  instance */
	R_GET_DECISION,		/* GET  /v1/tickets/ID/decision      instance */
	R_GET_DECISIONS,	/* GET  /v1/tickets/ID/decisions/after/N  instance */
	R_PENDING,		/* GET  /v1/pending                  device */
	R_PENDING_AFTER,	/* GET  /v1/pending/after/SEQ        device */
	R_POST_DECISION,	/* POST /v1/tickets/ID/decision      device */
	R_ENROLMENT,		/* GET  /v1/enrolment                instance */
	R_POST_CARD,		/* POST /v1/tickets/ID/card          instance */
	R_PAGE,			/* the phone page: page_api.c, its session */
};

struct match {
	enum route r;
	char id[HW_ID_LEN + 1];
	unsigned long long seq;
};

static int
ticket_path(const char *path, const char *post, char id[HW_ID_LEN + 1])
{
	static const char pre[] = "/v1/tickets/";
	size_t n = strlen(path);

	if (n != sizeof(pre) - 1 + HW_ID_LEN + strlen(post) ||
	    memcmp(path, pre, sizeof(pre) - 1) != 0 ||
	    strcmp(path + sizeof(pre) - 1 + HW_ID_LEN, post) != 0)
		return 0;
	memcpy(id, path + sizeof(pre) - 1, HW_ID_LEN);
	id[HW_ID_LEN] = '\0';
	return id_is_valid(id, "t_");
}

/* /v1/tickets/ID/decisions/after/N: N the decisions the console holds
 * already, 0..16 (a ticket has at most 16). */
static int
decisions_path(const char *path, char id[HW_ID_LEN + 1],
    unsigned long long *after)
{
	static const char pre[] = "/v1/tickets/", post[] = "/decisions/after/";
	const char *n;

	if (strlen(path) > sizeof(pre) - 1 + HW_ID_LEN + sizeof(post) - 1 + 2 ||
	    strncmp(path, pre, sizeof(pre) - 1) != 0 ||
	    strlen(path) < sizeof(pre) - 1 + HW_ID_LEN + sizeof(post) ||
	    strncmp(path + sizeof(pre) - 1 + HW_ID_LEN, post,
	    sizeof(post) - 1) != 0)
		return 0;
	n = path + sizeof(pre) - 1 + HW_ID_LEN + sizeof(post) - 1;
	if (parse_u64(n, 0, HW_MAX_DECLIST_ITEMS, after) != 0)
		return 0;
	memcpy(id, path + sizeof(pre) - 1, HW_ID_LEN);
	id[HW_ID_LEN] = '\0';
	return id_is_valid(id, "t_");
}

static void
match(const char *method, const char *path, struct match *m)
{
	static const char after[] = "/v1/pending/after/";
	int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;

	memset(m, 0, sizeof(*m));
	if (get && strcmp(path, "/v1/health") == 0)
		m->r = R_HEALTH;
	else if (post && strcmp(path, "/v1/tickets") == 0)
		m->r = R_POST_TICKET;
	else if (get && strcmp(path, "/v1/pending") == 0)
		m->r = R_PENDING;
	else if (get && strcmp(path, "/v1/enrolment") == 0)
		m->r = R_ENROLMENT;
	else if (get && strncmp(path, after, sizeof(after) - 1) == 0 &&
	    strlen(path) <= sizeof(after) - 1 + 19 &&
	    parse_u64(path + sizeof(after) - 1, 0, 1ULL << 62, &m->seq) == 0)
		m->r = R_PENDING_AFTER;
	else if ((get || post) && ticket_path(path, "/decision", m->id))
		m->r = get ? R_GET_DECISION : R_POST_DECISION;
	else if (post && ticket_path(path, "/card", m->id))
		m->r = R_POST_CARD;
	else if (hub_page_path(method, path))
		m->r = R_PAGE;
	else if (get && decisions_path(path, m->id, &m->seq))
		m->r = R_GET_DECISIONS;
}

size_t
hub_body_cap(const char *method, const char *path)
{
	struct match m;

	match(method, path, &m);
	switch (m.r) {
	case R_POST_TICKET:
		return HW_MAX_TICKET;
	case R_POST_DECISION:
		return HW_MAX_DECISION;
	case R_POST_CARD:
		return HW_MAX_CARD;
	case R_PAGE:
		return hub_page_body_cap(method, path);
	default:
		return 0;
	}
}

static enum hw_role
route_role(enum route r)
{
	return r == R_POST_TICKET || r == R_GET_DECISION ||
	    r == R_GET_DECISIONS || r == R_ENROLMENT || r == R_POST_CARD ?
	    HW_ROLE_INSTANCE : HW_ROLE_DEVICE;
}

/* ---- signed requests ---- */

unsigned
hub_auth(struct hub *h, const struct hub_req *rq, struct hub_who *who,
    struct hub_resp *rs)
{
	uint8_t raw[HW_MAX_SIGNED_SMALL], bh[HW_HASH_LEN];
	struct hw_request q;
	struct match m;
	size_t rawlen = 0;
	long long now, d;
	enum hs_status st;

	memset(who, 0, sizeof(*who));
	memset(rs, 0, sizeof(*rs));
	match(rq->method, rq->path, &m);
	if (m.r == R_NONE) {
		hub_answer(rs, 404, "no such endpoint\n");
		return rs->status;
	}
	/* Nothing rides in the URL: no token, no parameter. */
	if (rq->has_query) {
		hub_answer(rs, 400, "no query strings\n");
		return rs->status;
	}
	/* The page's files are public; its API checks its own session
	 * cookie (page_api.c), never a signed request. */
	if (m.r == R_HEALTH || m.r == R_PAGE) {
		who->authed = 1;
		return 0;
	}
	if (rq->auth == NULL) {
		hub_answer(rs, 401, "a signed request is required\n");
		return rs->status;
	}
	if (strlen(rq->auth) > 2 * sizeof(raw) ||
	    sodium_base642bin(raw, sizeof(raw), rq->auth, strlen(rq->auth),
	    NULL, &rawlen, NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    hw_request_parse(raw, rawlen, &q) != HW_OK) {
		hub_answer(rs, 401, "the request signature is malformed\n");
		return rs->status;
	}
	/* The signed method and path are the ones served. */
	if (strcmp(q.method, rq->method) != 0 || strcmp(q.path, rq->path) != 0) {
		hub_answer(rs, 401, "the signature is for another request\n");
		return rs->status;
	}
	st = h->store.ops->lookup(&h->store, q.key, &who->key);
	if (st == HS_NOT_FOUND) {
		hub_answer(rs, 401, "the signing key is not enrolled\n");
		return rs->status;
	}
	if (st != HS_OK) {
		hub_store_failed(h, rs);
		return rs->status;
	}
	if (who->key.role != route_role(m.r)) {
		hub_answer(rs, 403, "this key may not use this endpoint\n");
		return rs->status;
	}
	/* The signature before the nonce table is touched: an unsigned
	 * request cannot fill it. */
	if (hw_verify(raw, q.signed_len, q.sig, q.key) != HW_OK) {
		hub_answer(rs, 401, "the request signature does not verify\n");
		return rs->status;
	}
	now = h->clock_ms();
	d = now - (long long)q.time_ms;
	if (q.time_ms > (uint64_t)1 << 62 || d > h->cfg.skew_ms ||
	    d < -h->cfg.skew_ms) {
		hub_answer(rs, 401, "the request time is outside the window\n");
		return rs->status;
	}
	hw_hash(rq->body, rq->body_len, bh);
	if (sodium_memcmp(bh, q.body_hash, HW_HASH_LEN) != 0) {
		hub_answer(rs, 401, "the body is not the signed one\n");
		return rs->status;
	}
	st = h->store.ops->nonce_use(&h->store, q.key, q.nonce, now);
	if (st == HS_REPLAY) {
		hub_answer(rs, 401, "this request was already served\n");
		return rs->status;
	}
	if (st != HS_OK) {
		hub_store_failed(h, rs);
		return rs->status;
	}
	who->authed = 1;
	return 0;
}

/* ---- endpoints ---- */

static void
post_ticket(struct hub *h, const struct hub_req *rq, const struct hub_who *who,
    struct hub_resp *rs)
{
	static __thread struct hw_ticket t;
	long long now = h->clock_ms(), life;
	uint64_t seq;
	enum hs_status st;

	if (hw_ticket_parse(rq->body, rq->body_len, &t) != HW_OK) {
		hub_answer(rs, 400, "not a ticket\n");
		return;
	}
	/* A console posts only its own tickets, under its enrolled name. */
	if (sodium_memcmp(t.instance_key, who->key.pk, HW_KEY_LEN) != 0 ||
	    strcmp(t.instance, who->key.name) != 0) {
		hub_answer(rs, 403, "the ticket is another instance's\n");
		return;
	}
	if (hw_verify(rq->body, t.signed_len, t.sig, who->key.pk) != HW_OK) {
		hub_answer(rs, 400, "the ticket's signature does not verify\n");
		return;
	}
	/* The hub keeps a ticket for its lifetime on the console's clock,
	 * measured on its own, never longer than keep_max. */
	life = (long long)(t.expires_ms - t.created_ms);
	if (life > h->cfg.keep_max_ms)
		life = h->cfg.keep_max_ms;
	/* The devices the ticket names, as the console signed them: the
	 * only ones it is listed to and taken from. */
	st = h->store.ops->put_ticket(&h->store, t.id, t.instance, rq->body,
	    rq->body_len, (const uint8_t (*)[32])t.approvers, t.napprovers,
	    now, now + life + TICKET_GRACE_MS, &seq);
	if (st == HS_EXISTS) {
		hub_answer(rs, 409, "a ticket with this id is there\n");
		return;
	}
	if (st != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	changed(h, 't', t.id);
	hub_answer(rs, 201, "ticket posted\n");
	rs->notify = HUB_WAIT_LIST;
}

/* Both decision reads: the old one answers the first decision (a DECISION,
 * for consoles that count one), the new one the decisions after the
 * first m->seq (a DECISIONLIST). Either long-polls until there is one. */
static void
get_decision(struct hub *h, const struct match *m, const struct hub_who *who,
    int timed_out, struct hub_resp *rs)
{
	struct hs_ticket t;
	struct hs_decisions d;
	struct hw_declist l;
	size_t i, skip = m->r == R_GET_DECISIONS ? (size_t)m->seq : 0;
	enum hs_status st = h->store.ops->get_ticket(&h->store, m->id, NULL,
	    &t);

	if (st == HS_NOT_FOUND || (st == HS_OK &&
	    strcmp(t.instance, who->key.name) != 0)) {
		/* Another instance's ticket is as unknown as a missing one. */
		hs_ticket_free(&t);
		hub_answer(rs, 404, "no such ticket\n");
		return;
	}
	hs_ticket_free(&t);
	if (st != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	st = h->store.ops->decisions(&h->store, m->id, skip, &d);
	if (st != HS_OK) {
		hub_store_failed(h, rs);
		return;
	}
	if (d.n > 0 && m->r == R_GET_DECISION) {
		rs->body = d.body[0];
		d.body[0] = NULL;
		for (i = 1; i < d.n; i++)
			buf_free(d.body[i]);
		rs->status = 200;
		return;
	}
	if (d.n > 0) {
		memset(&l, 0, sizeof(l));
		l.n = d.n;
		for (i = 0; i < d.n; i++) {
			l.item[i] = buf_data(d.body[i]);
			l.item_len[i] = buf_len(d.body[i]);
		}
		if (hw_declist_encode(&l, &rs->body) != HW_OK)
			hub_answer(rs, 500, "the hub cannot serve this now\n");
		else
			rs->status = 200;
		hs_decisions_free(&d);
		return;
	}
	if (timed_out) {
		hub_answer(rs, 204, NULL);
		return;
	}
	rs->status = 0;
	rs->wait = HUB_WAIT_TICKET;
	/* an id of HW_ID_LEN bytes (match() checked it) */
	ASSERT(str_fmt(rs->key, sizeof(rs->key), "%s", m->id) == STR_OK);
}

static void
pending(struct hub *h, const struct match *m, const struct hub_who *who,
    int timed_out, struct hub_resp *rs)
{
	static __thread struct hw_list l;
	struct hs_pending p;
	enum hs_status st;
	size_t i;

	/* A device sees the tickets that name it, no other (issue 26 item 1:
	 * another team's device, or a stolen one, learns nothing of them). */
	st = h->store.ops->pending(&h->store, who->key.pk, m->seq,
	    HW_MAX_LIST - 65536, &p);
	if (st != HS_OK) {
		hs_pending_free(&p);
		hub_store_failed(h, rs);
		return;
	}
	if (m->r == R_PENDING_AFTER && p.n == 0) {
		hs_pending_free(&p);
		if (timed_out) {
			hub_answer(rs, 204, NULL);
			return;
		}
		rs->status = 0;
		rs->wait = HUB_WAIT_LIST;
		return;
	}
	memset(&l, 0, sizeof(l));
	l.seq = p.newest;
	l.n = p.n;
	for (i = 0; i < p.n; i++) {
		l.items[i].seq = p.seq[i];
		l.items[i].ticket = buf_data(p.body[i]);
		l.items[i].ticket_len = buf_len(p.body[i]);
	}
	if (hw_list_encode(&l, &rs->body) != HW_OK)
		hub_answer(rs, 500, "the hub cannot serve this now\n");
	else
		rs->status = 200;
	hs_pending_free(&p);
}

static void
post_decision(struct hub *h, const struct match *m, const struct hub_req *rq,
    const struct hub_who *who, struct hub_resp *rs)
{
	static __thread struct hw_ticket t;
	struct hw_envelope post, out;
	struct hw_dev dev;
	struct hs_ticket st_t;
	struct buf *hubsig = NULL, *decision = NULL;
	uint8_t hash[HW_HASH_LEN];
	enum hs_status st;

	memset(&st_t, 0, sizeof(st_t));
	if (hw_devpost_parse(rq->body, rq->body_len, &post) != HW_OK ||
	    hw_dev_parse(post.dev, post.dev_len, &dev) != HW_OK) {
		hub_answer(rs, 400, "not a decision\n");
		return;
	}
	/* The device signs its own decisions only. */
	if (sodium_memcmp(dev.device_key, who->key.pk, HW_KEY_LEN) != 0 ||
	    hw_verify(post.dev, dev.signed_len, dev.sig, who->key.pk) != HW_OK) {
		hub_answer(rs, 403, "the decision is not signed by this device\n");
		return;
	}
	if (strcmp(dev.ticket, m->id) != 0) {
		hub_answer(rs, 400, "the decision is for another ticket\n");
		return;
	}
	hw_hash(post.box, post.box_len, hash);
	if (sodium_memcmp(hash, dev.box_hash, HW_HASH_LEN) != 0) {
		hub_answer(rs, 400, "the box is not the signed one\n");
		return;
	}
	st = h->store.ops->get_ticket(&h->store, m->id, who->key.pk, &st_t);
	if (st == HS_NOT_FOUND) {
		hub_answer(rs, 404, "no such ticket\n");
		return;
	}
	if (st != HS_OK || hw_ticket_parse(buf_data(st_t.body),
	    buf_len(st_t.body), &t) != HW_OK) {
		hs_ticket_free(&st_t);
		hub_store_failed(h, rs);
		return;
	}
	/* Only a device the ticket names may decide it: another enrolled
	 * device deciding first would lock the named approver out until the
	 * ticket expires (issue 26 item 1). It is told nothing of the
	 * ticket, not even whether it is decided. The console's own check
	 * of the device key stays the authority (docs/hub.md). */
	if (!hw_ticket_names(&t, who->key.pk)) {
		hs_ticket_free(&st_t);
		hub_answer(rs, 404, "no such ticket\n");
		return;
	}
	/* One decision per approver: this device's second is refused; the
	 * others the ticket names may still decide (the console counts). */
	if (st_t.decided) {
		hs_ticket_free(&st_t);
		hub_answer(rs, 409, "this device decided the ticket\n");
		return;
	}
	/* Bound to exactly the ticket the hub relayed. */
	hw_hash(buf_data(st_t.body), buf_len(st_t.body), hash);
	hs_ticket_free(&st_t);
	if (sodium_memcmp(hash, dev.ticket_hash, HW_HASH_LEN) != 0 ||
	    sodium_memcmp(dev.instance_key, t.instance_key, HW_KEY_LEN) != 0 ||
	    sodium_memcmp(dev.nonce, t.nonce, HW_NONCE_LEN) != 0) {
		hub_answer(rs, 400, "the decision does not match the ticket\n");
		return;
	}
	if (hw_hub_countersign(post.dev, post.dev_len, m->id, who->key.name,
	    (uint64_t)h->clock_ms(), h->key.pk, h->key.sk, &hubsig) != HW_OK) {
		hub_answer(rs, 500, "the hub cannot serve this now\n");
		return;
	}
	out.dev = post.dev;
	out.dev_len = post.dev_len;
	out.hub = buf_data(hubsig);
	out.hub_len = buf_len(hubsig);
	out.box = post.box;
	out.box_len = post.box_len;
	if (hw_decision_encode(&out, &decision) != HW_OK) {
		buf_free(hubsig);
		hub_answer(rs, 500, "the hub cannot serve this now\n");
		return;
	}
	buf_free(hubsig);
	st = h->store.ops->put_decision(&h->store, m->id, who->key.pk,
	    buf_data(decision), buf_len(decision), h->clock_ms());
	buf_free(decision);
	if (st == HS_EXISTS) {
		hub_answer(rs, 409, "this device decided the ticket\n");
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
	changed(h, 'd', m->id);
	hub_answer(rs, 201, "decision posted\n");
	rs->notify = HUB_WAIT_TICKET;
	ASSERT(str_fmt(rs->key, sizeof(rs->key), "%s", m->id) == STR_OK);
}

/* A console asks at its start, and when a request of its is refused,
 * whether its instance key is enrolled: hub_auth() answered that already
 * (401 not enrolled, 403 another role); the answer names the instance it
 * is enrolled as, which must be the policy's (docs/hub.md). */
static void
get_enrolment(const struct hub_who *who, struct hub_resp *rs)
{
	rs->body = buf_new(HW_MAX_NAME + 1);
	if (buf_append(rs->body, who->key.name, strlen(who->key.name)) != 0) {
		hub_resp_free(rs);
		hub_answer(rs, 500, "the hub cannot serve this now\n");
		return;
	}
	rs->status = 200;
}

void
hub_route(struct hub *h, const struct hub_req *rq, const struct hub_who *who,
    int timed_out, struct hub_resp *rs)
{
	struct match m;

	memset(rs, 0, sizeof(*rs));
	match(rq->method, rq->path, &m);
	ASSERT(who->authed);
	/* Endpoints without a body take none. */
	if (rq->body_len > hub_body_cap(rq->method, rq->path)) {
		hub_answer(rs, 413, "the body is too large\n");
		return;
	}
	switch (m.r) {
	case R_HEALTH:
		hub_answer(rs, 200, "ok\n");
		return;
	case R_POST_TICKET:
		post_ticket(h, rq, who, rs);
		return;
	case R_GET_DECISION:
	case R_GET_DECISIONS:
		get_decision(h, &m, who, timed_out, rs);
		return;
	case R_PENDING:
	case R_PENDING_AFTER:
		pending(h, &m, who, timed_out, rs);
		return;
	case R_POST_DECISION:
		post_decision(h, &m, rq, who, rs);
		return;
	case R_ENROLMENT:
		get_enrolment(who, rs);
		return;
	case R_POST_CARD:
		hub_post_card(h, m.id, rq, who, rs);
		return;
	case R_PAGE:
		hub_page_route(h, rq, timed_out, rs);
		return;
	case R_NONE:
		break;
	}
	hub_answer(rs, 404, "no such endpoint\n");
}
