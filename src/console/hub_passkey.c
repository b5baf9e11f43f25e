/* The console's side of passkey decisions (docs/hub.md, "Passkeys"): the
 * passkeys a ticket names, the checks of a DECISION-P before the chain
 * goes on as for a device's decision, the signature counters kept across
 * restarts, and the mutes a deny-and-mute sets. The WebAuthn verification
 * itself is src/hubwire/passkey.c's. */
#include "console/hub.h"
#include "hubwire/passkey.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#define COUNTERS_FILE	"passkey-counters"

int
hub_passkey_of(const struct console_hub *h, const uint8_t id[32])
{
	size_t i;

	for (i = 0; i < h->pol->hub.npasskeys; i++)
		if (sodium_memcmp(h->pol->hub.passkeys[i].key.id, id, 32) == 0)
			return (int)i;
	return -1;
}

void
hub_name_passkeys(const struct console_hub *h, struct hw_ticket *t)
{
	size_t i;

	for (i = 0; i < h->pol->hub.npasskeys &&
	    t->napprovers < HW_MAX_APPROVERS; i++)
		if (h->pk_confirmed[i])
			memcpy(t->approvers[t->napprovers++],
			    h->pol->hub.passkeys[i].key.id, HW_KEY_LEN);
}

/* ---- counters: "ID COUNTER LAST" lines, ID the passkey id and LAST the
 * hash of the DECISION-PK that set it (hex) ---- */

static int
counters_path(const struct console_hub *h, char *out, size_t len)
{
	return str_fmt(out, len, "%s/%s", h->dir, COUNTERS_FILE) == STR_OK ?
	    0 : -1;
}

/* One line: 64 hex digits, a space, the counter in decimal, a space, 64
 * hex digits. */
static int
counter_line(const char *line, size_t len, struct hub_pk_counter *c)
{
	char id[65], num[11], last[65];
	const char *sp2;
	unsigned long long v;

	if (len < 64 + 1 + 1 + 1 + 64 || line[64] != ' ' ||
	    line[len - 65] != ' ' || (size_t)((sp2 = line + len - 65) -
	    (line + 65)) >= sizeof(num))
		return -1;
	memcpy(id, line, 64);
	id[64] = '\0';
	memcpy(num, line + 65, (size_t)(sp2 - (line + 65)));
	num[sp2 - (line + 65)] = '\0';
	memcpy(last, sp2 + 1, 64);
	last[64] = '\0';
	if (hex_decode(id, c->id, 32) != 0 || hex_decode(last, c->last, 32) !=
	    0 || parse_u64(num, 0, UINT32_MAX, &v) != 0)
		return -1;
	c->counter = (uint32_t)v;
	return 0;
}

int
hub_pk_counters_load(struct console_hub *h)
{
	char path[PATH_MAX + 32], *text, *p, *nl;
	ssize_t n;
	int fd, rc = 0;

	if (counters_path(h, path, sizeof(path)) != 0)
		return -1;
	fd = open(path, OPEN_RO_SAFE);
	if (fd < 0)
		return 0;	/* none seen yet */
	text = calloc(1, 16 * 1024 + 1);
	if (text == NULL || check_fd_owner_mode(fd, geteuid(), 1) != 0 ||
	    (n = read_full(fd, text, 16 * 1024)) < 0) {
		close(fd);
		free(text);
		return -1;
	}
	close(fd);
	/* a line that does not parse stops the start: not ours to guess */
	for (p = text; p < text + n; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(text + n - p))) == NULL ||
		    h->npk_counters >= HUB_MAX_PK_COUNTERS ||
		    counter_line(p, (size_t)(nl - p),
		    &h->pk_counters[h->npk_counters]) != 0) {
			rc = -1;
			break;
		}
		h->npk_counters++;
	}
	free(text);
	return rc;
}

/* Written whole to a temporary name, synced, renamed over the old file;
 * the file is the console account's, in its 0700 state directory. */
static int
counters_save(const struct console_hub *h)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48], line[160];
	char id[65], last[65];
	size_t i;
	int fd, rc = 0;

	if (counters_path(h, path, sizeof(path)) != 0 ||
	    str_fmt(tmp, sizeof(tmp), "%s.tmp", path) != STR_OK)
		return -1;
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return -1;
	for (i = 0; i < h->npk_counters && rc == 0; i++) {
		hex_encode(h->pk_counters[i].id, 32, id);
		hex_encode(h->pk_counters[i].last, 32, last);
		rc = str_fmt(line, sizeof(line), "%s %lu %s\n", id,
		    (unsigned long)h->pk_counters[i].counter, last) != STR_OK ||
		    write_full(fd, line, strlen(line)) != 0;
	}
	if (fsync(fd) != 0)
		rc = 1;
	if (close(fd) != 0)
		rc = 1;
	/* renameat: the console's filter allows it (as hub_save's) */
	if (rc || renameat(AT_FDCWD, tmp, AT_FDCWD, path) != 0) {
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* The signature counter (docs/hub.md, "Passkeys"): greater than the last
 * one seen for the passkey, or 0 when the last was 0 (a synced passkey
 * counts nothing), or the same assertion again (a group's DECISION-PK is
 * filed under each of its tickets). Kept before the chain goes on, so an
 * assertion is spent whatever comes after. */
enum counter_status {
	COUNTER_TAKEN = 0,
	COUNTER_WENT_BACK,
	COUNTER_NOT_KEPT,	/* the table full, the file not written */
};

static enum counter_status
counter_take(struct console_hub *h, const uint8_t id[32], uint32_t counter,
    const uint8_t pk_hash[32])
{
	struct hub_pk_counter *c = NULL;
	size_t i;

	for (i = 0; i < h->npk_counters; i++)
		if (sodium_memcmp(h->pk_counters[i].id, id, 32) == 0)
			c = &h->pk_counters[i];
	if (c != NULL && !(counter > c->counter ||
	    (counter == 0 && c->counter == 0) ||
	    (counter == c->counter && sodium_memcmp(c->last, pk_hash, 32) ==
	    0)))
		return COUNTER_WENT_BACK;
	if (c == NULL) {
		if (h->npk_counters >= HUB_MAX_PK_COUNTERS)
			return COUNTER_NOT_KEPT;
		c = &h->pk_counters[h->npk_counters++];
		memcpy(c->id, id, 32);
	}
	c->counter = counter;
	memcpy(c->last, pk_hash, 32);
	return counters_save(h) == 0 ? COUNTER_TAKEN : COUNTER_NOT_KEPT;
}

/* ---- mutes (in memory: a restart lifts them; docs/hub.md) ---- */

int
hub_muted(const struct console_hub *h, uid_t uid)
{
	long long now = now_ms();
	size_t i;

	for (i = 0; i < HUB_MAX_MUTES; i++)
		if (h->mutes[i].until_ms > now && h->mutes[i].uid == uid)
			return 1;
	return 0;
}

void
hub_mute(struct console_hub *h, uid_t uid, uint32_t minutes)
{
	long long now = now_ms(), until = now + (long long)minutes * 60000;
	size_t i, pick = 0;

	for (i = 0; i < HUB_MAX_MUTES; i++)
		if (h->mutes[i].uid == uid && h->mutes[i].until_ms > now)
			break;
	if (i < HUB_MAX_MUTES) {
		/* muted already: the later end holds */
		if (h->mutes[i].until_ms < until)
			h->mutes[i].until_ms = until;
	} else {
		/* a free slot, or (64 agents muted) the one ending first */
		for (i = 1; i < HUB_MAX_MUTES; i++)
			if (h->mutes[i].until_ms < h->mutes[pick].until_ms)
				pick = i;
		h->mutes[pick].uid = uid;
		h->mutes[pick].until_ms = until;
	}
	term_printf(h->term, "  hub: agent uid %lu muted for %lu minutes by "
	    "an approver's passkey\n", (unsigned long)uid,
	    (unsigned long)minutes);
}

/* ---- the passkey steps of the check chain (docs/hub.md) ---- */

enum plan_verdict
hub_check_passkey(struct console_hub *h, struct hub_ticket_state *s,
    const uint8_t *d, size_t len, int *who, uint8_t *verdict, uint32_t *mute)
{
	const struct policy_hub *ph = &h->pol->hub;
	struct hw_envelope e;
	struct hw_pk p;
	struct hw_hub x;
	uint8_t hash[HW_HASH_LEN], chal[32];
	char cause[96];
	uint32_t counter = 0;
	enum pk_status st;
	enum counter_status cs;
	int a;

	/* 1. strict parse */
	if (hw_decp_parse(d, len, &e) != HW_OK ||
	    hw_hub_parse(e.hub, e.hub_len, &x) != HW_OK ||
	    hw_pk_parse(e.dev, e.dev_len, &p) != HW_OK) {
		hub_refused(h, s, "does not parse");
		return PLAN_NO_DECISION;
	}
	/* 2. the hub's countersignature, under a pinned hub key, over this
	 * DECISION-PK, for this ticket */
	if (!hw_hub_countersigns(e.hub, &x,
	    (const uint8_t (*)[HW_KEY_LEN])ph->keys, ph->nkeys, e.dev,
	    e.dev_len, s->ticket)) {
		hub_refused(h, s, "not countersigned by a pinned hub key");
		return PLAN_NO_DECISION;
	}
	/* 3. a pinned, confirmed passkey, whose name the hub gives */
	a = hub_passkey_of(h, p.passkey_id);
	if (a < 0 || !h->pk_confirmed[a] ||
	    strcmp(x.approver, ph->passkeys[a].name) != 0) {
		hub_refused(h, s, "not from a pinned, confirmed passkey");
		return PLAN_NO_DECISION;
	}
	/* 4. passkeys decide this plan: its profile says so and it has no
	 * placeholder (the page never takes a value) */
	if (!s->passkeys_ok) {
		hub_refused(h, s, "passkeys do not decide this plan");
		return PLAN_NO_DECISION;
	}
	/* 5. the pending ticket is among those signed */
	if (!hw_pk_names(&p, s->ticket_hash)) {
		hub_refused(h, s, "for another ticket");
		return PLAN_NO_DECISION;
	}
	/* 6. the assertion, over the challenge recomputed here */
	pk_decision_challenge(chal, p.verdict, p.mute_minutes,
	    (const uint8_t (*)[32])p.hashes, p.nhashes);
	st = pk_assertion_verify(&ph->passkeys[a].key, ph->passkey_rp_id,
	    ph->passkey_origin, chal, sizeof(chal), p.authdata, p.authdata_len,
	    p.cdj, p.cdj_len, p.sig, p.sig_len, &counter);
	if (st != PK_OK) {
		(void)!str_fmt(cause, sizeof(cause), "the passkey's assertion "
		    "does not verify (%s)", pk_status_str(st));
		hub_refused(h, s, cause);
		return PLAN_NO_DECISION;
	}
	/* 7. its signature counter (the same assertion again, a group's,
	 * is told by the DECISION-PK's hash) */
	hw_hash(e.dev, e.dev_len, hash);
	if ((cs = counter_take(h, p.passkey_id, counter, hash)) !=
	    COUNTER_TAKEN) {
		hub_refused(h, s, cs == COUNTER_WENT_BACK ?
		    "the passkey's counter went back" :
		    "the passkey's counter cannot be kept");
		return PLAN_NO_DECISION;
	}
	*who = a;
	*verdict = p.verdict;
	*mute = p.mute_minutes;
	return PLAN_APPROVED;	/* the rest of the chain: hub.c's */
}
