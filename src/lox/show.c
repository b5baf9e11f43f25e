/* What lox shows of a ticket (docs/hub.md, "lox"): its signed fields, and
 * nothing else. Every byte that came from outside lox, the agent's key
 * above all, goes through render_text() (lib/render.h, docs/rendering.md):
 * controls, bidi and invisible characters as visible escapes, keys
 * quoted; a key that may not be what it looks like gets the key check's
 * warning line (render_key_warning()). */
#include "config.h"
#include "lox/hub.h"
#include "lib/crypto.h"
#include "lib/render.h"

#include <string.h>
#include <time.h>

#define LABEL	"  %-12s"

static void
put(FILE *f, const char *s, unsigned flags, size_t max_cols)
{
	char out[8 * HW_MAX_KEY + 64];

	render_text(s, strlen(s), flags, max_cols, out, sizeof(out), NULL);
	fputs(out, f);
}

static void
line(FILE *f, const char *label, const char *s, unsigned flags)
{
	fprintf(f, LABEL, label);
	put(f, s, flags, 0);
	fputc('\n', f);
}

static void
when(char *out, size_t len, uint64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		out[0] = '\0';
}

/* The key check's one warning line (lib/render.h, docs/rendering.md). */
static void
key_warning(FILE *f, const char *key, unsigned flags)
{
	char out[10 * HW_MAX_KEY + 128];

	if (render_key_warning(key, strlen(key), flags, out, sizeof(out)) != 0)
		fprintf(f, LABEL "%s\n", "WARNING", out);
}

void
lox_show_ticket(FILE *f, const struct hw_ticket *t, unsigned flags)
{
	const struct hw_screen *s = &t->screen;
	char fp[HW_FP_LEN + 1], made[64], hex[2 * HW_HASH_LEN + 1];
	size_t i, j;

	hw_fingerprint(t->instance_key, fp);
	when(made, sizeof(made), t->created_ms);
	fprintf(f, "\n=== lockfile: a plan waits for your decision ===\n");
	line(f, "ticket", t->id, flags);
	fprintf(f, LABEL, "instance");
	put(f, t->instance, flags, 32);
	fprintf(f, "  (console key %s, signature checked)\n", fp);
	fprintf(f, LABEL "%s on the console's clock; it decides for %llu s\n",
	    "made", made, (unsigned long long)((t->expires_ms - t->created_ms) /
	    1000));
	line(f, "agent", t->agent_label, flags);
	fprintf(f, LABEL, "profile");
	put(f, s->profile, flags, 64);
	fprintf(f, "%s\n", s->production ? "   [PRODUCTION]" : "");
	if (s->handle[0] != '\0')
		line(f, "handle", s->handle, flags);
	line(f, "key", s->key, flags | RENDER_QUOTE);
	if (s->typed[0] != '\0')
		line(f, "typed", s->typed, flags | RENDER_QUOTE);
	key_warning(f, s->key, flags);
	hex_encode(s->sha256, sizeof(s->sha256), hex);
	switch (s->content) {
	case HW_CONTENT_FETCHED:
		fprintf(f, LABEL "sha256 %s, %llu bytes\n", "content", hex,
		    (unsigned long long)s->size);
		break;
	case HW_CONTENT_FAILED:
		fprintf(f, LABEL "COULD NOT BE FETCHED (the agent learns it only "
		    "if you approve)\n", "content");
		break;
	default:
		fprintf(f, LABEL "sha256 %s, %llu bytes: UNCHECKED (a renewal; "
		    "the console checks it when it fetches again)\n", "content",
		    hex, (unsigned long long)s->size);
		break;
	}
	if (t->renews[0] != '\0') {
		line(f, "renews", t->renews, flags);
		for (i = 0; i < s->nmoved; i++)
			line(f, "moved", s->moved[i], flags);
		if (s->nmoved == 0)
			fprintf(f, LABEL "no plan input moved\n", "moved");
	}
	fprintf(f, "  this plan reveals %u answer%s; the handle has %u left "
	    "(%u after)\n", s->reveals, s->reveals == 1 ? "" : "s",
	    s->left_before, s->left_before - s->reveals);
	for (i = 0; i < s->nplugins; i++) {
		const struct hw_plugin *p = &s->plugins[i];

		fprintf(f, "  [%zu] ", i + 1);
		put(f, p->name, flags, 32);
		fputc(' ', f);
		put(f, p->version, flags, 20);
		fprintf(f, "%s\n", p->official ? "  (official)" :
		    "  WARNING: unofficial marketplace");
		fprintf(f, "      question: ");
		put(f, p->question, flags, 0);
		fprintf(f, "\n      1 means:  ");
		put(f, p->one, flags, 0);
		fprintf(f, "\n      0 means:  ");
		put(f, p->zero, flags, 0);
		fputc('\n', f);
		for (j = 0; j < p->nbind; j++) {
			const struct hw_binding *b = &p->bind[j];
			fprintf(f, "      input ");
			put(f, b->input, flags, 32);
			fprintf(f, " = ${");
			put(f, b->placeholder, flags, 32);
			if (b->held)
				fprintf(f, "}  (value held by the console; "
				    "already replayed on %u file%s)\n", b->replayed,
				    b->replayed == 1 ? "" : "s");
			else
				fprintf(f, "}  (you will type the value; it must "
				    "come from your own need, not the agent's)\n");
		}
	}
	/* The per-key answer ledger, when the console keeps one. */
	for (i = 0; i < s->nledger; i++) {
		fprintf(f, LABEL, i == 0 ? "ledger" : "");
		put(f, s->ledger[i].label, flags, 0);
		fprintf(f, ": %u\n", s->ledger[i].count);
	}
	hex_encode(t->plan_hash, sizeof(t->plan_hash), hex);
	fprintf(f, LABEL "%s\n", "plan hash", hex);
}

void
lox_show_summary(FILE *f, const struct hw_ticket *t, unsigned flags)
{
	const struct hw_screen *s = &t->screen;
	size_t i;

	fprintf(f, "%s  ", t->id);
	put(f, t->instance, flags, 32);
	fputs("  ", f);
	put(f, s->profile, flags, 32);
	if (s->production)
		fputs(" [PRODUCTION]", f);
	fputs("  ", f);
	put(f, s->key, flags | RENDER_QUOTE, 60);
	/* The list has one line a ticket: the key check's line itself is
	 * on the ticket's screen (lox approve, lox deny). */
	if (render_key_warning(s->key, strlen(s->key), flags, NULL, 0) != 0)
		fputs("  [key WARNING]", f);
	fprintf(f, "  %zu plugin%s:", s->nplugins, s->nplugins == 1 ? "" : "s");
	for (i = 0; i < s->nplugins && i < 4; i++) {
		fputc(' ', f);
		put(f, s->plugins[i].name, flags, 32);
	}
	if (s->nplugins > 4)
		fputs(" ...", f);
	if (t->renews[0] != '\0')
		fputs("  (renewal)", f);
	fputc('\n', f);
}
