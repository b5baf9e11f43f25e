/* lox's hub commands (docs/hub.md, "lox"): the approver's side of hub
 * mode. lox trusts only what is signed by keys it pinned itself: a
 * ticket is shown only when it verifies under the instance key pinned
 * for its instance, and it is shown from its signed fields, rendered by
 * lox (lib/render.h), never from text the hub chose. Its own decisions
 * are signed by its device key, the values the human types sealed to the
 * ticket's one-use key: the hub relays a box it cannot open.
 *
 * State: $LOX_HOME, else ~/.config/lox of the calling account (0700):
 * device.key (0600) and hub.toml (url, ca_file, [instances]). */
#ifndef LOCKFILE_LOX_HUB_H
#define LOCKFILE_LOX_HUB_H

#include <limits.h>
#include <stdio.h>

#include "hubclient/hubclient.h"
#include "hubwire/keys.h"
#include "hubwire/msg.h"
#include "lox/lox.h"

#define LOX_MAX_INSTANCES	64
#define LOX_POLL_MS		30000	/* a long-poll's own client timeout */

struct loxhub {
	char dir[PATH_MAX];
	char key_path[PATH_MAX + 16];
	char cfg_path[PATH_MAX + 16];
	char url[HC_MAX_URL + 1];
	char ca_file[PATH_MAX];
	size_t ninst;
	struct {
		char name[HW_MAX_NAME + 1];
		uint8_t pk[HW_KEY_LEN];
	} inst[LOX_MAX_INSTANCES];
	struct hw_keypair key;
	struct hubclient hc;
};

/* What lox makes of a ticket the hub listed. */
enum lox_ticket {
	LOX_TICKET_OK = 0,
	LOX_TICKET_UNPARSED,	/* not a TICKET layout */
	LOX_TICKET_UNPINNED,	/* its instance has no key pinned here */
	LOX_TICKET_FORGED,	/* its signature fails under the pinned key */
};

/* Read the state directory and hub.toml; need_key: the device key too;
 * need_url: a hub URL must be set. 0, or -1 after lox_err(). */
int loxhub_load(struct loxhub *h, int need_key, int need_url);
/* Write hub.toml back (atomically). 0, or -1 after lox_err(). */
int loxhub_save(const struct loxhub *h);
void loxhub_free(struct loxhub *h);

/* Check a listed ticket against the pinned keys. */
enum lox_ticket loxhub_check(const struct loxhub *h, const uint8_t *d,
    size_t len, struct hw_ticket *t);
/* The pending tickets (the hub's first page). 0, or -1 after lox_err(). */
int loxhub_pending(struct loxhub *h, struct hw_list *l, struct buf **raw);

/* The masked screen as lox shows it, every outside byte rendered. */
void lox_show_ticket(FILE *f, const struct hw_ticket *t, unsigned flags);
/* One line per ticket for `lox tickets`. */
void lox_show_summary(FILE *f, const struct hw_ticket *t, unsigned flags);

int cmd_enroll(struct lox *l, int argc, char **argv);
int cmd_tickets(struct lox *l, int argc, char **argv);
int cmd_approve(struct lox *l, int argc, char **argv);
int cmd_deny(struct lox *l, int argc, char **argv);

#endif
