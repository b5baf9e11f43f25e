/* The human's policy: a TOML file that takes effect only once approved on
 * the console terminal (`lockfile policy approve`). The console runs the
 * approved copy only; its fingerprint is the SHA-256 of the approved bytes.
 * docs/policy.md documents every key. */
#ifndef LOCKFILE_POLICY_H
#define LOCKFILE_POLICY_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "hubwire/passkey.h"
#include "lib/crypto.h"
#include "sources/source.h"

#define POLICY_MAX_PROFILES 64
#define POLICY_MAX_UIDS 64
#define POLICY_MAX_BYTES (256 * 1024)

struct profile {
	char name[65];
	int production;
	unsigned approvals;		/* hub mode: distinct approvers, 1..16 */
	char prefix[512];		/* "" or ending in "/" */
	int key_fold;			/* enum ledger_fold (docs/ledger.md) */
	const struct source_kind *kind;
	json_t *table;			/* the source's own keys */
	struct source *src;		/* opened by the console */
	int passkeys;			/* approve_with = "lox+passkey" */
};

#define POLICY_MAX_HUB_KEYS	4
#define POLICY_MAX_APPROVERS	16
#define POLICY_MAX_PENDING	64	/* the console's ticket table (hub.h) */

/* [hub] (docs/hub.md, docs/policy.md): hub mode. A policy with it runs
 * only with --hub, and a console with --hub only with it. */
struct policy_hub {
	int set;
	char instance[33];		/* the name the hub enrolled */
	size_t nkeys;			/* the hub's keys (two during a rotation) */
	uint8_t keys[POLICY_MAX_HUB_KEYS][32];
	size_t napprovers;		/* device keys whose decisions count */
	struct {
		char name[33];
		uint8_t pk[32];
	} approvers[POLICY_MAX_APPROVERS];
	unsigned ticket_ttl_s;		/* a ticket's life on the console's clock */
	unsigned max_pending_per_agent;	/* one agent's share of the tickets */
	unsigned plan_ttl_s;		/* a pending plan's life, renewals and
					 * restarts included (wall clock) */
	/* [hub.passkeys] (docs/hub.md, "Passkeys"): the page's passkeys,
	 * pinned here like the devices; devices + passkeys <= 16. */
	size_t npasskeys;
	struct {
		char name[33];
		struct pk_key key;
	} passkeys[POLICY_MAX_APPROVERS];
	char passkey_rp_id[254];	/* a DNS name */
	char passkey_origin[300];	/* https://rp_id[:port] */
};

struct policy {
	int security_level;		/* 0 clear results, 1 desktop */
	unsigned answer_quantum_s;
	unsigned approval_timeout_s;
	unsigned idle_timeout_s;
	unsigned session_timeout_s;
	unsigned max_plugins_per_handle;
	unsigned handle_ttl_s;
	unsigned long long max_workspace_bytes;
	/* The answer ledger (docs/ledger.md): answers one agent may have
	 * about one key inside the window. */
	unsigned max_answers_per_key;
	unsigned ledger_window_s;
	char work_dir[PATH_MAX];
	size_t nallowed;
	uid_t allowed_uids[POLICY_MAX_UIDS];
	size_t nprofiles;
	struct profile profiles[POLICY_MAX_PROFILES];
	struct policy_hub hub;
	uint8_t fingerprint[SHA256_LEN];
};

/* Paths of the editable policy and of the approved copy under home. */
void policy_paths(const char *home, char *edit, size_t editlen,
    char *approved, size_t approvedlen);

/* Parse and validate policy text; home expands "~". 0, or -1 with a
 * message in why (static, or naming the line of a TOML error). */
int policy_parse(const char *text, size_t len, const char *home,
    struct policy *p, char *why, size_t whylen);
void policy_free(struct policy *p);

/* Read a policy file (owned by the caller's uid, not writable by others,
 * at most POLICY_MAX_BYTES). Returns malloc'ed bytes or NULL. */
char *policy_read_file(const char *path, size_t *len, const char **why);

const struct profile *policy_profile(const struct policy *p,
    const char *name);
/* A profile the console serves: in the approved policy and opened at
 * start. One that could not be opened (the start-up line said why) is
 * answered as unknown and never offered: no card is shown for a plan that
 * cannot be fetched from. */
const struct profile *policy_served_profile(const struct policy *p,
    const char *name);

#endif
