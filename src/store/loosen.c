/* The loosening prompt (see loosen.h). Manifest text is the publisher's,
 * signed but still untrusted: every byte of it reaches the terminal only
 * through term_untrusted() (escaped). The terminal must pass the console's
 * own terminal checks first (term/human.h): an acceptance typed on a
 * terminal an agent could drive is no acceptance. */
#include "store/loosen.h"
#include "term/human.h"
#include "term/term.h"
#include "lib/log.h"
#include "lib/clock.h"
#include "lib/str.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
show_text(struct term *t, const char *label, const char *old,
    const char *new)
{
	int same = old != NULL && strcmp(old, new) == 0;

	if (old != NULL) {
		term_printf(t, "  %-9s old: ", label);
		term_untrusted(t, old, strlen(old), PROTO_MAX_MANIFEST_TEXT);
		term_printf(t, "\n  %-9s new: ", same ? "" : "CHANGED");
	} else {
		term_printf(t, "  %-9s new: ", label);
	}
	term_untrusted(t, new, strlen(new), PROTO_MAX_MANIFEST_TEXT);
	term_printf(t, "\n");
}

/* 1 when input in of the new manifest is not the same in old (NULL:
 * nothing to compare with). */
static int
input_changed(const struct manifest_input *in, const struct manifest *old)
{
	size_t i;

	if (old == NULL)
		return 0;
	for (i = 0; i < old->ninputs; i++)
		if (strcmp(old->inputs[i].name, in->name) == 0)
			return old->inputs[i].kind != in->kind ||
			    old->inputs[i].max_bytes != in->max_bytes;
	return 1;	/* a new input */
}

/* The inputs of m; with old (the new side), each one that differs from
 * old's is marked, as show_text marks a text (issue 32: the screen did not
 * say which limit changed). */
static void
show_inputs(struct term *t, const char *which, const struct manifest *m,
    const struct manifest *old)
{
	size_t i;

	term_printf(t, "  inputs    %s:", which);
	if (m->ninputs == 0)
		term_printf(t, " none");
	for (i = 0; i < m->ninputs; i++) {
		term_printf(t, "%s ", i ? "," : "");
		term_untrusted(t, m->inputs[i].name, strlen(m->inputs[i].name),
		    32);
		term_printf(t, " (%s, at most %u bytes)%s",
		    input_kind_name(m->inputs[i].kind), m->inputs[i].max_bytes,
		    input_changed(&m->inputs[i], old) ? " CHANGED" : "");
	}
	term_printf(t, "\n");
}

static void
show_limits(struct term *t, const char *which, const struct manifest *m,
    const struct manifest *old)
{
	term_printf(t, "  limits    %s: cpu %u s%s, memory %llu bytes%s, "
	    "wall %u s%s\n", which,
	    m->cpu_s, old && old->cpu_s != m->cpu_s ? " CHANGED" : "",
	    m->memory_bytes, old && old->memory_bytes != m->memory_bytes ?
	    " CHANGED" : "",
	    m->wall_s, old && old->wall_s != m->wall_s ? " CHANGED" : "");
}

int
loosen_ask(const char *marketplace, int official, const struct manifest *old,
    const char *oldversion, const struct manifest *new, char *why,
    size_t whylen)
{
	const char *twhy = NULL;
	char answer[64];
	struct term t;
	long n;

	if (term_open(&t, &twhy) != 0) {
		str_msg(why, whylen, "%s", twhy);
		return -1;
	}
	/* every account but ours and root counted as an agent: the store
	 * does not read the policy */
	if (term_human_here(&t, NULL, why, whylen) != 0) {
		term_close(&t);
		return -1;
	}
	term_printf(&t, "=== plugin update LOOSENS what it answers ===\n");
	term_printf(&t, "  plugin    %s  %s -> %s\n", new->name, oldversion,
	    new->version);
	term_printf(&t, "  from      %s%s\n", marketplace, official ?
	    "  (official)" : "  WARNING: unofficial marketplace");
	if (old == NULL)
		term_printf(&t, "  the installed manifest cannot be read: "
		    "everything below is new\n");
	show_text(&t, "question", old ? old->question : NULL, new->question);
	show_text(&t, "1 means", old ? old->one : NULL, new->one);
	show_text(&t, "0 means", old ? old->zero : NULL, new->zero);
	if (old != NULL) {
		term_printf(&t, "  protocol  old: %d  new: %d\n", old->protocol,
		    new->protocol);
		show_inputs(&t, "old", old, NULL);
	}
	show_inputs(&t, "new", new, old);
	if (old != NULL)
		show_limits(&t, "old", old, NULL);
	show_limits(&t, "new", new, old);
	/* Type-ahead cannot accept: what was typed before the card is gone. */
	term_flush_input(&t);
	term_printf(&t, "Type '%s' to install the new version with these "
	    "meanings: ", LOOSEN_ANSWER);
	n = term_read_line(&t, answer, sizeof(answer), 1,
	    now_ms() + LOOSEN_TIMEOUT_S * 1000LL);
	if (n < 0 || strcmp(answer, LOOSEN_ANSWER) != 0) {
		term_printf(&t, "not accepted\n");
		term_close(&t);
		return 0;
	}
	term_printf(&t, "accepted\n");
	term_close(&t);
	return 1;
}
