/* TICKET: encoder and strict parser (docs/hub.md, "TICKET"). */
#include "hubwire/msg.h"

#include <string.h>

#include <sodium.h>

#define TRY(x) do { enum hw_err e_ = (x); if (e_ != HW_OK) return e_; } while (0)

/* ---- encoder ---- */

static void
put_binding(struct hw_writer *list, const struct hw_binding *b)
{
	struct hw_writer it;

	hw_writer_init(&it, 256);
	hw_put_text(&it, HW_T_INPUT, 1, HW_MAX_NAME, b->input);
	hw_put_text(&it, HW_T_INPUT, 1, HW_MAX_NAME, b->placeholder);
	hw_put_u8(&it, b->held ? 1 : 0);
	hw_put_u32(&it, b->replayed);
	hw_put_sub(list, &it);
}

static void
put_plugin(struct hw_writer *list, const struct hw_plugin *p)
{
	struct hw_writer it, binds;
	size_t i;

	hw_writer_init(&it, 8192);
	hw_put_text(&it, HW_T_PLUGIN, 1, HW_MAX_NAME, p->name);
	hw_put_text(&it, HW_T_VERSION, 1, HW_MAX_VERSION, p->version);
	hw_put_u8(&it, p->official ? 1 : 0);
	hw_put_text(&it, HW_T_PLAIN, 1, HW_MAX_TEXT, p->question);
	hw_put_text(&it, HW_T_PLAIN, 1, HW_MAX_TEXT, p->one);
	hw_put_text(&it, HW_T_PLAIN, 1, HW_MAX_TEXT, p->zero);
	if (p->nbind > HW_MAX_BIND)
		it.err = HW_E_COUNT;
	hw_list_begin(&binds, 4096, (uint32_t)p->nbind);
	for (i = 0; i < p->nbind && i < HW_MAX_BIND; i++)
		put_binding(&binds, &p->bind[i]);
	hw_put_sub(&it, &binds);
	hw_put_sub(list, &it);
}

static void
put_screen(struct hw_writer *w, const struct hw_screen *s)
{
	struct hw_writer sc, plugins, moved, ledger;
	size_t i;

	hw_writer_init(&sc, HW_MAX_TICKET);
	hw_put_text(&sc, HW_T_PROFILE, 1, HW_MAX_PROFILE, s->profile);
	hw_put_u8(&sc, s->production ? 1 : 0);
	hw_put_text(&sc, HW_T_BYTES, 1, HW_MAX_KEY, s->key);
	hw_put_text(&sc, HW_T_BYTES, 0, HW_MAX_KEY, s->typed);
	hw_put_text(&sc, HW_T_HANDLE, 0, HW_ID_LEN, s->handle);
	if (s->content > HW_CONTENT_UNCHECKED)
		sc.err = HW_E_VALUE;
	hw_put_u8(&sc, s->content);
	hw_put_field(&sc, s->sha256,
	    s->content == HW_CONTENT_FAILED ? 0 : sizeof(s->sha256));
	hw_put_u64(&sc, s->content == HW_CONTENT_FAILED ? 0 : s->size);
	hw_put_u32(&sc, s->reveals);
	hw_put_u32(&sc, s->left_before);
	if (s->nplugins > HW_MAX_PLUGINS || s->nmoved > HW_MAX_MOVED ||
	    s->nledger > HW_MAX_LEDGER)
		sc.err = HW_E_COUNT;
	hw_list_begin(&plugins, HW_MAX_TICKET, (uint32_t)s->nplugins);
	for (i = 0; i < s->nplugins && i < HW_MAX_PLUGINS; i++)
		put_plugin(&plugins, &s->plugins[i]);
	hw_put_sub(&sc, &plugins);
	hw_list_begin(&moved, 8192, (uint32_t)s->nmoved);
	for (i = 0; i < s->nmoved && i < HW_MAX_MOVED; i++) {
		struct hw_writer it;
		hw_writer_init(&it, 128);
		hw_put_text(&it, HW_T_PLAIN, 1, HW_MAX_LABEL, s->moved[i]);
		hw_put_sub(&moved, &it);
	}
	hw_put_sub(&sc, &moved);
	hw_list_begin(&ledger, 8192, (uint32_t)s->nledger);
	for (i = 0; i < s->nledger && i < HW_MAX_LEDGER; i++) {
		struct hw_writer it;
		hw_writer_init(&it, 128);
		hw_put_text(&it, HW_T_PLAIN, 1, HW_MAX_LABEL, s->ledger[i].label);
		hw_put_u32(&it, s->ledger[i].count);
		hw_put_sub(&ledger, &it);
	}
	hw_put_sub(&sc, &ledger);
	hw_put_sub(w, &sc);
}

/* Who may decide: up to 16 device keys, none twice (the parser's rule).
 * Empty when the console confirmed no approver: then no decision would
 * count, and no device sees the ticket. */
static void
put_approvers(struct hw_writer *w, const struct hw_ticket *t)
{
	struct hw_writer list;
	size_t i, j;

	for (i = 0; i < t->napprovers && i < HW_MAX_APPROVERS; i++)
		for (j = 0; j < i; j++)
			if (memcmp(t->approvers[i], t->approvers[j],
			    HW_KEY_LEN) == 0)
				w->err = HW_E_VALUE;
	if (t->napprovers > HW_MAX_APPROVERS)
		w->err = HW_E_COUNT;
	hw_list_begin(&list, 1024, (uint32_t)t->napprovers);
	for (i = 0; i < t->napprovers && i < HW_MAX_APPROVERS; i++) {
		struct hw_writer it;
		hw_writer_init(&it, 64);
		hw_put_field(&it, t->approvers[i], HW_KEY_LEN);
		hw_put_sub(&list, &it);
	}
	hw_put_sub(w, &list);
}

enum hw_err
hw_ticket_encode(const struct hw_ticket *t, const uint8_t *sk,
    struct buf **out)
{
	struct hw_writer w, phs;
	size_t i;

	hw_writer_init(&w, HW_MAX_TICKET);
	hw_put_header(&w, HW_MAGIC_TICKET, HW_VERSION_TICKET);
	hw_put_text(&w, HW_T_INSTANCE, 1, HW_MAX_NAME, t->instance);
	hw_put_field(&w, t->instance_key, HW_KEY_LEN);
	hw_put_text(&w, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, t->id);
	hw_put_field(&w, t->nonce, HW_NONCE_LEN);
	hw_put_u64(&w, t->created_ms);
	hw_put_u64(&w, t->expires_ms);
	hw_put_field(&w, t->plan_hash, HW_HASH_LEN);
	hw_put_field(&w, t->policy_fp, HW_HASH_LEN);
	hw_put_field(&w, t->agent_commit, HW_HASH_LEN);
	hw_put_text(&w, HW_T_PLAIN, 1, HW_MAX_LABEL, t->agent_label);
	hw_put_field(&w, t->box_pk, sizeof(t->box_pk));
	hw_put_text(&w, HW_T_TICKET, 0, HW_ID_LEN, t->renews);
	put_screen(&w, &t->screen);
	if (t->nph > HW_MAX_PLACEHOLDERS)
		w.err = HW_E_COUNT;
	hw_list_begin(&phs, 8192, (uint32_t)t->nph);
	for (i = 0; i < t->nph && i < HW_MAX_PLACEHOLDERS; i++) {
		struct hw_writer it;
		hw_writer_init(&it, 128);
		hw_put_text(&it, HW_T_INPUT, 1, HW_MAX_NAME, t->ph[i].name);
		if (t->ph[i].kind < HW_KIND_TEXT || t->ph[i].kind > HW_KIND_EMAIL ||
		    t->ph[i].max_bytes < 1 || t->ph[i].max_bytes > HW_MAX_VALUE)
			it.err = HW_E_VALUE;
		hw_put_u8(&it, t->ph[i].kind);
		hw_put_u32(&it, t->ph[i].max_bytes);
		hw_put_sub(&phs, &it);
	}
	hw_put_sub(&w, &phs);
	put_approvers(&w, t);
	hw_put_signature(&w, sk);
	return hw_writer_done(&w, out);
}

/* ---- parser ---- */

static enum hw_err
get_binding(struct hw_reader *items, struct hw_binding *b)
{
	struct hw_reader it;

	TRY(hw_get_item(items, 256, &it));
	TRY(hw_get_text(&it, HW_T_INPUT, 1, HW_MAX_NAME, b->input));
	TRY(hw_get_text(&it, HW_T_INPUT, 1, HW_MAX_NAME, b->placeholder));
	TRY(hw_get_bool(&it, &b->held));
	TRY(hw_get_u32(&it, UINT32_MAX, &b->replayed));
	return hw_end(&it);
}

static enum hw_err
get_plugin(struct hw_reader *items, struct hw_plugin *p)
{
	struct hw_reader it, binds;
	size_t i;

	TRY(hw_get_item(items, 8192, &it));
	TRY(hw_get_text(&it, HW_T_PLUGIN, 1, HW_MAX_NAME, p->name));
	TRY(hw_get_text(&it, HW_T_VERSION, 1, HW_MAX_VERSION, p->version));
	TRY(hw_get_bool(&it, &p->official));
	TRY(hw_get_text(&it, HW_T_PLAIN, 1, HW_MAX_TEXT, p->question));
	TRY(hw_get_text(&it, HW_T_PLAIN, 1, HW_MAX_TEXT, p->one));
	TRY(hw_get_text(&it, HW_T_PLAIN, 1, HW_MAX_TEXT, p->zero));
	TRY(hw_get_list(&it, HW_MAX_BIND, &binds, &p->nbind));
	for (i = 0; i < p->nbind; i++)
		TRY(get_binding(&binds, &p->bind[i]));
	TRY(hw_end(&binds));
	return hw_end(&it);
}

static enum hw_err
get_screen(struct hw_reader *r, struct hw_screen *s)
{
	struct hw_reader sc, l;
	const uint8_t *d;
	size_t len, i;

	TRY(hw_get_field(r, 0, HW_MAX_TICKET, &d, &len));
	hw_reader_init(&sc, d, len);
	TRY(hw_get_text(&sc, HW_T_PROFILE, 1, HW_MAX_PROFILE, s->profile));
	TRY(hw_get_bool(&sc, &s->production));
	TRY(hw_get_text(&sc, HW_T_BYTES, 1, HW_MAX_KEY, s->key));
	TRY(hw_get_text(&sc, HW_T_BYTES, 0, HW_MAX_KEY, s->typed));
	TRY(hw_get_text(&sc, HW_T_HANDLE, 0, HW_ID_LEN, s->handle));
	TRY(hw_get_u8(&sc, HW_CONTENT_UNCHECKED, &s->content));
	if (s->content == HW_CONTENT_FAILED) {
		/* Nothing was fetched: no hash, no size. */
		TRY(hw_get_field(&sc, 0, 0, &d, &len));
		memset(s->sha256, 0, sizeof(s->sha256));
		TRY(hw_get_u64(&sc, &s->size));
		if (s->size != 0)
			return HW_E_VALUE;
	} else {
		TRY(hw_get_fixed(&sc, s->sha256, sizeof(s->sha256)));
		TRY(hw_get_u64(&sc, &s->size));
	}
	TRY(hw_get_u32(&sc, HW_MAX_PLUGINS, &s->reveals));
	TRY(hw_get_u32(&sc, UINT32_MAX, &s->left_before));
	TRY(hw_get_list(&sc, HW_MAX_PLUGINS, &l, &s->nplugins));
	for (i = 0; i < s->nplugins; i++)
		TRY(get_plugin(&l, &s->plugins[i]));
	TRY(hw_end(&l));
	TRY(hw_get_list(&sc, HW_MAX_MOVED, &l, &s->nmoved));
	for (i = 0; i < s->nmoved; i++) {
		struct hw_reader it;
		TRY(hw_get_item(&l, 128, &it));
		TRY(hw_get_text(&it, HW_T_PLAIN, 1, HW_MAX_LABEL, s->moved[i]));
		TRY(hw_end(&it));
	}
	TRY(hw_end(&l));
	TRY(hw_get_list(&sc, HW_MAX_LEDGER, &l, &s->nledger));
	for (i = 0; i < s->nledger; i++) {
		struct hw_reader it;
		TRY(hw_get_item(&l, 128, &it));
		TRY(hw_get_text(&it, HW_T_PLAIN, 1, HW_MAX_LABEL,
		    s->ledger[i].label));
		TRY(hw_get_u32(&it, UINT32_MAX, &s->ledger[i].count));
		TRY(hw_end(&it));
	}
	TRY(hw_end(&l));
	/* The card's own arithmetic: a plan never reveals more than the
	 * handle has left, and names one plugin per answer. */
	if (s->reveals != s->nplugins || s->reveals > s->left_before)
		return HW_E_VALUE;
	return hw_end(&sc);
}

static enum hw_err
get_approvers(struct hw_reader *r, struct hw_ticket *t)
{
	struct hw_reader l;
	size_t i, j;

	TRY(hw_get_list(r, HW_MAX_APPROVERS, &l, &t->napprovers));
	for (i = 0; i < t->napprovers; i++) {
		struct hw_reader it;
		TRY(hw_get_item(&l, 64, &it));
		TRY(hw_get_fixed(&it, t->approvers[i], HW_KEY_LEN));
		TRY(hw_end(&it));
		for (j = 0; j < i; j++)
			if (memcmp(t->approvers[j], t->approvers[i],
			    HW_KEY_LEN) == 0)
				return HW_E_VALUE;
	}
	return hw_end(&l);
}

enum hw_err
hw_ticket_parse(const uint8_t *d, size_t len, struct hw_ticket *t)
{
	struct hw_reader r, l;
	size_t i, j;

	memset(t, 0, sizeof(*t));
	if (len > HW_MAX_TICKET)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_TICKET, HW_VERSION_TICKET));
	TRY(hw_get_text(&r, HW_T_INSTANCE, 1, HW_MAX_NAME, t->instance));
	TRY(hw_get_fixed(&r, t->instance_key, HW_KEY_LEN));
	TRY(hw_get_text(&r, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, t->id));
	TRY(hw_get_fixed(&r, t->nonce, HW_NONCE_LEN));
	TRY(hw_get_u64(&r, &t->created_ms));
	TRY(hw_get_u64(&r, &t->expires_ms));
	if (t->expires_ms <= t->created_ms)
		return HW_E_VALUE;
	TRY(hw_get_fixed(&r, t->plan_hash, HW_HASH_LEN));
	TRY(hw_get_fixed(&r, t->policy_fp, HW_HASH_LEN));
	TRY(hw_get_fixed(&r, t->agent_commit, HW_HASH_LEN));
	TRY(hw_get_text(&r, HW_T_PLAIN, 1, HW_MAX_LABEL, t->agent_label));
	TRY(hw_get_fixed(&r, t->box_pk, sizeof(t->box_pk)));
	TRY(hw_get_text(&r, HW_T_TICKET, 0, HW_ID_LEN, t->renews));
	TRY(get_screen(&r, &t->screen));
	TRY(hw_get_list(&r, HW_MAX_PLACEHOLDERS, &l, &t->nph));
	for (i = 0; i < t->nph; i++) {
		struct hw_reader it;
		TRY(hw_get_item(&l, 128, &it));
		TRY(hw_get_text(&it, HW_T_INPUT, 1, HW_MAX_NAME, t->ph[i].name));
		TRY(hw_get_u8(&it, HW_KIND_EMAIL, &t->ph[i].kind));
		if (t->ph[i].kind < HW_KIND_TEXT)
			return HW_E_VALUE;
		TRY(hw_get_u32(&it, HW_MAX_VALUE, &t->ph[i].max_bytes));
		if (t->ph[i].max_bytes == 0)
			return HW_E_VALUE;
		TRY(hw_end(&it));
		/* One value per placeholder: a name listed twice could be
		 * typed twice, differently. */
		for (j = 0; j < i; j++)
			if (strcmp(t->ph[j].name, t->ph[i].name) == 0)
				return HW_E_VALUE;
	}
	TRY(hw_end(&l));
	TRY(get_approvers(&r, t));
	TRY(hw_get_signature(&r, &t->signed_len, t->sig));
	return hw_end(&r);
}

int
hw_ticket_names(const struct hw_ticket *t, const uint8_t pk[HW_KEY_LEN])
{
	size_t i;
	int found = 0;

	for (i = 0; i < t->napprovers && i < HW_MAX_APPROVERS; i++)
		found |= sodium_memcmp(t->approvers[i], pk, HW_KEY_LEN) == 0;
	return found;
}
