/* The console's side of hub mode (docs/hub.md): its instance key, the
 * pinned hub and approver keys, the tickets it made and their one-use
 * keys, the check chain of a decision, the pending plans kept across a
 * restart (sealed, each with its lifetime). It implements plan.h's
 * plan_hub_ops; the plan pipeline (plan*.c) never sees it.
 *
 * Replay state lives here, on the console: a ticket is pending until
 * its profile's quorum of distinct approvals that hold, or a deny that
 * holds, consumes it; expiry is the console's clock;
 * the one-use secret key is in sodium_malloc memory only, so after a
 * restart the open tickets fail closed and are renewed. */
#ifndef LOCKFILE_CONSOLE_HUB_H
#define LOCKFILE_CONSOLE_HUB_H

#include <limits.h>

#include "console/hub_job.h"
#include "console/plan.h"
#include "console/policy.h"
#include "hubclient/hubclient.h"
#include "hubwire/keys.h"
#include "hubwire/msg.h"
#include "term/term.h"

#define HUB_MAX_TICKETS		64
#define HUB_CA_MAX		(256 * 1024)
#define HUB_MAX_NAMES		8192	/* accounts named at the start */
#define HUB_NAME_MAX		32	/* an agent label's account name */
#define HUB_MAX_PK_COUNTERS	64	/* passkeys whose counters are kept */
#define HUB_MAX_MUTES		64	/* agents muted at once */

struct hub_name {
	uid_t uid;
	char name[HUB_NAME_MAX + 1];
};

struct hub_ticket_state {
	int used;
	char plan[PLAN_ID_TEXT], ticket[PLAN_ID_TEXT];
	uid_t uid;
	uint8_t nonce[HW_NONCE_LEN];
	uint8_t ticket_hash[HW_HASH_LEN];	/* of the signed ticket */
	uint8_t commit[HW_HASH_LEN];		/* to the requesting agent */
	uint8_t policy_fp[HW_HASH_LEN];
	uint8_t box_pk[32];
	uint8_t *box_sk;			/* sodium_malloc; NULL once used */
	long long expires_ms;			/* monotonic: the console's clock */
	int approved;
	struct hw_values vals;			/* the opened box (locked) */
	/* The quorum (docs/hub.md, "The check chain"): the profile's
	 * approvals; the hub's decisions read so far (the next read's
	 * cursor); the devices and the passkeys (policy index) whose
	 * approval counted; the first opened box's plaintext hash, which
	 * every later one must equal. */
	unsigned quorum;
	size_t seen;
	int counted[POLICY_MAX_APPROVERS];
	int pk_counted[POLICY_MAX_APPROVERS];
	unsigned ncounted;
	uint8_t vals_hash[HW_HASH_LEN];
	int vals_opened;
	/* Behind the answers (hub_job.h): the fetch, the post, the poll. */
	struct hub_job *job;
	int prepared;				/* the job's post is reaped */
	int post_failed;			/* the hub did not take it */
	enum plan_content content;
	uint8_t sha256[32];
	unsigned long long size;
	int passkeys_ok;			/* passkeys may decide it */
};

struct hub_pk_counter {
	uint8_t id[32];				/* the passkey's */
	uint32_t counter;			/* the last one seen */
	uint8_t last[32];			/* hash of the DECISION-PK */
};

struct console_hub {
	int on;
	char url[HC_MAX_URL + 1];
	unsigned port;				/* the one TCP port it connects to */
	struct hw_keypair inst;			/* the instance key */
	struct hubclient hc;
	uint8_t *ca;				/* --hub-ca, read before confinement */
	size_t ca_len;
	uint8_t *commit_key;			/* per session, sodium_malloc */
	uint8_t *rec_key;			/* seals the pending plans' records */
	char dir[PATH_MAX];			/* ~/.local/state/lockfile/hub */
	char plans[PATH_MAX + 16];		/* dir/plans: the pending plans */
	int confirmed[POLICY_MAX_APPROVERS];	/* fingerprint typed here */
	int pk_confirmed[POLICY_MAX_APPROVERS];	/* the passkeys' too */
	size_t npk_counters;			/* kept in dir, across restarts */
	struct hub_pk_counter pk_counters[HUB_MAX_PK_COUNTERS];
	struct {
		uid_t uid;
		long long until_ms;		/* monotonic; 0: free */
	} mutes[HUB_MAX_MUTES];			/* memory only */
	const struct policy *pol;
	struct term *term;
	const struct plan_audit_ops *audit;
	void *audit_ctx;
	long long poll_ms;			/* one long-poll's client timeout */
	char why[768];				/* a start refusal's reason */
	int unenrolled;				/* told: the hub refuses our key */
	struct hub_name *names;			/* the accounts at the start */
	size_t nnames;
	int live_jobs;				/* hub_job threads running */
	struct hub_ticket_state t[HUB_MAX_TICKETS];
};

/* Start-up, before the console confines itself: the instance key (made
 * by `lockfile hub-key`), the approvers whose fingerprints are confirmed
 * on this terminal (asked for the others), the hub reachable (a console
 * never runs without its hub), the pending plans' directory. 0, or -1
 * with a reason (static, or in h->why). */
int console_hub_open(struct console_hub *h, const struct policy *pol,
    const char *home, const char *url, const char *ca_file,
    struct term *term, const char **why);
/* 1, or 0 when a ticket's thread still runs after a short wait: it may
 * still read a profile's source, which the caller then leaves open (the
 * process is ending). */
int console_hub_close(struct console_hub *h);

extern const struct plan_hub_ops console_hub_ops;

/* hub_enrol.c */
enum hub_enrol {
	HUB_ENROL_OK,
	HUB_ENROL_NOT,		/* 401: not enrolled, or a clock far off */
	HUB_ENROL_ROLE,		/* 403: enrolled as a device */
	HUB_ENROL_NAME,		/* enrolled under another instance name */
	HUB_ENROL_NO_ANSWER,	/* unreachable, or no such endpoint */
};
/* Ask the hub (GET /v1/enrolment, signed); *e (may be NULL) gets the
 * client's error. */
enum hub_enrol hub_enrolment(struct console_hub *h, enum hc_err *e);
/* What to do about r, with this console's key and instance name. */
void hub_enrol_text(const struct console_hub *h, enum hub_enrol r,
    char *out, size_t len);
/* The hub refused a request of ours / took one: told on the window and in
 * the audit once per change. */
void hub_enrol_refused(struct console_hub *h);
void hub_enrol_taken(struct console_hub *h);
/* The accounts' names at the start, before the confinement; an agent's
 * label "uid N (name)" from the live database or that snapshot. */
void hub_names_snapshot(struct console_hub *h);
void hub_agent_label(const struct console_hub *h, uid_t uid, char *out,
    size_t len);

/* hub_confirm.c: the approvers (devices, passkeys) whose fingerprints a
 * human typed on this terminal, asked for the others; 0, or -1 when the
 * file cannot be written. */
int hub_confirm_approvers(struct console_hub *h);

/* A refused decision: in the audit (hub.decision) and on the window. */
void hub_refused(struct console_hub *h, const struct hub_ticket_state *s,
    const char *cause);

/* hub_card.c: the lines of the console's own card for c (approval_show
 * in RENDER_ASCII) into out's lines; 0, or -1. */
int hub_card_lines(const struct console_hub *h, const struct card *c,
    struct hw_card *out);

/* hub_passkey.c (docs/hub.md, "Passkeys"): the index of a pinned passkey
 * by id, or -1; the confirmed passkeys into a ticket's approvers; the
 * counters read at the start (0, or -1: a file not ours); the passkey
 * steps of the check chain (PLAN_APPROVED: go on with the verdict and the
 * mute minutes); mutes set by a deny-and-mute. */
int hub_passkey_of(const struct console_hub *h, const uint8_t id[32]);
void hub_name_passkeys(const struct console_hub *h, struct hw_ticket *t);
int hub_pk_counters_load(struct console_hub *h);
enum plan_verdict hub_check_passkey(struct console_hub *h,
    struct hub_ticket_state *s, const uint8_t *d, size_t len, int *who,
    uint8_t *verdict, uint32_t *mute);
int hub_muted(const struct console_hub *h, uid_t uid);
void hub_mute(struct console_hub *h, uid_t uid, uint32_t minutes);

/* The instance key's path under home: 0, or -1 when it does not fit. */
int hub_key_path(const char *home, char *out, size_t len);

/* hub_ticket.c: the masked screen from the card and the plan's facts
 * (the placeholders lox asks for with it), and the plan hash; 0, or -1
 * when a field does not fit its layout. */
int hub_ticket_screen(const struct plan_ticket *f, struct hw_ticket *t);
int hub_plan_hash(const struct plan_ticket *f, uint8_t out[32]);

/* cmd_hub_key.c: `lockfile hub-key [--home DIR]`: make the instance key
 * when there is none, and print it with its fingerprint. */
int cmd_hub_key(int argc, char **argv);

#endif
