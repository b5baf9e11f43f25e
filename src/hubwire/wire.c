/* The hub messages' framing (see wire.h). */
#include "hubwire/wire.h"
#include "lib/crypto.h"
#include "lib/escape.h"
#include "protocol/shape.h"

#include <string.h>

#include <sodium.h>

static const char *const err_names[HW_E__COUNT] = {
	[HW_OK] = "ok",
	[HW_E_SHORT] = "short",
	[HW_E_MAGIC] = "magic",
	[HW_E_VERSION] = "version",
	[HW_E_LENGTH] = "length",
	[HW_E_VALUE] = "value",
	[HW_E_COUNT] = "count",
	[HW_E_TRAILING] = "trailing",
	[HW_E_TOOBIG] = "too-big",
	[HW_E_SIGNATURE] = "signature",
	[HW_E_BOX] = "box",
};

const char *
hw_err_name(enum hw_err e)
{
	if ((int)e < 0 || e >= HW_E__COUNT)
		return "unknown";
	return err_names[e];
}

void
hw_reader_init(struct hw_reader *r, const void *data, size_t len)
{
	r->p = data;
	r->len = data == NULL ? 0 : len;
	r->off = 0;
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

enum hw_err
hw_get_header(struct hw_reader *r, const char magic[HW_MAGIC_LEN],
    uint16_t want)
{
	uint16_t v;

	if (r->len - r->off < HW_HEADER_LEN)
		return HW_E_SHORT;
	if (memcmp(r->p + r->off, magic, HW_MAGIC_LEN) != 0)
		return HW_E_MAGIC;
	v = (uint16_t)(r->p[r->off + 8] << 8 | r->p[r->off + 9]);
	if (v != want)
		return HW_E_VERSION;
	r->off += HW_HEADER_LEN;
	return HW_OK;
}

enum hw_err
hw_get_field(struct hw_reader *r, size_t min, size_t max,
    const uint8_t **data, size_t *len)
{
	uint32_t n;

	if (r->len - r->off < 4)
		return HW_E_SHORT;
	n = be32(r->p + r->off);
	/* The length against the field's limits first, then against what is
	 * left: a huge length is a length error, never an allocation. */
	if (n < min || n > max)
		return HW_E_LENGTH;
	if (r->len - r->off - 4 < n)
		return HW_E_SHORT;
	*data = r->p + r->off + 4;
	*len = n;
	r->off += 4 + (size_t)n;
	return HW_OK;
}

enum hw_err
hw_get_fixed(struct hw_reader *r, void *out, size_t n)
{
	const uint8_t *d;
	size_t len;
	enum hw_err e = hw_get_field(r, n, n, &d, &len);

	if (e == HW_OK)
		memcpy(out, d, n);
	return e;
}

enum hw_err
hw_get_fixed_opt(struct hw_reader *r, void *out, size_t n, int *present)
{
	const uint8_t *d;
	size_t len;
	enum hw_err e = hw_get_field(r, 0, n, &d, &len);

	if (e != HW_OK)
		return e;
	if (len != 0 && len != n)
		return HW_E_LENGTH;
	*present = len == n;
	if (len == n)
		memcpy(out, d, n);
	else
		memset(out, 0, n);
	return HW_OK;
}

enum hw_err
hw_get_u64(struct hw_reader *r, uint64_t *v)
{
	uint8_t b[8];
	enum hw_err e = hw_get_fixed(r, b, 8);
	int i;

	if (e != HW_OK)
		return e;
	*v = 0;
	for (i = 0; i < 8; i++)
		*v = *v << 8 | b[i];
	return HW_OK;
}

enum hw_err
hw_get_u32(struct hw_reader *r, uint32_t max, uint32_t *v)
{
	uint8_t b[4];
	enum hw_err e = hw_get_fixed(r, b, 4);

	if (e != HW_OK)
		return e;
	*v = be32(b);
	return *v > max ? HW_E_VALUE : HW_OK;
}

enum hw_err
hw_get_u8(struct hw_reader *r, uint8_t max, uint8_t *v)
{
	enum hw_err e = hw_get_fixed(r, v, 1);

	if (e != HW_OK)
		return e;
	return *v > max ? HW_E_VALUE : HW_OK;
}

enum hw_err
hw_get_bool(struct hw_reader *r, int *v)
{
	uint8_t b;
	enum hw_err e = hw_get_u8(r, 1, &b);

	if (e == HW_OK)
		*v = b;
	return e;
}

static int
charset(const char *s, size_t n, const char *first, const char *rest)
{
	size_t i;

	if (n == 0 || strchr(first, s[0]) == NULL)
		return 0;
	for (i = 1; i < n; i++)
		if (strchr(rest, s[i]) == NULL)
			return 0;
	return 1;
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define DIGIT "0123456789"

/* s is NUL-free here (the caller checked), so the protocol's string
 * checkers see all of it. */
int
hw_text_ok(enum hw_text kind, const char *s, size_t len)
{
	if (memchr(s, '\0', len) != NULL)
		return 0;
	switch (kind) {
	case HW_T_BYTES:
		return 1;
	case HW_T_PLAIN:
		return text_is_plain(s, len);
	case HW_T_PLUGIN:
		return len <= 32 && charset(s, len, LOWER, LOWER DIGIT "-");
	case HW_T_INPUT:
		return len <= 32 && charset(s, len, LOWER, LOWER DIGIT "_");
	case HW_T_PROFILE:
		return len <= 64 && charset(s, len, LOWER DIGIT,
		    LOWER DIGIT "_-");
	case HW_T_INSTANCE:
		return len <= 32 && charset(s, len, LOWER DIGIT,
		    LOWER DIGIT "_-");
	case HW_T_VERSION: {
		char v[24];
		if (len >= sizeof(v))
			return 0;
		memcpy(v, s, len);
		v[len] = '\0';
		return version_is_valid(v);
	}
	case HW_T_TICKET:
		return len == 2 + ID_HEX_LEN && memcmp(s, "t_", 2) == 0 &&
		    is_lower_hex(s + 2, ID_HEX_LEN);
	case HW_T_HANDLE:
		return len == 2 + ID_HEX_LEN && memcmp(s, "f_", 2) == 0 &&
		    is_lower_hex(s + 2, ID_HEX_LEN);
	case HW_T_PATH:
		return len <= 256 && charset(s, len, "/",
		    LOWER DIGIT "ABCDEFGHIJKLMNOPQRSTUVWXYZ_./-");
	case HW_T_METHOD:
		return (len == 3 && memcmp(s, "GET", 3) == 0) ||
		    (len == 4 && memcmp(s, "POST", 4) == 0);
	}
	return 0;
}

enum hw_err
hw_get_text(struct hw_reader *r, enum hw_text kind, size_t min, size_t max,
    char *out)
{
	const uint8_t *d;
	size_t len;
	enum hw_err e = hw_get_field(r, min, max, &d, &len);

	if (e != HW_OK)
		return e;
	/* An empty field is "absent" where min allows it (a renewal's
	 * renews, a plan's handle), whatever the alphabet. */
	if (len > 0 && !hw_text_ok(kind, (const char *)d, len))
		return HW_E_VALUE;
	memcpy(out, d, len);
	out[len] = '\0';
	return HW_OK;
}

enum hw_err
hw_get_list(struct hw_reader *r, size_t max, struct hw_reader *items,
    size_t *count)
{
	const uint8_t *d;
	size_t len;
	uint32_t n;
	enum hw_err e = hw_get_field(r, 4, SIZE_MAX > UINT32_MAX ? UINT32_MAX
	    : SIZE_MAX, &d, &len);

	if (e != HW_OK)
		return e;
	n = be32(d);
	if (n > max)
		return HW_E_COUNT;
	/* Each item is at least its 4-byte length: a count the bytes cannot
	 * hold is refused before any item is read. */
	if ((len - 4) / 4 < n)
		return HW_E_SHORT;
	hw_reader_init(items, d + 4, len - 4);
	*count = n;
	return HW_OK;
}

enum hw_err
hw_get_item(struct hw_reader *items, size_t maxlen, struct hw_reader *item)
{
	const uint8_t *d;
	size_t len;
	enum hw_err e = hw_get_field(items, 0, maxlen, &d, &len);

	if (e != HW_OK)
		return e;
	hw_reader_init(item, d, len);
	return HW_OK;
}

enum hw_err
hw_end(const struct hw_reader *r)
{
	return r->off == r->len ? HW_OK : HW_E_TRAILING;
}

enum hw_err
hw_get_signature(struct hw_reader *r, size_t *signed_len,
    uint8_t sig[HW_SIG_LEN])
{
	size_t at = r->off;
	enum hw_err e = hw_get_fixed(r, sig, HW_SIG_LEN);

	if (e != HW_OK)
		return e;
	*signed_len = at;
	return HW_OK;
}

enum hw_err
hw_verify(const uint8_t *msg, size_t signed_len, const uint8_t sig[HW_SIG_LEN],
    const uint8_t pk[HW_KEY_LEN])
{
	/* Detached Ed25519 over the bytes themselves, never the ph variant
	 * (crypto_sign_init/update/final signs a prehash that
	 * verify_detached refuses: docs/hub.md). */
	return crypto_sign_verify_detached(sig, msg, signed_len, pk) == 0 ?
	    HW_OK : HW_E_SIGNATURE;
}

void
hw_hash(const void *data, size_t len, uint8_t out[HW_HASH_LEN])
{
	crypto_generichash(out, HW_HASH_LEN, data, len, NULL, 0);
}

/* ---- writer ---- */

void
hw_writer_init(struct hw_writer *w, size_t max)
{
	w->b = buf_new(max);
	w->err = HW_OK;
}

void
hw_writer_free(struct hw_writer *w)
{
	buf_free(w->b);
	w->b = NULL;
}

static void
put(struct hw_writer *w, const void *d, size_t len)
{
	if (w->err != HW_OK)
		return;
	if (buf_append(w->b, d, len) != 0)
		w->err = HW_E_TOOBIG;
}

void
hw_put_header(struct hw_writer *w, const char magic[HW_MAGIC_LEN],
    uint16_t version)
{
	uint8_t v[2] = { (uint8_t)(version >> 8), (uint8_t)version };

	put(w, magic, HW_MAGIC_LEN);
	put(w, v, 2);
}

static void
put_len(struct hw_writer *w, size_t len)
{
	uint8_t l[4];

	if (len > UINT32_MAX) {
		if (w->err == HW_OK)
			w->err = HW_E_TOOBIG;
		return;
	}
	l[0] = (uint8_t)(len >> 24);
	l[1] = (uint8_t)(len >> 16);
	l[2] = (uint8_t)(len >> 8);
	l[3] = (uint8_t)len;
	put(w, l, 4);
}

void
hw_put_field(struct hw_writer *w, const void *data, size_t len)
{
	put_len(w, len);
	if (len > 0)
		put(w, data, len);
}

void
hw_put_u64(struct hw_writer *w, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
	hw_put_field(w, b, 8);
}

void
hw_put_u32(struct hw_writer *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
	    (uint8_t)(v >> 8), (uint8_t)v };

	hw_put_field(w, b, 4);
}

void
hw_put_u8(struct hw_writer *w, uint8_t v)
{
	hw_put_field(w, &v, 1);
}

void
hw_put_text(struct hw_writer *w, enum hw_text kind, size_t min, size_t max,
    const char *s)
{
	size_t len = s == NULL ? 0 : strlen(s);

	/* We never sign what our own parser would refuse. */
	if (len < min || len > max || (len > 0 && !hw_text_ok(kind, s, len))) {
		if (w->err == HW_OK)
			w->err = HW_E_VALUE;
		return;
	}
	hw_put_field(w, s, len);
}

void
hw_put_sub(struct hw_writer *w, struct hw_writer *sub)
{
	if (sub->err != HW_OK && w->err == HW_OK)
		w->err = sub->err;
	hw_put_field(w, buf_data(sub->b), buf_len(sub->b));
	hw_writer_free(sub);
}

void
hw_list_begin(struct hw_writer *list, size_t max, uint32_t count)
{
	uint8_t c[4] = { (uint8_t)(count >> 24), (uint8_t)(count >> 16),
	    (uint8_t)(count >> 8), (uint8_t)count };

	hw_writer_init(list, max);
	put(list, c, 4);
}

void
hw_put_signature(struct hw_writer *w, const uint8_t *sk)
{
	uint8_t sig[HW_SIG_LEN];

	if (w->err != HW_OK)
		return;
	crypto_sign_detached(sig, NULL, buf_data(w->b), buf_len(w->b), sk);
	hw_put_field(w, sig, sizeof(sig));
}

enum hw_err
hw_writer_done(struct hw_writer *w, struct buf **out)
{
	enum hw_err e = w->err;

	if (e != HW_OK) {
		hw_writer_free(w);
		*out = NULL;
		return e;
	}
	*out = w->b;
	w->b = NULL;
	return HW_OK;
}
