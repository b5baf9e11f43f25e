/* REQUEST, TICKETLIST, the plan hash and the agent commitment
 * (docs/hub.md). */
#include "hubwire/msg.h"

#include <string.h>

#include <sodium.h>

#define TRY(x) do { enum hw_err e_ = (x); if (e_ != HW_OK) return e_; } while (0)

enum hw_err
hw_request_encode(const struct hw_request *q, const uint8_t *sk,
    struct buf **out)
{
	struct hw_writer w;

	hw_writer_init(&w, HW_MAX_SIGNED_SMALL);
	hw_put_header(&w, HW_MAGIC_REQUEST, HW_VERSION);
	hw_put_text(&w, HW_T_METHOD, 3, 4, q->method);
	hw_put_text(&w, HW_T_PATH, 1, 256, q->path);
	hw_put_field(&w, q->body_hash, HW_HASH_LEN);
	hw_put_u64(&w, q->time_ms);
	hw_put_field(&w, q->nonce, HW_REQ_NONCE_LEN);
	hw_put_field(&w, q->key, HW_KEY_LEN);
	hw_put_signature(&w, sk);
	return hw_writer_done(&w, out);
}

enum hw_err
hw_request_parse(const uint8_t *d, size_t len, struct hw_request *o)
{
	struct hw_reader r;

	memset(o, 0, sizeof(*o));
	if (len > HW_MAX_SIGNED_SMALL)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_REQUEST, HW_VERSION));
	TRY(hw_get_text(&r, HW_T_METHOD, 3, 4, o->method));
	TRY(hw_get_text(&r, HW_T_PATH, 1, 256, o->path));
	TRY(hw_get_fixed(&r, o->body_hash, HW_HASH_LEN));
	TRY(hw_get_u64(&r, &o->time_ms));
	TRY(hw_get_fixed(&r, o->nonce, HW_REQ_NONCE_LEN));
	TRY(hw_get_fixed(&r, o->key, HW_KEY_LEN));
	TRY(hw_get_signature(&r, &o->signed_len, o->sig));
	return hw_end(&r);
}

enum hw_err
hw_list_encode(const struct hw_list *l, struct buf **out)
{
	struct hw_writer w, items;
	size_t i;

	hw_writer_init(&w, HW_MAX_LIST);
	hw_put_header(&w, HW_MAGIC_LIST, HW_VERSION);
	hw_put_u64(&w, l->seq);
	if (l->n > HW_MAX_LIST_ITEMS)
		w.err = HW_E_COUNT;
	hw_list_begin(&items, HW_MAX_LIST, (uint32_t)l->n);
	for (i = 0; i < l->n && i < HW_MAX_LIST_ITEMS; i++) {
		struct hw_writer it;
		hw_writer_init(&it, HW_MAX_TICKET + 64);
		hw_put_u64(&it, l->items[i].seq);
		hw_put_field(&it, l->items[i].ticket, l->items[i].ticket_len);
		hw_put_sub(&items, &it);
	}
	hw_put_sub(&w, &items);
	return hw_writer_done(&w, out);
}

enum hw_err
hw_list_parse(const uint8_t *d, size_t len, struct hw_list *o)
{
	struct hw_reader r, items;
	size_t i;

	memset(o, 0, sizeof(*o));
	if (len > HW_MAX_LIST)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_LIST, HW_VERSION));
	TRY(hw_get_u64(&r, &o->seq));
	TRY(hw_get_list(&r, HW_MAX_LIST_ITEMS, &items, &o->n));
	for (i = 0; i < o->n; i++) {
		struct hw_reader it;
		TRY(hw_get_item(&items, HW_MAX_TICKET + 64, &it));
		TRY(hw_get_u64(&it, &o->items[i].seq));
		/* The cursor is the newest seq: no item beyond it. */
		if (o->items[i].seq > o->seq)
			return HW_E_VALUE;
		TRY(hw_get_field(&it, HW_HEADER_LEN, HW_MAX_TICKET,
		    &o->items[i].ticket, &o->items[i].ticket_len));
		TRY(hw_end(&it));
	}
	TRY(hw_end(&items));
	return hw_end(&r);
}

enum hw_err
hw_declist_encode(const struct hw_declist *l, struct buf **out)
{
	struct hw_writer w, items;
	size_t i;

	hw_writer_init(&w, HW_MAX_DECLIST);
	hw_put_header(&w, HW_MAGIC_DECLIST, HW_VERSION);
	if (l->n > HW_MAX_DECLIST_ITEMS)
		w.err = HW_E_COUNT;
	hw_list_begin(&items, HW_MAX_DECLIST, (uint32_t)l->n);
	for (i = 0; i < l->n && i < HW_MAX_DECLIST_ITEMS; i++) {
		struct hw_writer it;
		hw_writer_init(&it, HW_MAX_DECISION + 8);
		if (l->item_len[i] < HW_HEADER_LEN ||
		    l->item_len[i] > HW_MAX_DECISION)
			it.err = HW_E_LENGTH;
		hw_put_field(&it, l->item[i], l->item_len[i]);
		hw_put_sub(&items, &it);
	}
	hw_put_sub(&w, &items);
	return hw_writer_done(&w, out);
}

enum hw_err
hw_declist_parse(const uint8_t *d, size_t len, struct hw_declist *o)
{
	struct hw_reader r, items;
	size_t i;

	memset(o, 0, sizeof(*o));
	if (len > HW_MAX_DECLIST)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_DECLIST, HW_VERSION));
	TRY(hw_get_list(&r, HW_MAX_DECLIST_ITEMS, &items, &o->n));
	for (i = 0; i < o->n; i++) {
		struct hw_reader it;
		enum hw_err e;

		if ((e = hw_get_item(&items, HW_MAX_DECISION + 8, &it)) != HW_OK ||
		    (e = hw_get_field(&it, HW_HEADER_LEN, HW_MAX_DECISION,
		    &o->item[i], &o->item_len[i])) != HW_OK ||
		    (e = hw_end(&it)) != HW_OK) {
			o->n = 0;
			return e;
		}
	}
	if (hw_end(&items) != HW_OK || hw_end(&r) != HW_OK) {
		o->n = 0;
		return HW_E_TRAILING;
	}
	return HW_OK;
}

enum hw_err
hw_plan_hash(const struct hw_plan *p, uint8_t out[HW_HASH_LEN])
{
	struct hw_writer w, plugins;
	struct buf *b;
	enum hw_err e;
	size_t i, j;

	hw_writer_init(&w, HW_MAX_TICKET);
	hw_put_header(&w, HW_MAGIC_PLAN, HW_VERSION);
	hw_put_text(&w, HW_T_PROFILE, 1, HW_MAX_PROFILE, p->profile);
	hw_put_text(&w, HW_T_BYTES, 1, HW_MAX_KEY, p->key);
	hw_put_text(&w, HW_T_HANDLE, 0, HW_ID_LEN, p->handle);
	hw_put_field(&w, p->sha256, p->sha256 != NULL ? 32 : 0);
	if (p->nplugins > HW_MAX_PLUGINS)
		w.err = HW_E_COUNT;
	hw_list_begin(&plugins, HW_MAX_TICKET, (uint32_t)p->nplugins);
	for (i = 0; i < p->nplugins && i < HW_MAX_PLUGINS; i++) {
		const struct hw_plan_plugin *pp = &p->plugins[i];
		struct hw_writer it, binds;

		hw_writer_init(&it, 4096);
		hw_put_text(&it, HW_T_PLUGIN, 1, HW_MAX_NAME, pp->name);
		hw_put_text(&it, HW_T_VERSION, 1, HW_MAX_VERSION, pp->version);
		hw_put_text(&it, HW_T_PLAIN, 1, 256, pp->marketplace);
		hw_put_field(&it, pp->manifest_sha256, 32);
		hw_put_field(&it, pp->binary_sha256, 32);
		if (pp->nbind > HW_MAX_BIND)
			it.err = HW_E_COUNT;
		hw_list_begin(&binds, 4096, (uint32_t)pp->nbind);
		for (j = 0; j < pp->nbind && j < HW_MAX_BIND; j++) {
			struct hw_writer bi;
			hw_writer_init(&bi, 128);
			hw_put_text(&bi, HW_T_INPUT, 1, HW_MAX_NAME, pp->input[j]);
			hw_put_text(&bi, HW_T_INPUT, 1, HW_MAX_NAME,
			    pp->placeholder[j]);
			hw_put_sub(&binds, &bi);
		}
		hw_put_sub(&it, &binds);
		hw_put_sub(&plugins, &it);
	}
	hw_put_sub(&w, &plugins);
	if ((e = hw_writer_done(&w, &b)) != HW_OK)
		return e;
	hw_hash(buf_data(b), buf_len(b), out);
	buf_free(b);
	return HW_OK;
}

#define AGENT_DOMAIN "lockhub/agent/v1"

void
hw_agent_commit(const uint8_t key[32], const char *ticket, const void *token,
    size_t token_len, uint8_t out[HW_HASH_LEN])
{
	crypto_generichash_state st;

	/* Keyed by a secret the hub never sees, so a weak token (a uid) is
	 * not brute-forced; the ticket id makes two tickets' commitments to
	 * one agent unlinkable. */
	crypto_generichash_init(&st, key, 32, HW_HASH_LEN);
	crypto_generichash_update(&st, (const uint8_t *)AGENT_DOMAIN,
	    sizeof(AGENT_DOMAIN) - 1);
	crypto_generichash_update(&st, (const uint8_t *)ticket, strlen(ticket));
	crypto_generichash_update(&st, token, token_len);
	crypto_generichash_final(&st, out, HW_HASH_LEN);
	sodium_memzero(&st, sizeof(st));
}
