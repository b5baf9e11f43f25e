/* The approval card (see approval.h). */
#include "console/approval.h"
#include "lib/fdutil.h"

#include <pwd.h>
#include <string.h>

static void
untrusted_line(struct term *t, const char *label, const char *s, size_t len)
{
	term_printf(t, "  %-9s ", label);
	term_untrusted(t, s, len, 1024);
	term_printf(t, "\n");
}

void
approval_show(struct term *t, const struct card *c)
{
	struct passwd *pw = getpwuid(c->uid);
	size_t i, j;

	term_printf(t, "\n=== lockfile: an agent asks for a plan ===\n");
	/* The account name comes from the password database, not the agent;
	 * still escaped. */
	term_printf(t, "  %-9s %u (", "from uid", (unsigned)c->uid);
	if (pw != NULL)
		term_untrusted(t, pw->pw_name, strlen(pw->pw_name), 64);
	else
		term_printf(t, "no account name");
	term_printf(t, ")\n");
	term_printf(t, "  %-9s ", "profile");
	term_untrusted(t, c->profile, strlen(c->profile), 64);
	term_printf(t, "%s\n", c->production ? "   [PRODUCTION]" : "");
	if (c->handle != NULL) {
		untrusted_line(t, "handle", c->handle, strlen(c->handle));
		untrusted_line(t, "key", c->key, strlen(c->key));
	} else {
		untrusted_line(t, "key", c->key, strlen(c->key));
		if (c->typed_len != strlen(c->key) ||
		    memcmp(c->typed, c->key, c->typed_len) != 0)
			untrusted_line(t, "typed", c->typed, c->typed_len);
	}
	term_printf(t, "  this plan reveals %u answer%s; the handle has %u left "
	    "(%u after)\n", c->reveals, c->reveals == 1 ? "" : "s",
	    c->left_before, c->left_before - c->reveals);
	for (i = 0; i < c->nplugins; i++) {
		const struct card_plugin *p = &c->plugins[i];
		term_printf(t, "  [%zu] ", i + 1);
		term_untrusted(t, p->m->name, strlen(p->m->name), 32);
		term_printf(t, " ");
		term_untrusted(t, p->m->version, strlen(p->m->version), 20);
		term_printf(t, "%s\n", p->official ? "  (official)"
		    : "  WARNING: unofficial marketplace");
		term_printf(t, "      question: ");
		term_untrusted(t, p->m->question, strlen(p->m->question), 200);
		term_printf(t, "\n      1 means:  ");
		term_untrusted(t, p->m->one, strlen(p->m->one), 200);
		term_printf(t, "\n      0 means:  ");
		term_untrusted(t, p->m->zero, strlen(p->m->zero), 200);
		term_printf(t, "\n");
		for (j = 0; j < p->nbind; j++) {
			const struct card_binding *b = &p->bind[j];
			term_printf(t, "      input ");
			term_untrusted(t, b->input, strlen(b->input), 32);
			term_printf(t, " = ${");
			term_untrusted(t, b->placeholder, strlen(b->placeholder), 32);
			if (b->held)
				term_printf(t, "}  (value held; already replayed on "
				    "%zu file%s)\n", b->replayed,
				    b->replayed == 1 ? "" : "s");
			else
				term_printf(t, "}  (you will type the value; it must "
				    "come from your own need, not the agent's)\n");
		}
	}
}

enum decision
approval_ask(struct term *t, const struct card *c, long long deadline_ms)
{
	char line[256];

	approval_show(t, c);
	for (;;) {
		long n;

		term_flush_input(t);	/* type-ahead cannot approve */
		term_printf(t, c->production ?
		    "Approve? type 'yes' to approve, 'n <reason>' to deny: " :
		    "Approve? 'y' to approve, 'n <reason>' to deny: ");
		n = term_read_line(t, line, sizeof(line), 1, deadline_ms);
		if (n == -1) {
			term_printf(t, "\n  no decision in time: refused\n");
			return DECISION_TIMEOUT;
		}
		if (n == TERM_PEER_GONE) {
			term_printf(t, "\n  the agent went away: plan withdrawn\n");
			return DECISION_WITHDRAWN;
		}
		if (n == -2)
			return DECISION_TIMEOUT;	/* terminal gone */
		if (n >= 0 && (strcmp(line, "yes") == 0 ||
		    (!c->production && strcmp(line, "y") == 0))) {
			explicit_bzero(line, sizeof(line));
			return DECISION_APPROVED;
		}
		if (n >= 1 && (line[0] == 'n' || line[0] == 'N') &&
		    (line[1] == '\0' || line[1] == ' ' ||
		    strncmp(line, "no", 2) == 0)) {
			explicit_bzero(line, sizeof(line));
			term_printf(t, "  denied\n");
			return DECISION_DENIED;
		}
		if (c->production && strcmp(line, "y") == 0)
			term_printf(t, "  this is a production profile: type 'yes' "
			    "in full\n");
	}
}
