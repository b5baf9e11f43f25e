/* DECISION-DEV, DECISION-HUB, the DECISION and DEVPOST envelopes, and the
 * VALUES box (docs/hub.md). */
#include "hubwire/msg.h"
#include "lib/log.h"

#include <string.h>

#include <sodium.h>

#define TRY(x) do { enum hw_err e_ = (x); if (e_ != HW_OK) return e_; } while (0)

enum hw_err
hw_dev_encode(const struct hw_dev *d, const uint8_t *sk, struct buf **out)
{
	struct hw_writer w;

	hw_writer_init(&w, HW_MAX_SIGNED_SMALL);
	hw_put_header(&w, HW_MAGIC_DEV, HW_VERSION);
	hw_put_field(&w, d->ticket_hash, HW_HASH_LEN);
	hw_put_field(&w, d->instance_key, HW_KEY_LEN);
	hw_put_text(&w, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, d->ticket);
	hw_put_field(&w, d->nonce, HW_NONCE_LEN);
	if (d->verdict > HW_APPROVE)
		w.err = HW_E_VALUE;
	hw_put_u8(&w, d->verdict);
	hw_put_u64(&w, d->time_ms);
	hw_put_field(&w, d->device_key, HW_KEY_LEN);
	hw_put_field(&w, d->box_hash, HW_HASH_LEN);
	hw_put_signature(&w, sk);
	return hw_writer_done(&w, out);
}

enum hw_err
hw_dev_parse(const uint8_t *d, size_t len, struct hw_dev *o)
{
	struct hw_reader r;

	memset(o, 0, sizeof(*o));
	if (len > HW_MAX_SIGNED_SMALL)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_DEV, HW_VERSION));
	TRY(hw_get_fixed(&r, o->ticket_hash, HW_HASH_LEN));
	TRY(hw_get_fixed(&r, o->instance_key, HW_KEY_LEN));
	TRY(hw_get_text(&r, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, o->ticket));
	TRY(hw_get_fixed(&r, o->nonce, HW_NONCE_LEN));
	TRY(hw_get_u8(&r, HW_APPROVE, &o->verdict));
	TRY(hw_get_u64(&r, &o->time_ms));
	TRY(hw_get_fixed(&r, o->device_key, HW_KEY_LEN));
	TRY(hw_get_fixed(&r, o->box_hash, HW_HASH_LEN));
	TRY(hw_get_signature(&r, &o->signed_len, o->sig));
	return hw_end(&r);
}

enum hw_err
hw_hub_encode(const struct hw_hub *h, const uint8_t *sk, struct buf **out)
{
	struct hw_writer w;

	hw_writer_init(&w, HW_MAX_SIGNED_SMALL);
	hw_put_header(&w, HW_MAGIC_HUB, HW_VERSION);
	hw_put_field(&w, h->dev_hash, HW_HASH_LEN);
	hw_put_field(&w, h->hub_key, HW_KEY_LEN);
	hw_put_text(&w, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, h->ticket);
	hw_put_text(&w, HW_T_INSTANCE, 1, HW_MAX_NAME, h->approver);
	if (h->quorum < 1 || h->quorum > HW_MAX_QUORUM)
		w.err = HW_E_VALUE;
	hw_put_u32(&w, h->quorum);
	hw_put_u64(&w, h->time_ms);
	hw_put_signature(&w, sk);
	return hw_writer_done(&w, out);
}

/* The hub's countersignature over one approver's part (a DECISION-DEV or
 * a DECISION-PK) filed under a ticket: one approver's decision, quorum 1
 * (the console counts approvers against its policy: docs/hub.md,
 * "DECISION-HUB"). */
enum hw_err
hw_hub_countersign(const uint8_t *part, size_t part_len, const char *ticket,
    const char *approver, uint64_t time_ms, const uint8_t pk[HW_KEY_LEN],
    const uint8_t *sk, struct buf **out)
{
	struct hw_hub h;
	size_t tl = strlen(ticket), al = strlen(approver);

	if (tl >= sizeof(h.ticket) || al >= sizeof(h.approver))
		return HW_E_VALUE;
	memset(&h, 0, sizeof(h));
	hw_hash(part, part_len, h.dev_hash);
	memcpy(h.hub_key, pk, HW_KEY_LEN);
	memcpy(h.ticket, ticket, tl + 1);
	memcpy(h.approver, approver, al + 1);
	h.quorum = 1;
	h.time_ms = time_ms;
	return hw_hub_encode(&h, sk, out);
}

/* 1 when hub (parsed as x) verifies under one of the pinned keys, hashes
 * to part and names ticket; else 0 (the console's check chain, step 2). */
int
hw_hub_countersigns(const uint8_t *hub, const struct hw_hub *x,
    const uint8_t (*keys)[HW_KEY_LEN], size_t nkeys, const uint8_t *part,
    size_t part_len, const char *ticket)
{
	uint8_t hash[HW_HASH_LEN];
	size_t i;
	int ok = 0;

	for (i = 0; i < nkeys; i++)
		if (sodium_memcmp(x->hub_key, keys[i], HW_KEY_LEN) == 0 &&
		    hw_verify(hub, x->signed_len, x->sig, keys[i]) == HW_OK)
			ok = 1;
	hw_hash(part, part_len, hash);
	return ok && sodium_memcmp(hash, x->dev_hash, HW_HASH_LEN) == 0 &&
	    strcmp(x->ticket, ticket) == 0;
}

enum hw_err
hw_hub_parse(const uint8_t *d, size_t len, struct hw_hub *o)
{
	struct hw_reader r;

	memset(o, 0, sizeof(*o));
	if (len > HW_MAX_SIGNED_SMALL)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_HUB, HW_VERSION));
	TRY(hw_get_fixed(&r, o->dev_hash, HW_HASH_LEN));
	TRY(hw_get_fixed(&r, o->hub_key, HW_KEY_LEN));
	TRY(hw_get_text(&r, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, o->ticket));
	TRY(hw_get_text(&r, HW_T_INSTANCE, 1, HW_MAX_NAME, o->approver));
	TRY(hw_get_u32(&r, HW_MAX_QUORUM, &o->quorum));
	if (o->quorum == 0)
		return HW_E_VALUE;
	TRY(hw_get_u64(&r, &o->time_ms));
	TRY(hw_get_signature(&r, &o->signed_len, o->sig));
	return hw_end(&r);
}

/* ---- envelopes ---- */

static enum hw_err
envelope_encode(const char *magic, const struct hw_envelope *e, int with_hub,
    struct buf **out)
{
	struct hw_writer w;

	hw_writer_init(&w, HW_MAX_DECISION);
	hw_put_header(&w, magic, HW_VERSION);
	hw_put_field(&w, e->dev, e->dev_len);
	if (with_hub)
		hw_put_field(&w, e->hub, e->hub_len);
	hw_put_field(&w, e->box, e->box_len);
	return hw_writer_done(&w, out);
}

static enum hw_err
envelope_parse(const char *magic, const uint8_t *d, size_t len, int with_hub,
    struct hw_envelope *e)
{
	struct hw_reader r;

	memset(e, 0, sizeof(*e));
	if (len > HW_MAX_DECISION)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, magic, HW_VERSION));
	TRY(hw_get_field(&r, HW_HEADER_LEN, HW_MAX_SIGNED_SMALL, &e->dev,
	    &e->dev_len));
	if (with_hub)
		TRY(hw_get_field(&r, HW_HEADER_LEN, HW_MAX_SIGNED_SMALL, &e->hub,
		    &e->hub_len));
	TRY(hw_get_field(&r, HW_BOX_OVERHEAD, HW_MAX_BOX, &e->box, &e->box_len));
	return hw_end(&r);
}

enum hw_err
hw_decision_encode(const struct hw_envelope *e, struct buf **out)
{
	return envelope_encode(HW_MAGIC_DECISION, e, 1, out);
}

enum hw_err
hw_decision_parse(const uint8_t *d, size_t len, struct hw_envelope *out)
{
	return envelope_parse(HW_MAGIC_DECISION, d, len, 1, out);
}

enum hw_err
hw_devpost_encode(const struct hw_envelope *e, struct buf **out)
{
	return envelope_encode(HW_MAGIC_DEVPOST, e, 0, out);
}

enum hw_err
hw_devpost_parse(const uint8_t *d, size_t len, struct hw_envelope *out)
{
	return envelope_parse(HW_MAGIC_DEVPOST, d, len, 0, out);
}

/* ---- VALUES ---- */

static void
values_init(void)
{
	if (sodium_init() < 0)
		fatal("libsodium cannot be initialised");
}

enum hw_err
hw_values_seal(const struct hw_value *v, size_t n, const uint8_t box_pk[32],
    struct buf **out)
{
	struct hw_writer w, list;
	struct buf *plain;
	uint8_t *box;
	size_t i, blen;
	enum hw_err e;

	values_init();
	*out = NULL;
	hw_writer_init(&w, HW_MAX_VALUES);
	hw_put_header(&w, HW_MAGIC_VALUES, HW_VERSION);
	if (n > HW_MAX_PLACEHOLDERS)
		w.err = HW_E_COUNT;
	hw_list_begin(&list, HW_MAX_VALUES, (uint32_t)n);
	for (i = 0; i < n && i < HW_MAX_PLACEHOLDERS; i++) {
		struct hw_writer it;
		hw_writer_init(&it, HW_MAX_VALUE + 64);
		hw_put_text(&it, HW_T_INPUT, 1, HW_MAX_NAME, v[i].name);
		if (v[i].len < 1 || v[i].len > HW_MAX_VALUE)
			it.err = HW_E_LENGTH;
		hw_put_field(&it, v[i].bytes, v[i].len);
		hw_put_sub(&list, &it);
	}
	hw_put_sub(&w, &list);
	if ((e = hw_writer_done(&w, &plain)) != HW_OK)
		return e;
	blen = buf_len(plain) + crypto_box_SEALBYTES;
	box = sodium_malloc(blen);
	if (box == NULL)
		fatal("out of locked memory");
	if (crypto_box_seal(box, buf_data(plain), buf_len(plain), box_pk) != 0) {
		buf_free(plain);
		sodium_free(box);
		return HW_E_BOX;
	}
	buf_free(plain);	/* wiped */
	*out = buf_new(blen);
	if (buf_append(*out, box, blen) != 0)
		fatal("box buffer");
	sodium_free(box);
	return HW_OK;
}

enum hw_err
hw_values_parse(const uint8_t *d, size_t len, struct hw_values *vs)
{
	struct hw_reader r, list;
	size_t i, j;

	vs->n = 0;
	if (len > HW_MAX_VALUES)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_VALUES, HW_VERSION));
	TRY(hw_get_list(&r, HW_MAX_PLACEHOLDERS, &list, &vs->n));
	for (i = 0; i < vs->n; i++) {
		struct hw_reader it;
		enum hw_err e;

		if ((e = hw_get_item(&list, HW_MAX_VALUE + 64, &it)) != HW_OK ||
		    (e = hw_get_text(&it, HW_T_INPUT, 1, HW_MAX_NAME,
		    vs->v[i].name)) != HW_OK ||
		    (e = hw_get_field(&it, 1, HW_MAX_VALUE, &vs->v[i].bytes,
		    &vs->v[i].len)) != HW_OK ||
		    (e = hw_end(&it)) != HW_OK) {
			vs->n = 0;
			return e;
		}
		for (j = 0; j < i; j++)
			if (strcmp(vs->v[j].name, vs->v[i].name) == 0) {
				vs->n = 0;
				return HW_E_VALUE;
			}
	}
	if (hw_end(&list) != HW_OK || hw_end(&r) != HW_OK) {
		vs->n = 0;
		return HW_E_TRAILING;
	}
	return HW_OK;
}

enum hw_err
hw_values_open(const uint8_t *box, size_t box_len, const uint8_t box_pk[32],
    const uint8_t *box_sk, struct hw_values *vs)
{
	enum hw_err e;

	values_init();
	memset(vs, 0, sizeof(*vs));
	if (box_len < crypto_box_SEALBYTES || box_len > HW_MAX_BOX)
		return HW_E_BOX;
	vs->plain_len = box_len - crypto_box_SEALBYTES;
	/* The plaintext holds the typed values: locked, guarded memory only
	 * (docs/hub.md, "Secrets"). */
	vs->plain = sodium_malloc(vs->plain_len + 1);
	if (vs->plain == NULL)
		fatal("out of locked memory");
	if (crypto_box_seal_open(vs->plain, box, box_len, box_pk, box_sk) != 0) {
		hw_values_free(vs);
		return HW_E_BOX;
	}
	if ((e = hw_values_parse(vs->plain, vs->plain_len, vs)) != HW_OK) {
		hw_values_free(vs);
		return e;
	}
	return HW_OK;
}

void
hw_values_free(struct hw_values *vs)
{
	if (vs->plain != NULL)
		sodium_free(vs->plain);	/* zeroed by libsodium */
	sodium_memzero(vs, sizeof(*vs));
}
