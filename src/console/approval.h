/* The approval card and the human's decision (docs/console.md). The card
 * shows the requesting uid, profile and production flag, the cleaned key
 * quoted (and the typed text when it differs), a warning line for each
 * path component that mixes scripts, every plugin with version,
 * official or the unofficial warning, question and meaning of 1 and 0, the
 * answers the plan reveals and how many the handle has left, and for each
 * placeholder how many files it was already replayed on. The human types
 * `y` (a production profile: `yes`) or `n <reason>`; the reason is never
 * forwarded, logged or stored. Everything from outside is rendered by
 * lib/render.h, laid out in display columns (docs/rendering.md). */
#ifndef LOCKFILE_APPROVAL_H
#define LOCKFILE_APPROVAL_H

#include <stddef.h>
#include <sys/types.h>

#include "term/term.h"
#include "store/manifest.h"

struct card_binding {
	const char *input;		/* manifest input name */
	const char *placeholder;
	int held;			/* a value is already held */
	size_t replayed;		/* files it ran on so far */
};

struct card_plugin {
	const struct manifest *m;
	int official;
	size_t nbind;
	struct card_binding bind[8];
};

/* A count the console keeps per key and shows with the plan: the per-key
 * answer ledger (docs/console.md) fills these. The card shows each line;
 * in hub mode they go into the ticket's masked screen (docs/hub.md). */
struct card_ledger {
	const char *label;		/* our text, printable ASCII */
	unsigned count;
};

struct card {
	uid_t uid;
	const char *profile;
	int production;
	const char *key;		/* cleaned */
	const char *typed;		/* as the agent wrote it */
	size_t typed_len;
	const char *handle;		/* plan by handle, else NULL */
	size_t nplugins;
	const struct card_plugin *plugins;
	unsigned reveals;
	unsigned left_before;
	size_t nledger;
	const struct card_ledger *ledger;
	/* The same counts as one line of our words for the console's own
	 * card ("this key: 14 answers to uid 1002 in 5 plans since ..., cap
	 * 32 per 1 d": ledger_usage_line); when set, the card shows it
	 * instead of the labelled lines. */
	const char *ledger_line;
};

enum decision {
	DECISION_APPROVED,
	DECISION_DENIED,
	DECISION_TIMEOUT,
	DECISION_WITHDRAWN,	/* the agent hung up while the card waited */
};

void approval_show(struct term *t, const struct card *c);
enum decision approval_ask(struct term *t, const struct card *c,
    long long deadline_ms);

#endif
