/* The hub's signed messages (docs/hub.md, "Layouts", with test vectors):
 *
 *   TICKET        console -> hub -> lox    signed by the console's instance key
 *   DECISION-DEV  lox -> hub -> console    signed by the approver's device key
 *   DECISION-HUB  hub -> console           signed by the hub's key
 *   DECISION      hub -> console           DEV + HUB + the sealed values box
 *   DEVPOST       lox -> hub               DEV + the sealed values box
 *   VALUES        inside the box           the typed values, by placeholder
 *   REQUEST       lox or console -> hub    each HTTP request, signed
 *   TICKETLIST    hub -> lox               pending tickets, as signed
 *   DECISIONLIST  hub -> console           a ticket's decisions, as kept
 *
 * Parsers take untrusted bytes and fill fixed-size structures; they check
 * framing, limits and alphabets only. Signatures are checked by the
 * caller against the key it pinned (hw_verify()), never against a key
 * the message names about itself. */
#ifndef LOCKFILE_HUBWIRE_MSG_H
#define LOCKFILE_HUBWIRE_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "hubwire/wire.h"

#define HW_VERSION		1
/* TICKET 2 names the devices that may decide it (issue 26 item 1); the
 * other layouts are still at 1. */
#define HW_VERSION_TICKET	2

#define HW_MAGIC_TICKET		"LHTICKET"
#define HW_MAGIC_DEV		"LHDECDEV"
#define HW_MAGIC_HUB		"LHDECHUB"
#define HW_MAGIC_DECISION	"LHDECISN"
#define HW_MAGIC_DEVPOST	"LHDEVPST"
#define HW_MAGIC_VALUES		"LHVALUES"
#define HW_MAGIC_REQUEST	"LHREQUST"
#define HW_MAGIC_LIST		"LHTKLIST"
#define HW_MAGIC_DECLIST	"LHDECLST"
#define HW_MAGIC_PLAN		"LHPLANHS"
#define HW_MAGIC_CARD		"LHCARDLN"
#define HW_MAGIC_PK		"LHDECPKY"
#define HW_MAGIC_DECP		"LHDECPSK"

/* Limits, one place (docs/hub.md lists them). */
#define HW_MAX_NAME		32	/* instance, plugin, input, approver */
#define HW_MAX_PROFILE		64
#define HW_MAX_KEY		1024
#define HW_MAX_TEXT		200	/* manifest text */
#define HW_MAX_LABEL		64
#define HW_MAX_VERSION		20
#define HW_ID_LEN		34	/* t_ / f_ + 32 hex */
#define HW_MAX_PLUGINS		64
#define HW_MAX_BIND		8
#define HW_MAX_MOVED		32
#define HW_MAX_LEDGER		32
#define HW_MAX_PLACEHOLDERS	64
#define HW_MAX_VALUE		4096
#define HW_MAX_TICKET		(256 * 1024)
#define HW_MAX_SIGNED_SMALL	1024	/* DEV, HUB, REQUEST */
#define HW_MAX_VALUES		(HW_MAX_PLACEHOLDERS * (HW_MAX_VALUE + 64) + 64)
#define HW_BOX_OVERHEAD		48	/* crypto_box_SEALBYTES */
#define HW_MAX_BOX		(HW_MAX_VALUES + HW_BOX_OVERHEAD)
#define HW_MAX_DECISION		(HW_MAX_BOX + 3 * HW_MAX_SIGNED_SMALL)
#define HW_MAX_LIST_ITEMS	64
#define HW_MAX_LIST		(4 * 1024 * 1024)
#define HW_NONCE_LEN		32
#define HW_REQ_NONCE_LEN	16
#define HW_MAX_QUORUM		16
#define HW_MAX_APPROVERS	16	/* = POLICY_MAX_APPROVERS */
#define HW_MAX_CARD_LINES	96
#define HW_MAX_CARD_LINE	240
#define HW_MAX_CARD		(32 * 1024)
#define HW_MAX_PK_HASHES	16	/* = PK_MAX_HASHES */
#define HW_MAX_MUTE		1440	/* minutes, = PK_MAX_MUTE */
#define HW_MAX_CRED_ID		1023	/* = PK_MAX_CRED_ID */
#define HW_MAX_AUTHDATA		1024
#define HW_MAX_CDJ		4096
#define HW_MAX_PK		8192
#define HW_MAX_DECP		(HW_MAX_PK + HW_MAX_SIGNED_SMALL + 64)
/* A ticket's decisions, one per approver it names (docs/hub.md,
 * "DECISIONLIST"). */
#define HW_MAX_DECLIST_ITEMS	HW_MAX_APPROVERS
#define HW_MAX_DECLIST		(HW_MAX_DECLIST_ITEMS * (HW_MAX_DECISION + 8) + 64)

/* ---- TICKET ---- */

enum hw_content {
	HW_CONTENT_FETCHED = 0,	/* sha256 and size shown */
	HW_CONTENT_FAILED = 1,	/* could not be fetched (told the agent only
				 * after an approval) */
	HW_CONTENT_UNCHECKED = 2, /* a renewal: the sha256 of the first
				 * ticket, not checked again until the run */
};

enum hw_kind { HW_KIND_TEXT = 1, HW_KIND_EMAIL = 2 };

struct hw_binding {
	char input[HW_MAX_NAME + 1];
	char placeholder[HW_MAX_NAME + 1];
	int held;			/* the console holds a value already */
	uint32_t replayed;		/* files it ran on so far */
};

struct hw_plugin {
	char name[HW_MAX_NAME + 1];
	char version[HW_MAX_VERSION + 1];
	int official;
	char question[HW_MAX_TEXT + 1];
	char one[HW_MAX_TEXT + 1];
	char zero[HW_MAX_TEXT + 1];
	size_t nbind;
	struct hw_binding bind[HW_MAX_BIND];
};

/* Issue 17's per-key answer ledger fills this: a label and a count per
 * line, shown by lox under the plan (empty until then). */
struct hw_ledger_line {
	char label[HW_MAX_LABEL + 1];
	uint32_t count;
};

/* The masked screen: what the console's card shows, plus the content's
 * sha256 and size, for the human only (never the agent, never the
 * console window). */
struct hw_screen {
	char profile[HW_MAX_PROFILE + 1];
	int production;
	char key[HW_MAX_KEY + 1];	/* cleaned */
	char typed[HW_MAX_KEY + 1];	/* "" when the same as key */
	char handle[HW_ID_LEN + 1];	/* "" unless planned by handle */
	uint8_t content;		/* enum hw_content */
	uint8_t sha256[32];		/* unless HW_CONTENT_FAILED */
	uint64_t size;
	uint32_t reveals;
	uint32_t left_before;
	size_t nplugins;
	struct hw_plugin plugins[HW_MAX_PLUGINS];
	size_t nmoved;			/* a renewal: the plan inputs that moved */
	char moved[HW_MAX_MOVED][HW_MAX_LABEL + 1];
	size_t nledger;
	struct hw_ledger_line ledger[HW_MAX_LEDGER];
};

/* A placeholder whose value the human types in lox. */
struct hw_placeholder {
	char name[HW_MAX_NAME + 1];
	uint8_t kind;			/* enum hw_kind */
	uint32_t max_bytes;
};

struct hw_ticket {
	char instance[HW_MAX_NAME + 1];
	uint8_t instance_key[HW_KEY_LEN];
	char id[HW_ID_LEN + 1];
	uint8_t nonce[HW_NONCE_LEN];
	uint64_t created_ms, expires_ms;	/* the console's clock */
	uint8_t plan_hash[HW_HASH_LEN];
	uint8_t policy_fp[HW_HASH_LEN];
	uint8_t agent_commit[HW_HASH_LEN];
	char agent_label[HW_MAX_LABEL + 1];
	uint8_t box_pk[32];			/* one-use X25519 */
	char renews[HW_ID_LEN + 1];		/* "" unless a renewal */
	struct hw_screen screen;
	size_t nph;
	struct hw_placeholder ph[HW_MAX_PLACEHOLDERS];
	/* The device keys whose decisions the console counts (pinned and
	 * confirmed): the hub lists the ticket to these only and takes a
	 * decision from these only, so another enrolled device cannot decide
	 * first and lock the approver out (docs/hub.md, "TICKET"). Up to
	 * 16, none twice; none when no approver is confirmed. */
	size_t napprovers;
	uint8_t approvers[HW_MAX_APPROVERS][HW_KEY_LEN];
	/* filled by the parser */
	size_t signed_len;
	uint8_t sig[HW_SIG_LEN];
};

/* sk: the instance's crypto_sign secret key (64 bytes). */
enum hw_err hw_ticket_encode(const struct hw_ticket *t, const uint8_t *sk,
    struct buf **out);
enum hw_err hw_ticket_parse(const uint8_t *d, size_t len, struct hw_ticket *t);
/* 1 when the ticket names device key pk among who may decide it. */
int hw_ticket_names(const struct hw_ticket *t, const uint8_t pk[HW_KEY_LEN]);

/* ---- decisions ---- */

enum hw_verdict { HW_DENY = 0, HW_APPROVE = 1 };

struct hw_dev {
	uint8_t ticket_hash[HW_HASH_LEN];	/* hw_hash of the signed ticket */
	uint8_t instance_key[HW_KEY_LEN];
	char ticket[HW_ID_LEN + 1];
	uint8_t nonce[HW_NONCE_LEN];		/* the ticket's */
	uint8_t verdict;			/* enum hw_verdict */
	uint64_t time_ms;			/* the device's clock (shown only) */
	uint8_t device_key[HW_KEY_LEN];
	uint8_t box_hash[HW_HASH_LEN];		/* hw_hash of the sealed box */
	size_t signed_len;
	uint8_t sig[HW_SIG_LEN];
};

struct hw_hub {
	uint8_t dev_hash[HW_HASH_LEN];		/* hw_hash of the signed DEV */
	uint8_t hub_key[HW_KEY_LEN];
	char ticket[HW_ID_LEN + 1];
	char approver[HW_MAX_NAME + 1];		/* the device's enrolled name */
	uint32_t quorum;
	uint64_t time_ms;			/* the hub's clock */
	size_t signed_len;
	uint8_t sig[HW_SIG_LEN];
};

enum hw_err hw_dev_encode(const struct hw_dev *d, const uint8_t *sk,
    struct buf **out);
enum hw_err hw_dev_parse(const uint8_t *d, size_t len, struct hw_dev *out);
enum hw_err hw_hub_encode(const struct hw_hub *h, const uint8_t *sk,
    struct buf **out);
enum hw_err hw_hub_parse(const uint8_t *d, size_t len, struct hw_hub *out);
enum hw_err hw_hub_countersign(const uint8_t *part, size_t part_len,
    const char *ticket, const char *approver, uint64_t time_ms,
    const uint8_t pk[HW_KEY_LEN], const uint8_t *sk, struct buf **out);
int hw_hub_countersigns(const uint8_t *hub, const struct hw_hub *x,
    const uint8_t (*keys)[HW_KEY_LEN], size_t nkeys, const uint8_t *part,
    size_t part_len, const char *ticket);

/* An envelope of signed parts: DECISION (dev, hub, box) or DEVPOST (dev,
 * box; hub_len 0). The parts point into the input. */
struct hw_envelope {
	const uint8_t *dev, *hub, *box;
	size_t dev_len, hub_len, box_len;
};

enum hw_err hw_decision_encode(const struct hw_envelope *e, struct buf **out);
enum hw_err hw_decision_parse(const uint8_t *d, size_t len,
    struct hw_envelope *out);
enum hw_err hw_devpost_encode(const struct hw_envelope *e, struct buf **out);
enum hw_err hw_devpost_parse(const uint8_t *d, size_t len,
    struct hw_envelope *out);

/* ---- passkeys (docs/hub.md, "Passkeys") ---- */

/* CARD: the console's approval card as its own renderer drew it (escaped,
 * printable ASCII only), signed by the instance key, for the hub's page. */
struct hw_card {
	char instance[HW_MAX_NAME + 1];
	char ticket[HW_ID_LEN + 1];
	uint8_t ticket_hash[HW_HASH_LEN];
	size_t nlines;
	char lines[HW_MAX_CARD_LINES][HW_MAX_CARD_LINE + 1];
	size_t signed_len;
	uint8_t sig[HW_SIG_LEN];
};

enum hw_err hw_card_encode(const struct hw_card *c, const uint8_t *sk,
    struct buf **out);
enum hw_err hw_card_parse(const uint8_t *d, size_t len, struct hw_card *out);

/* The verdicts a passkey signs: HW_DENY, HW_APPROVE or this. */
#define HW_DENY_MUTE	2

/* DECISION-PK: a WebAuthn assertion over pk_decision_challenge() of the
 * verdict, the mute minutes and the ticket hashes (not Ed25519-signed:
 * the passkey's signature is inside). The byte fields point into the
 * input. */
struct hw_pk {
	uint8_t verdict;			/* 0, 1 or HW_DENY_MUTE */
	uint32_t mute_minutes;			/* 1..1440 for 2, else 0 */
	size_t nhashes;
	uint8_t hashes[HW_MAX_PK_HASHES][HW_HASH_LEN];	/* none twice */
	uint8_t passkey_id[HW_HASH_LEN];
	const uint8_t *cred_id, *authdata, *cdj, *sig;
	size_t cred_id_len, authdata_len, cdj_len, sig_len;
};

enum hw_err hw_pk_encode(const struct hw_pk *p, struct buf **out);
enum hw_err hw_pk_parse(const uint8_t *d, size_t len, struct hw_pk *out);
/* 1 when the decision names ticket hash h. */
int hw_pk_names(const struct hw_pk *p, const uint8_t h[HW_HASH_LEN]);

/* DECISION-P: {DECISION-PK, DECISION-HUB}; the parts point into the
 * input (the envelope's dev holds the DECISION-PK, box is unused). */
enum hw_err hw_decp_encode(const struct hw_envelope *e, struct buf **out);
enum hw_err hw_decp_parse(const uint8_t *d, size_t len,
    struct hw_envelope *out);

/* ---- VALUES (the plaintext of the box) ---- */

struct hw_value {
	char name[HW_MAX_NAME + 1];
	const uint8_t *bytes;		/* into the opened plaintext */
	size_t len;
};

struct hw_values {
	uint8_t *plain;			/* sodium_malloc'd; hw_values_free() */
	size_t plain_len;
	size_t n;
	struct hw_value v[HW_MAX_PLACEHOLDERS];
};

/* Seal values (n of them) to the ticket's one-use key: the box bytes in
 * *out (a buffer wiped on free). */
enum hw_err hw_values_seal(const struct hw_value *v, size_t n,
    const uint8_t box_pk[32], struct buf **out);
/* Open a box with the one-use key pair and parse its plaintext into vs
 * (locked, guarded memory). A box that does not open, or whose plaintext
 * is not a VALUES message, is HW_E_BOX or the parse error. */
enum hw_err hw_values_open(const uint8_t *box, size_t box_len,
    const uint8_t box_pk[32], const uint8_t *box_sk, struct hw_values *vs);
/* Parse a VALUES plaintext that is already in locked memory. */
enum hw_err hw_values_parse(const uint8_t *d, size_t len, struct hw_values *vs);
void hw_values_free(struct hw_values *vs);

/* ---- REQUEST ---- */

struct hw_request {
	char method[8];
	char path[257];
	uint8_t body_hash[HW_HASH_LEN];
	uint64_t time_ms;			/* unix milliseconds */
	uint8_t nonce[HW_REQ_NONCE_LEN];
	uint8_t key[HW_KEY_LEN];		/* who signs: an enrolled key */
	size_t signed_len;
	uint8_t sig[HW_SIG_LEN];
};

enum hw_err hw_request_encode(const struct hw_request *r, const uint8_t *sk,
    struct buf **out);
enum hw_err hw_request_parse(const uint8_t *d, size_t len,
    struct hw_request *out);

/* ---- TICKETLIST ---- */

struct hw_list_item {
	uint64_t seq;
	const uint8_t *ticket;		/* into the input */
	size_t ticket_len;
};

struct hw_list {
	uint64_t seq;			/* the hub's newest seq: the next cursor */
	size_t n;
	struct hw_list_item items[HW_MAX_LIST_ITEMS];
};

enum hw_err hw_list_encode(const struct hw_list *l, struct buf **out);
enum hw_err hw_list_parse(const uint8_t *d, size_t len, struct hw_list *out);

/* ---- DECISIONLIST ----
 *
 * A ticket's decisions as the hub kept them, in arrival order: each item
 * one envelope's bytes (a DECISION today; other kinds are told apart by
 * their magic, so the list itself checks only that each has a header's
 * room). Nothing in it is trusted: each envelope goes through the
 * console's check chain. */

struct hw_declist {
	size_t n;
	const uint8_t *item[HW_MAX_DECLIST_ITEMS];	/* into the input */
	size_t item_len[HW_MAX_DECLIST_ITEMS];
};

enum hw_err hw_declist_encode(const struct hw_declist *l, struct buf **out);
enum hw_err hw_declist_parse(const uint8_t *d, size_t len,
    struct hw_declist *out);

/* ---- the plan hash ---- */

struct hw_plan_plugin {
	const char *name, *version, *marketplace;
	const uint8_t *manifest_sha256, *binary_sha256;
	size_t nbind;
	const char *const *input;		/* nbind each */
	const char *const *placeholder;
};

struct hw_plan {
	const char *profile, *key, *handle;	/* handle NULL or "" */
	const uint8_t *sha256;			/* NULL: not fetched */
	size_t nplugins;
	const struct hw_plan_plugin *plugins;
};

/* BLAKE2b-256 of the PLAN encoding: the content's sha256, the key or
 * handle, and each plugin with its pins and bindings. */
enum hw_err hw_plan_hash(const struct hw_plan *p, uint8_t out[HW_HASH_LEN]);

/* ---- helpers ---- */

/* The keyed commitment to the requesting agent's token: BLAKE2b-256 keyed
 * by the console's secret over "lockhub/agent/v1" || ticket id || token. */
void hw_agent_commit(const uint8_t key[32], const char *ticket,
    const void *token, size_t token_len, uint8_t out[HW_HASH_LEN]);

#endif
