/* Fixed samples of the hub messages (see sample.h). */
#include "sample.h"

#include <string.h>

#include <sodium.h>

const struct hw_value sample_values[1] = {
	{ "email", (const uint8_t *)"alice@example.org", 17 },
};

static void
fill(uint8_t *p, size_t n, uint8_t v)
{
	memset(p, v, n);
}

void
sample_keys(struct sample_keys *k)
{
	uint8_t seed[32];

	memset(k, 0, sizeof(*k));
	fill(seed, 32, 0x01);
	hw_key_from_seed(&k->instance, seed);
	fill(seed, 32, 0x02);
	hw_key_from_seed(&k->device, seed);
	fill(seed, 32, 0x03);
	hw_key_from_seed(&k->hub, seed);
	fill(seed, 32, 0x04);
	crypto_box_seed_keypair(k->box_pk, k->box_sk, seed);
	fill(k->agent_key, 32, 0x05);
}

void
sample_keys_free(struct sample_keys *k)
{
	hw_key_free(&k->instance);
	hw_key_free(&k->device);
	hw_key_free(&k->hub);
	sodium_memzero(k, sizeof(*k));
}

void
sample_ticket(const struct sample_keys *k, struct hw_ticket *t)
{
	struct hw_screen *s = &t->screen;
	struct hw_plugin *p;

	memset(t, 0, sizeof(*t));
	strcpy(t->instance, "invoices-desk");
	memcpy(t->instance_key, k->instance.pk, 32);
	strcpy(t->id, "t_00112233445566778899aabbccddeeff");
	fill(t->nonce, sizeof(t->nonce), 0x10);
	t->created_ms = 1767225600000ULL;		/* 2026-01-01T00:00:00Z */
	t->expires_ms = t->created_ms + 300000;
	fill(t->plan_hash, 32, 0x11);
	fill(t->policy_fp, 32, 0x12);
	hw_agent_commit(k->agent_key, t->id, "uid:1000", 8, t->agent_commit);
	strcpy(t->agent_label, "uid 1000 (agent)");
	memcpy(t->box_pk, k->box_pk, 32);
	strcpy(s->profile, "invoices");
	s->production = 1;
	strcpy(s->key, "2024/a.pdf");
	strcpy(s->typed, "2024/./a.pdf");
	s->content = HW_CONTENT_FETCHED;
	fill(s->sha256, 32, 0x13);
	s->size = 48213;
	s->reveals = 2;
	s->left_before = 8;
	s->nplugins = 2;
	p = &s->plugins[0];
	strcpy(p->name, "is-pdf");
	strcpy(p->version, "1.0.0");
	p->official = 1;
	strcpy(p->question, "Is the file a well-formed PDF?");
	strcpy(p->one, "it is a well-formed PDF");
	strcpy(p->zero, "it is not a well-formed PDF");
	p = &s->plugins[1];
	strcpy(p->name, "contains");
	strcpy(p->version, "1.2.0");
	p->official = 1;
	strcpy(p->question, "Does the file contain the typed text?");
	strcpy(p->one, "the text occurs in the file");
	strcpy(p->zero, "the text does not occur in the file");
	p->nbind = 1;
	strcpy(p->bind[0].input, "needle");
	strcpy(p->bind[0].placeholder, "email");
	t->nph = 1;
	strcpy(t->ph[0].name, "email");
	t->ph[0].kind = HW_KIND_EMAIL;
	t->ph[0].max_bytes = 256;
	t->napprovers = 1;
	memcpy(t->approvers[0], k->device.pk, 32);
}

void
sample_dev(const struct sample_keys *k, const struct buf *ticket,
    const uint8_t *box, size_t box_len, struct hw_dev *d)
{
	memset(d, 0, sizeof(*d));
	hw_hash(buf_data(ticket), buf_len(ticket), d->ticket_hash);
	memcpy(d->instance_key, k->instance.pk, 32);
	strcpy(d->ticket, "t_00112233445566778899aabbccddeeff");
	fill(d->nonce, sizeof(d->nonce), 0x10);
	d->verdict = HW_APPROVE;
	d->time_ms = 1767225660000ULL;
	memcpy(d->device_key, k->device.pk, 32);
	hw_hash(box, box_len, d->box_hash);
}

void
sample_hub(const struct sample_keys *k, const struct buf *dev,
    struct hw_hub *h)
{
	memset(h, 0, sizeof(*h));
	hw_hash(buf_data(dev), buf_len(dev), h->dev_hash);
	memcpy(h->hub_key, k->hub.pk, 32);
	strcpy(h->ticket, "t_00112233445566778899aabbccddeeff");
	strcpy(h->approver, "alice");
	h->quorum = 1;
	h->time_ms = 1767225661000ULL;
}

void
sample_request(const struct sample_keys *k, struct hw_request *q)
{
	memset(q, 0, sizeof(*q));
	strcpy(q->method, "POST");
	strcpy(q->path, "/v1/tickets/t_00112233445566778899aabbccddeeff/decision");
	hw_hash("", 0, q->body_hash);
	q->time_ms = 1767225660000ULL;
	fill(q->nonce, sizeof(q->nonce), 0x20);
	memcpy(q->key, k->device.pk, 32);
}

static const uint8_t sha_a[32] = { 0x13 };
static const uint8_t man_a[32] = { 0x21 }, bin_a[32] = { 0x22 };
static const uint8_t man_b[32] = { 0x23 }, bin_b[32] = { 0x24 };
static const char *const in_b[] = { "needle" };
static const char *const ph_b[] = { "email" };
static const struct hw_plan_plugin plan_plugins[2] = {
	{ "is-pdf", "1.0.0", "official", man_a, bin_a, 0, NULL, NULL },
	{ "contains", "1.2.0", "official", man_b, bin_b, 1, in_b, ph_b },
};

void
sample_plan(struct hw_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->profile = "invoices";
	p->key = "2024/a.pdf";
	p->handle = "";
	p->sha256 = sha_a;
	p->nplugins = 2;
	p->plugins = plan_plugins;
}
