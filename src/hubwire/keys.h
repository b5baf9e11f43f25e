/* The hub's Ed25519 keys: one per role (docs/hub.md, "Keys"). The
 * console's instance key signs tickets and its requests to the hub; an
 * approver's device key (lox) signs decisions and its requests; the hub's
 * key countersigns decisions. Secret keys live in a file of their own
 * account (0600, no symlink) and, once loaded, only in sodium_malloc'd
 * memory. A public key is written "ed25519:" and 64 hex digits; its
 * fingerprint, what a human compares and types, is 32 hex digits in
 * groups of four. */
#ifndef LOCKFILE_HUBWIRE_KEYS_H
#define LOCKFILE_HUBWIRE_KEYS_H

#include <stddef.h>
#include <stdint.h>

#define HW_MAGIC_SECKEY		"LHSECKEY"

enum hw_role {
	HW_ROLE_INSTANCE = 1,
	HW_ROLE_DEVICE = 2,
	HW_ROLE_HUB = 3,
};

enum hw_key_err {
	HW_KEY_OK = 0,
	HW_KEY_MISSING,		/* no such file */
	HW_KEY_EXISTS,		/* saving over a key that is there */
	HW_KEY_UNSAFE,		/* a symlink, another owner, open to others */
	HW_KEY_BAD,		/* not a key file of this role */
	HW_KEY_IO,		/* the system refused */
};

struct hw_keypair {
	uint8_t pk[32];
	uint8_t *sk;		/* 64 bytes, sodium_malloc'd */
};

#define HW_KEY_TEXT_LEN	(8 + 64)	/* "ed25519:" + hex */
#define HW_FP_LEN	39		/* 8 groups of 4 hex, 7 dashes */

void hw_key_generate(struct hw_keypair *kp);
/* From a 32-byte seed (test vectors, tests). */
void hw_key_from_seed(struct hw_keypair *kp, const uint8_t seed[32]);
void hw_key_free(struct hw_keypair *kp);

/* Create path (0600, O_EXCL through a temporary and a rename, the
 * directory synced) holding kp for role. HW_KEY_EXISTS when path exists. */
enum hw_key_err hw_key_save(const char *path, enum hw_role role,
    const struct hw_keypair *kp);
/* Load a key file: a regular file owned by the caller's effective uid,
 * mode without group or other bits, of this role. */
enum hw_key_err hw_key_load(const char *path, enum hw_role role,
    struct hw_keypair *kp);
const char *hw_key_err_text(enum hw_key_err e);

void hw_key_text(const uint8_t pk[32], char out[HW_KEY_TEXT_LEN + 1]);
/* 0 when s is exactly "ed25519:" + 64 lowercase hex digits, else -1. */
int hw_key_parse_text(const char *s, uint8_t pk[32]);
void hw_fingerprint(const uint8_t pk[32], char out[HW_FP_LEN + 1]);

#endif
