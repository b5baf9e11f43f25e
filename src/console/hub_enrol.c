/* Hub mode's start-up facts the console keeps (see hub.h): whether the
 * hub takes this console's instance key, and the accounts' names for the
 * tickets' agent labels (docs/hub.md, "The console's side"). */
#include "config.h"
#include "console/hub.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- enrolment: does the hub take this console's signed requests? ----
 *
 * A console whose instance key the hub does not take would post no ticket
 * and hear no decision: every plan would time out with no word of why.
 * Asked at the start (a refusal to start) and again whenever the hub
 * refuses a request of ours (a line on the window, an audit record):
 * docs/hub.md, "The console's side". The hub's answer is only advice
 * (a hostile hub can lie either way); nothing is approved on it. */

enum hub_enrol
hub_enrolment(struct console_hub *h, enum hc_err *ep)
{
	const char *inst = h->pol->hub.instance;
	struct buf *b = NULL;
	long st = 0;
	enum hc_err e;
	enum hub_enrol r;

	e = hc_call(&h->hc, "GET", "/v1/enrolment", NULL, 0, HW_MAX_NAME, 10000,
	    &b, &st);
	if (e == HC_OK)
		r = buf_len(b) == strlen(inst) && memcmp(buf_data(b), inst,
		    strlen(inst)) == 0 ? HUB_ENROL_OK : HUB_ENROL_NAME;
	else if (e == HC_REFUSED && st == 401)
		r = HUB_ENROL_NOT;
	else if (e == HC_REFUSED && st == 403)
		r = HUB_ENROL_ROLE;
	else
		r = HUB_ENROL_NO_ANSWER;
	buf_free(b);
	if (ep != NULL)
		*ep = e;
	return r;
}

/* What to do about it, with this console's key and the policy's instance
 * name (its alphabet is checked by the policy). */
void
hub_enrol_text(const struct console_hub *h, enum hub_enrol r, char *out, size_t len)
{
	char key[HW_KEY_TEXT_LEN + 1];
	const char *inst = h->pol->hub.instance;

	hw_key_text(h->inst.pk, key);
	switch (r) {
	case HUB_ENROL_NOT:
		(void)!str_fmt(out, len, "this console's instance key is not "
		    "enrolled on the hub (or this host's clock is over a minute "
		    "off the hub's): no ticket is taken, no decision comes; on "
		    "the hub: lockhub enroll instance %s %s --state DIR "
		    "(docs/hub.md)", inst,
		    key);
		break;
	case HUB_ENROL_ROLE:
		(void)!str_fmt(out, len, "this console's key is enrolled on the "
		    "hub as a device, not an instance; on the hub: lockhub revoke "
		    "device NAME --state DIR, then lockhub enroll instance %s "
		    "%s --state DIR (docs/hub.md)", inst, key);
		break;
	case HUB_ENROL_NAME:
		(void)!str_fmt(out, len, "this console's instance key is "
		    "enrolled on the hub as another instance than the policy's "
		    "[hub] instance = \"%s\"; on the hub: lockhub revoke "
		    "instance NAME --state DIR, then lockhub enroll instance "
		    "%s %s --state DIR (docs/hub.md)", inst, inst, key);
		break;
	case HUB_ENROL_OK:
	case HUB_ENROL_NO_ANSWER:
		(void)!str_fmt(out, len, "the hub does not say whether this "
		    "console's instance key is enrolled (an older lockhub?)");
		break;
	}
}

/* The hub refused a request of ours: if the key is no longer taken, say
 * so once on the window and in the audit (its cause), until it is. */
void
hub_enrol_refused(struct console_hub *h)
{
	static const char *const cause[] = {
		[HUB_ENROL_NOT] = "the instance key is not enrolled on the hub",
		[HUB_ENROL_ROLE] = "the instance key is enrolled on the hub as a "
		    "device",
		[HUB_ENROL_NAME] = "the instance key is enrolled on the hub under "
		    "another name",
	};
	enum hub_enrol r = hub_enrolment(h, NULL);
	char line[768];
	json_t *rec;

	if (r == HUB_ENROL_OK || r == HUB_ENROL_NO_ANSWER || h->unenrolled)
		return;
	h->unenrolled = 1;
	rec = json_object();
	json_object_set_new(rec, "method", json_string("hub.enrolment"));
	json_object_set_new(rec, "outcome", json_string("refused"));
	json_object_set_new(rec, "cause", json_string(cause[r]));
	h->audit->write(h->audit_ctx, rec);
	hub_enrol_text(h, r, line, sizeof(line));
	term_printf(h->term, "hub: %s\n", line);
}

/* A request of ours was taken again. */
void
hub_enrol_taken(struct console_hub *h)
{
	if (!h->unenrolled)
		return;
	h->unenrolled = 0;
	term_printf(h->term, "hub: this console's instance key is enrolled "
	    "again: tickets are taken\n");
}

static int
plain_name(const char *name)
{
	return strlen(name) <= HUB_NAME_MAX && name[0] != '\0' &&
	    hw_text_ok(HW_T_PLAIN, name, strlen(name));
}

/* The accounts' names as the password database has them at the start,
 * before the confinement: Landlock binds /etc/passwd's inode of that
 * moment, so once the file is replaced (useradd, vipw rename a new one
 * over it) the live lookup fails, and the label would lose the name
 * (docs/hub.md, "Plan hash and agent commitment"). */
void
hub_names_snapshot(struct console_hub *h)
{
	struct passwd *pw;

	h->names = xcalloc(HUB_MAX_NAMES, sizeof(*h->names));
	setpwent();
	while (h->nnames < HUB_MAX_NAMES && (pw = getpwent()) != NULL) {
		if (!plain_name(pw->pw_name))
			continue;
		h->names[h->nnames].uid = pw->pw_uid;
		memcpy(h->names[h->nnames].name, pw->pw_name,
		    strlen(pw->pw_name) + 1);
		h->nnames++;
	}
	endpwent();
}

/* "uid N (name)": the name as the password database has it now, else as
 * it had it at the start, else none. */
void
hub_agent_label(const struct console_hub *h, uid_t uid, char *out, size_t len)
{
	struct passwd *pw = getpwuid(uid);
	const char *name = NULL;
	size_t i;

	if (pw != NULL && plain_name(pw->pw_name))
		name = pw->pw_name;
	for (i = 0; name == NULL && i < h->nnames; i++)
		if (h->names[i].uid == uid)
			name = h->names[i].name;
	if (name == NULL || str_fmt(out, len, "uid %u (%s)", (unsigned)uid,
	    name) != STR_OK)
		(void)!str_fmt(out, len, "uid %u", (unsigned)uid);
}

/* A refused decision (docs/hub.md, "The check chain"): in the audit as
 * hub.decision with its cause, before the quantum, and on the window. */
void
hub_refused(struct console_hub *h, const struct hub_ticket_state *s,
    const char *cause)
{
	json_t *rec = json_object();
	char line[160];

	json_object_set_new(rec, "method", json_string("hub.decision"));
	json_object_set_new(rec, "plan", json_string(s->plan));
	json_object_set_new(rec, "ticket", json_string(s->ticket));
	json_object_set_new(rec, "outcome", json_string("refused"));
	json_object_set_new(rec, "cause", json_string(cause));
	h->audit->note(h->audit_ctx, rec);	/* before the quantum */
	str_msg(line, sizeof(line), "  refused a decision for %s: %s",
	    s->ticket, cause);
	term_printf(h->term, "%s\n", line);
}
