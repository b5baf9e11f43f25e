/* The passkey layouts (docs/hub.md, "CARD, DECISION-PK, DECISION-P"):
 * CARD (console -> hub -> page, signed by the instance key), DECISION-PK
 * (page -> hub -> console: the WebAuthn assertion, not Ed25519-signed) and
 * the DECISION-P envelope {DECISION-PK, DECISION-HUB}. Framing, limits
 * and alphabets only; the assertion itself is src/hubwire/passkey.c's. */
#include "hubwire/msg.h"

#include <string.h>

#define TRY(x) do { enum hw_err e_ = (x); if (e_ != HW_OK) return e_; } while (0)

/* ---- CARD ---- */

enum hw_err
hw_card_encode(const struct hw_card *c, const uint8_t *sk, struct buf **out)
{
	struct hw_writer w, list;
	size_t i;

	hw_writer_init(&w, HW_MAX_CARD);
	hw_put_header(&w, HW_MAGIC_CARD, HW_VERSION);
	hw_put_text(&w, HW_T_INSTANCE, 1, HW_MAX_NAME, c->instance);
	hw_put_text(&w, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, c->ticket);
	hw_put_field(&w, c->ticket_hash, HW_HASH_LEN);
	if (c->nlines > HW_MAX_CARD_LINES)
		w.err = HW_E_COUNT;
	hw_list_begin(&list, HW_MAX_CARD, (uint32_t)c->nlines);
	for (i = 0; i < c->nlines && i < HW_MAX_CARD_LINES; i++) {
		struct hw_writer it;
		hw_writer_init(&it, HW_MAX_CARD_LINE + 8);
		hw_put_text(&it, HW_T_PLAIN, 0, HW_MAX_CARD_LINE, c->lines[i]);
		hw_put_sub(&list, &it);
	}
	hw_put_sub(&w, &list);
	hw_put_signature(&w, sk);
	return hw_writer_done(&w, out);
}

static enum hw_err
card_parse(const uint8_t *d, size_t len, struct hw_card *o)
{
	struct hw_reader r, l;
	size_t i;

	memset(o, 0, sizeof(*o));
	if (len > HW_MAX_CARD)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_CARD, HW_VERSION));
	TRY(hw_get_text(&r, HW_T_INSTANCE, 1, HW_MAX_NAME, o->instance));
	TRY(hw_get_text(&r, HW_T_TICKET, HW_ID_LEN, HW_ID_LEN, o->ticket));
	TRY(hw_get_fixed(&r, o->ticket_hash, HW_HASH_LEN));
	TRY(hw_get_list(&r, HW_MAX_CARD_LINES, &l, &o->nlines));
	for (i = 0; i < o->nlines; i++) {
		struct hw_reader it;
		enum hw_err e;

		if ((e = hw_get_item(&l, HW_MAX_CARD_LINE + 8, &it)) != HW_OK ||
		    (e = hw_get_text(&it, HW_T_PLAIN, 0, HW_MAX_CARD_LINE,
		    o->lines[i])) != HW_OK || (e = hw_end(&it)) != HW_OK) {
			o->nlines = 0;
			return e;
		}
	}
	if (hw_end(&l) != HW_OK) {
		o->nlines = 0;
		return HW_E_TRAILING;
	}
	TRY(hw_get_signature(&r, &o->signed_len, o->sig));
	return hw_end(&r);
}

/* A refused message leaves nothing behind (no count, no pointer). */
enum hw_err
hw_card_parse(const uint8_t *d, size_t len, struct hw_card *o)
{
	enum hw_err e = card_parse(d, len, o);

	if (e != HW_OK)
		memset(o, 0, sizeof(*o));
	return e;
}

/* ---- DECISION-PK ---- */

static int
hashes_distinct(const struct hw_pk *p)
{
	size_t i, j;

	for (i = 0; i < p->nhashes && i < HW_MAX_PK_HASHES; i++)
		for (j = 0; j < i; j++)
			if (memcmp(p->hashes[i], p->hashes[j], HW_HASH_LEN) == 0)
				return 0;
	return 1;
}

/* Mute minutes belong to a deny-and-mute and to nothing else. */
static int
mute_ok(uint8_t verdict, uint32_t minutes)
{
	if (verdict == HW_DENY_MUTE)
		return minutes >= 1 && minutes <= HW_MAX_MUTE;
	return verdict <= HW_APPROVE && minutes == 0;
}

static void
put_bytes(struct hw_writer *w, const uint8_t *p, size_t len, size_t min,
    size_t max)
{
	if (len < min || len > max || (p == NULL && len > 0))
		w->err = w->err == HW_OK ? HW_E_LENGTH : w->err;
	else
		hw_put_field(w, p, len);
}

enum hw_err
hw_pk_encode(const struct hw_pk *p, struct buf **out)
{
	struct hw_writer w, list;
	size_t i;

	hw_writer_init(&w, HW_MAX_PK);
	hw_put_header(&w, HW_MAGIC_PK, HW_VERSION);
	if (!mute_ok(p->verdict, p->mute_minutes))
		w.err = HW_E_VALUE;
	hw_put_u8(&w, p->verdict);
	hw_put_u32(&w, p->mute_minutes);
	if (w.err == HW_OK && (p->nhashes < 1 || p->nhashes > HW_MAX_PK_HASHES))
		w.err = HW_E_COUNT;
	if (w.err == HW_OK && !hashes_distinct(p))
		w.err = HW_E_VALUE;
	hw_list_begin(&list, 1024, (uint32_t)p->nhashes);
	for (i = 0; i < p->nhashes && i < HW_MAX_PK_HASHES; i++) {
		struct hw_writer it;
		hw_writer_init(&it, 64);
		hw_put_field(&it, p->hashes[i], HW_HASH_LEN);
		hw_put_sub(&list, &it);
	}
	hw_put_sub(&w, &list);
	hw_put_field(&w, p->passkey_id, HW_HASH_LEN);
	put_bytes(&w, p->cred_id, p->cred_id_len, 1, HW_MAX_CRED_ID);
	put_bytes(&w, p->authdata, p->authdata_len, 37, HW_MAX_AUTHDATA);
	put_bytes(&w, p->cdj, p->cdj_len, 1, HW_MAX_CDJ);
	put_bytes(&w, p->sig, p->sig_len, 8, 256);
	return hw_writer_done(&w, out);
}

static enum hw_err
pk_parse(const uint8_t *d, size_t len, struct hw_pk *o)
{
	struct hw_reader r, l;
	size_t i;

	memset(o, 0, sizeof(*o));
	if (len > HW_MAX_PK)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_PK, HW_VERSION));
	TRY(hw_get_u8(&r, HW_DENY_MUTE, &o->verdict));
	TRY(hw_get_u32(&r, HW_MAX_MUTE, &o->mute_minutes));
	if (!mute_ok(o->verdict, o->mute_minutes))
		return HW_E_VALUE;
	TRY(hw_get_list(&r, HW_MAX_PK_HASHES, &l, &o->nhashes));
	for (i = 0; i < o->nhashes; i++) {
		struct hw_reader it;
		enum hw_err e;

		if ((e = hw_get_item(&l, 64, &it)) != HW_OK ||
		    (e = hw_get_fixed(&it, o->hashes[i], HW_HASH_LEN)) !=
		    HW_OK || (e = hw_end(&it)) != HW_OK) {
			o->nhashes = 0;
			return e;
		}
	}
	if (hw_end(&l) != HW_OK) {
		o->nhashes = 0;
		return HW_E_TRAILING;
	}
	if (o->nhashes == 0)
		return HW_E_COUNT;
	if (!hashes_distinct(o)) {
		o->nhashes = 0;
		return HW_E_VALUE;
	}
	TRY(hw_get_fixed(&r, o->passkey_id, HW_HASH_LEN));
	TRY(hw_get_field(&r, 1, HW_MAX_CRED_ID, &o->cred_id, &o->cred_id_len));
	TRY(hw_get_field(&r, 37, HW_MAX_AUTHDATA, &o->authdata,
	    &o->authdata_len));
	TRY(hw_get_field(&r, 1, HW_MAX_CDJ, &o->cdj, &o->cdj_len));
	TRY(hw_get_field(&r, 8, 256, &o->sig, &o->sig_len));
	return hw_end(&r);
}

enum hw_err
hw_pk_parse(const uint8_t *d, size_t len, struct hw_pk *o)
{
	enum hw_err e = pk_parse(d, len, o);

	if (e != HW_OK)
		memset(o, 0, sizeof(*o));
	return e;
}

int
hw_pk_names(const struct hw_pk *p, const uint8_t h[HW_HASH_LEN])
{
	size_t i;

	for (i = 0; i < p->nhashes && i < HW_MAX_PK_HASHES; i++)
		if (memcmp(p->hashes[i], h, HW_HASH_LEN) == 0)
			return 1;
	return 0;
}

/* ---- DECISION-P ---- */

enum hw_err
hw_decp_encode(const struct hw_envelope *e, struct buf **out)
{
	struct hw_writer w;

	hw_writer_init(&w, HW_MAX_DECP);
	hw_put_header(&w, HW_MAGIC_DECP, HW_VERSION);
	put_bytes(&w, e->dev, e->dev_len, HW_HEADER_LEN, HW_MAX_PK);
	put_bytes(&w, e->hub, e->hub_len, HW_HEADER_LEN, HW_MAX_SIGNED_SMALL);
	return hw_writer_done(&w, out);
}

enum hw_err
hw_decp_parse(const uint8_t *d, size_t len, struct hw_envelope *e)
{
	struct hw_reader r;

	memset(e, 0, sizeof(*e));
	if (len > HW_MAX_DECP)
		return HW_E_TOOBIG;
	hw_reader_init(&r, d, len);
	TRY(hw_get_header(&r, HW_MAGIC_DECP, HW_VERSION));
	TRY(hw_get_field(&r, HW_HEADER_LEN, HW_MAX_PK, &e->dev, &e->dev_len));
	TRY(hw_get_field(&r, HW_HEADER_LEN, HW_MAX_SIGNED_SMALL, &e->hub,
	    &e->hub_len));
	return hw_end(&r);
}
