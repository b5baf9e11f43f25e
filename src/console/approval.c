/* The approval card (see approval.h). */
#include "console/approval.h"
#include "lib/fd.h"
#include "lib/render.h"
#include "protocol/table.h"

#include <pwd.h>
#include <string.h>
#include <sys/ioctl.h>

/* The card's layout: labels in a column of LABEL_COLS, values after it,
 * wrapped at the terminal's width with a hanging indent. Every value from
 * outside goes through render_text() (lib/render.h); widths are display
 * columns, so wide characters keep the columns aligned. */
#define LABEL_COLS	12
#define TEXT_COLS	16	/* "      question: " */
#define MAX_NAME_COLS	32

static size_t
term_width(const struct term *t)
{
	struct winsize ws;

	if (ioctl(t->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 80;
}

/* Safe text, starting at column indent, wrapped with the same indent. */
static void
put_wrapped(struct term *t, size_t indent, const char *safe, size_t len)
{
	size_t width = term_width(t), avail, off = 0;

	avail = width > indent + 20 ? width - indent : 20;
	while (off < len) {
		size_t n = render_fit(safe + off, len - off, avail);

		if (off > 0)
			term_printf(t, "\n%*s", (int)indent, "");
		(void)write_full(t->fd, safe + off, n);
		off += n;
	}
	term_printf(t, "\n");
}

/* Outside text rendered (quoted or not) and wrapped, after its label. */
static void
value_line(struct term *t, const char *label, const char *s, size_t len,
    unsigned flags)
{
	char out[4 * PROTO_MAX_KEY + 8];
	struct render_info ri;

	term_printf(t, "  %-*s", LABEL_COLS - 2, label);
	render_text(s, len, flags | t->render_flags, 0, out, sizeof(out), &ri);
	put_wrapped(t, LABEL_COLS, out, ri.len);
}

/* The key check's one warning line (lib/render.h: not NFC, look-alike
 * characters, mixed scripts, right-to-left letters; docs/rendering.md). */
static void
key_warning_line(struct term *t, const char *key)
{
	char out[10 * PROTO_MAX_KEY + 128];

	if (render_key_warning(key, strlen(key), t->render_flags, out,
	    sizeof(out)) != 0) {
		term_printf(t, "  %-*s", LABEL_COLS - 2, "WARNING");
		put_wrapped(t, LABEL_COLS, out, strlen(out));
	}
}

static void
text_line(struct term *t, const char *label, const char *s)
{
	char out[4 * PROTO_MAX_MANIFEST_TEXT + 8];
	struct render_info ri;

	term_printf(t, "      %-*s", TEXT_COLS - 6, label);
	render_text(s, strlen(s), t->render_flags, 0, out, sizeof(out), &ri);
	put_wrapped(t, TEXT_COLS, out, ri.len);
}

/* A short field (a name, a version), cut to max_cols columns. */
static size_t
short_field(const struct term *t, const char *s, size_t max_cols, char *out,
    size_t outlen)
{
	struct render_info ri;

	render_text(s, strlen(s), t->render_flags, max_cols, out, outlen, &ri);
	return ri.cols;
}

void
approval_show(struct term *t, const struct card *c)
{
	struct passwd *pw = getpwuid(c->uid);
	char name[4 * MAX_NAME_COLS + 8], ver[4 * MAX_NAME_COLS + 8];
	size_t i, j, name_cols = 0;

	term_printf(t, "\n=== lockfile: an agent asks for a plan ===\n");
	/* The account name comes from the password database, not the agent;
	 * still rendered. */
	term_printf(t, "  %-*s%u (", LABEL_COLS - 2, "from uid",
	    (unsigned)c->uid);
	if (pw != NULL) {
		short_field(t, pw->pw_name, MAX_NAME_COLS, name, sizeof(name));
		term_printf(t, "%s)\n", name);
	} else {
		term_printf(t, "no account name)\n");
	}
	short_field(t, c->profile, 64, ver, sizeof(ver));
	term_printf(t, "  %-*s%s%s\n", LABEL_COLS - 2, "profile", ver,
	    c->production ? "   [PRODUCTION]" : "");
	if (c->handle != NULL)
		value_line(t, "handle", c->handle, strlen(c->handle), 0);
	/* Quoted, so edge and repeated spaces show ("a.pdf" vs "a.pdf "). */
	value_line(t, "key", c->key, strlen(c->key), RENDER_QUOTE);
	if (c->handle == NULL && (c->typed_len != strlen(c->key) ||
	    memcmp(c->typed, c->key, c->typed_len) != 0))
		value_line(t, "typed", c->typed, c->typed_len, RENDER_QUOTE);
	key_warning_line(t, c->key);
	term_printf(t, "  this plan reveals %u answer%s; the handle has %u left "
	    "(%u after)\n", c->reveals, c->reveals == 1 ? "" : "s",
	    c->left_before, c->left_before - c->reveals);
	if (c->ledger_line != NULL)
		term_printf(t, "  %s\n", c->ledger_line);
	else
		for (i = 0; i < c->nledger; i++)
			term_printf(t, "  %-*s%s: %u\n", LABEL_COLS - 2,
			    i == 0 ? "ledger" : "", c->ledger[i].label,
			    c->ledger[i].count);
	/* The versions in one column: names padded by display width. */
	for (i = 0; i < c->nplugins; i++) {
		size_t w = short_field(t, c->plugins[i].m->name, MAX_NAME_COLS,
		    name, sizeof(name));
		if (w > name_cols)
			name_cols = w;
	}
	for (i = 0; i < c->nplugins; i++) {
		const struct card_plugin *p = &c->plugins[i];
		size_t w = short_field(t, p->m->name, MAX_NAME_COLS, name,
		    sizeof(name));

		short_field(t, p->m->version, 20, ver, sizeof(ver));
		term_printf(t, "  [%zu] %s%*s %s%s\n", i + 1, name,
		    (int)(name_cols - w), "", ver, p->official ? "  (official)"
		    : "  WARNING: unofficial marketplace");
		text_line(t, "question:", p->m->question);
		text_line(t, "1 means:", p->m->one);
		text_line(t, "0 means:", p->m->zero);
		for (j = 0; j < p->nbind; j++) {
			const struct card_binding *b = &p->bind[j];
			char in[4 * 32 + 8], ph[4 * 32 + 8];

			short_field(t, b->input, 32, in, sizeof(in));
			short_field(t, b->placeholder, 32, ph, sizeof(ph));
			/* Values are held per peer uid: the one this card is for. */
			if (b->held)
				term_printf(t, "      input %s = ${%s}  (value held for "
				    "uid %u; already replayed on %zu file%s)\n", in, ph,
				    (unsigned)c->uid,
				    b->replayed, b->replayed == 1 ? "" : "s");
			else
				term_printf(t, "      input %s = ${%s}  (you will "
				    "type the value; it must come from your own "
				    "need, not the agent's)\n", in, ph);
		}
	}
}

enum decision
approval_ask(struct term *t, const struct card *c, long long deadline_ms)
{
	char line[256];

	term_redraw_reset(t);
	approval_show(t, c);
	for (;;) {
		long n;

		term_flush_input(t);	/* type-ahead cannot approve */
		term_printf(t, c->production ?
		    "Approve? type 'yes' to approve, 'n <reason>' to deny: " :
		    "Approve? 'y' to approve, 'n <reason>' to deny: ");
		/* A waiting card is drawn again on ctrl-L and when the
		 * terminal is resized, which is what `lox attach` (docker
		 * attach) does: a human who attaches sees what the question
		 * is, not a bare prompt (docs/docker.md, docs/console.md). */
		t->redraw = 1;
		n = term_read_line(t, line, sizeof(line), 1, deadline_ms);
		t->redraw = 0;
		if (n == TERM_REDRAW) {
			explicit_bzero(line, sizeof(line));
			approval_show(t, c);
			continue;
		}
		if (n == TERM_TIMEOUT) {
			term_printf(t, "\n  no decision in time: refused\n");
			return DECISION_TIMEOUT;
		}
		if (n == TERM_PEER_GONE) {
			term_printf(t, "\n  the agent went away: plan withdrawn\n");
			return DECISION_WITHDRAWN;
		}
		if (n == TERM_ENDED)
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
