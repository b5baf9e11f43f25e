/* The framing every hub message shares (docs/hub.md, "Layouts"): an 8-byte
 * magic, a u16 version, then fields, each a u32 length (big-endian) and its
 * bytes, in a fixed order. A list is one field whose bytes are a u32 count
 * and that many items, each item one field whose bytes are the item's own
 * fields. A signed message ends with one more field, the 64-byte Ed25519
 * signature over every byte before that field.
 *
 * The reader is strict, in the manner of OpenSSH's sshbuf getters: every
 * length is checked against the field's own limits before its bytes are
 * looked at, text fields must be of their alphabet and never hold a NUL,
 * and a message or item with bytes left over is refused. The writer sits
 * on a lib/buf.h buffer with a ceiling, so no message grows past its cap. */
#ifndef LOCKFILE_HUBWIRE_WIRE_H
#define LOCKFILE_HUBWIRE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define HW_MAGIC_LEN	8
#define HW_HEADER_LEN	(HW_MAGIC_LEN + 2)
#define HW_SIG_LEN	64
#define HW_KEY_LEN	32
#define HW_HASH_LEN	32

/* Every failure of a hub message, named; hw_err_name() gives the word the
 * audit and the tests use. */
enum hw_err {
	HW_OK = 0,
	HW_E_SHORT,		/* ended inside a header, a length or a field */
	HW_E_MAGIC,		/* not this message's magic */
	HW_E_VERSION,		/* a version this build does not read */
	HW_E_LENGTH,		/* a field's length outside its limits */
	HW_E_VALUE,		/* a field's bytes not of its kind */
	HW_E_COUNT,		/* a list longer than its limit */
	HW_E_TRAILING,		/* bytes after the last field or item */
	HW_E_TOOBIG,		/* the message over its cap */
	HW_E_SIGNATURE,		/* the signature does not verify */
	HW_E_BOX,		/* a sealed box that does not open or match */
	HW_E__COUNT
};

const char *hw_err_name(enum hw_err e);

/* Alphabets of text fields. Every kind refuses NUL. */
enum hw_text {
	HW_T_BYTES,		/* any bytes but NUL (a key: rendered when shown) */
	HW_T_PLAIN,		/* printable ASCII (manifest text, labels) */
	HW_T_PLUGIN,		/* [a-z][a-z0-9-]{0,31} */
	HW_T_INPUT,		/* [a-z][a-z0-9_]{0,31} (input, placeholder) */
	HW_T_PROFILE,		/* [a-z0-9][a-z0-9_-]{0,63} */
	HW_T_INSTANCE,		/* [a-z0-9][a-z0-9_-]{0,31} */
	HW_T_VERSION,		/* MAJOR.MINOR.PATCH */
	HW_T_TICKET,		/* t_ + 32 lowercase hex digits */
	HW_T_HANDLE,		/* f_ + 32 lowercase hex digits */
	HW_T_PATH,		/* an HTTP path: '/' then [A-Za-z0-9_./-] */
	HW_T_METHOD,		/* GET or POST */
};

struct hw_reader {
	const uint8_t *p;
	size_t len, off;
};

void hw_reader_init(struct hw_reader *r, const void *data, size_t len);
/* The magic and a version equal to want. */
enum hw_err hw_get_header(struct hw_reader *r, const char magic[HW_MAGIC_LEN],
    uint16_t want);
/* One field of min..max bytes; *data points into the input. */
enum hw_err hw_get_field(struct hw_reader *r, size_t min, size_t max,
    const uint8_t **data, size_t *len);
/* A field of exactly n bytes, copied. */
enum hw_err hw_get_fixed(struct hw_reader *r, void *out, size_t n);
/* A fixed field of n bytes, or an empty one (*present = 0, out zeroed). */
enum hw_err hw_get_fixed_opt(struct hw_reader *r, void *out, size_t n,
    int *present);
enum hw_err hw_get_u64(struct hw_reader *r, uint64_t *v);
enum hw_err hw_get_u32(struct hw_reader *r, uint32_t max, uint32_t *v);
/* A one-byte field holding 0 or 1. */
enum hw_err hw_get_bool(struct hw_reader *r, int *v);
/* A one-byte field holding 0..max. */
enum hw_err hw_get_u8(struct hw_reader *r, uint8_t max, uint8_t *v);
/* A text field of min..max bytes of alphabet kind, copied NUL-terminated
 * into out (which holds max + 1 bytes). */
enum hw_err hw_get_text(struct hw_reader *r, enum hw_text kind, size_t min,
    size_t max, char *out);
/* A list field: *count items (at most max), each read from *item in turn
 * with hw_get_item(). */
enum hw_err hw_get_list(struct hw_reader *r, size_t max,
    struct hw_reader *items, size_t *count);
/* The next item of a list as a reader of its own (end it with hw_end()). */
enum hw_err hw_get_item(struct hw_reader *items, size_t maxlen,
    struct hw_reader *item);
/* Nothing may follow. */
enum hw_err hw_end(const struct hw_reader *r);

/* 1 when s[0..len) is of the alphabet (len within the kind's own limit). */
int hw_text_ok(enum hw_text kind, const char *s, size_t len);

/* The writer: errors are sticky, checked once by hw_writer_done(). */
struct hw_writer {
	struct buf *b;
	enum hw_err err;
};

void hw_writer_init(struct hw_writer *w, size_t max);
void hw_put_header(struct hw_writer *w, const char magic[HW_MAGIC_LEN],
    uint16_t version);
void hw_put_field(struct hw_writer *w, const void *data, size_t len);
void hw_put_u64(struct hw_writer *w, uint64_t v);
void hw_put_u32(struct hw_writer *w, uint32_t v);
void hw_put_u8(struct hw_writer *w, uint8_t v);
/* A text field, checked against its alphabet and max (HW_E_VALUE). */
void hw_put_text(struct hw_writer *w, enum hw_text kind, size_t min,
    size_t max, const char *s);
/* Append another writer's bytes as one field (a list, an item), and free
 * it; its error becomes ours. */
void hw_put_sub(struct hw_writer *w, struct hw_writer *sub);
/* A list field: count, then each item writer's bytes as a field. Built as
 * a sub-writer: hw_list_begin(), hw_list_item() per item, hw_put_sub(). */
void hw_list_begin(struct hw_writer *list, size_t max, uint32_t count);
/* Sign everything written so far with sk (crypto_sign's 64-byte secret
 * key) and append the signature field. */
void hw_put_signature(struct hw_writer *w, const uint8_t *sk);
/* HW_OK and the message (the caller frees it with buf_free), or the first
 * error (the buffer freed, *out NULL). */
enum hw_err hw_writer_done(struct hw_writer *w, struct buf **out);
void hw_writer_free(struct hw_writer *w);

/* Read the trailing signature field of a signed message whose fields end
 * at r's current offset: *signed_len is the offset where that field
 * starts. */
enum hw_err hw_get_signature(struct hw_reader *r, size_t *signed_len,
    uint8_t sig[HW_SIG_LEN]);
/* Verify sig over msg[0..signed_len) under the Ed25519 public key pk. */
enum hw_err hw_verify(const uint8_t *msg, size_t signed_len,
    const uint8_t sig[HW_SIG_LEN], const uint8_t pk[HW_KEY_LEN]);

/* BLAKE2b-256 of data (the hash every layout uses). */
void hw_hash(const void *data, size_t len, uint8_t out[HW_HASH_LEN]);

#endif
