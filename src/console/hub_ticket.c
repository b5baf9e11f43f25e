/* What a hub ticket shows and binds (docs/hub.md, "TICKET"): the masked
 * screen made from the plan's card, and the plan hash over what runs.
 * Pure functions of the plan's facts (plan.h, struct plan_ticket); the
 * ticket's state, signing and post stay in hub.c and hub_job.c. */
#include "console/hub.h"
#include "lib/str.h"

#include <string.h>

static const struct manifest_input *
input_of(const struct manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->ninputs; i++)
		if (strcmp(m->inputs[i].name, name) == 0)
			return &m->inputs[i];
	return NULL;
}

/* The masked screen from the card and the facts the plan gave. */
int
hub_ticket_screen(const struct plan_ticket *f, struct hw_ticket *t)
{
	const struct card *c = f->card;
	struct hw_screen *s = &t->screen;
	size_t i, j;

	if (str_fmt(s->profile, sizeof(s->profile), "%s", f->profile) != STR_OK ||
	    str_fmt(s->key, sizeof(s->key), "%s", f->key) != STR_OK ||
	    str_fmt(s->handle, sizeof(s->handle), "%s", f->handle) != STR_OK)
		return -1;
	s->production = c->production;
	if (c->handle == NULL && (c->typed_len != strlen(c->key) ||
	    memcmp(c->typed, c->key, c->typed_len) != 0)) {
		if (c->typed_len > HW_MAX_KEY ||
		    memchr(c->typed, '\0', c->typed_len) != NULL)
			return -1;
		memcpy(s->typed, c->typed, c->typed_len);
		s->typed[c->typed_len] = '\0';
	}
	s->content = f->content == PLAN_CONTENT_FETCHED ? HW_CONTENT_FETCHED :
	    f->content == PLAN_CONTENT_FAILED ? HW_CONTENT_FAILED :
	    HW_CONTENT_UNCHECKED;
	if (f->content != PLAN_CONTENT_FAILED) {
		memcpy(s->sha256, f->sha256, 32);
		s->size = f->size;
	}
	s->reveals = c->reveals;
	s->left_before = c->left_before;
	if (c->nplugins > HW_MAX_PLUGINS)
		return -1;
	s->nplugins = c->nplugins;
	for (i = 0; i < c->nplugins; i++) {
		const struct card_plugin *cp = &c->plugins[i];
		struct hw_plugin *p = &s->plugins[i];
		if (str_fmt(p->name, sizeof(p->name), "%s", cp->m->name) != STR_OK ||
		    str_fmt(p->version, sizeof(p->version), "%s",
		    cp->m->version) != STR_OK ||
		    str_fmt(p->question, sizeof(p->question), "%s",
		    cp->m->question) != STR_OK ||
		    str_fmt(p->one, sizeof(p->one), "%s", cp->m->one) != STR_OK ||
		    str_fmt(p->zero, sizeof(p->zero), "%s", cp->m->zero) != STR_OK)
			return -1;
		p->official = cp->official;
		p->nbind = cp->nbind;
		for (j = 0; j < cp->nbind && j < HW_MAX_BIND; j++) {
			if (str_fmt(p->bind[j].input, sizeof(p->bind[j].input), "%s",
			    cp->bind[j].input) != STR_OK ||
			    str_fmt(p->bind[j].placeholder,
			    sizeof(p->bind[j].placeholder), "%s",
			    cp->bind[j].placeholder) != STR_OK)
				return -1;
			p->bind[j].held = cp->bind[j].held;
			p->bind[j].replayed = (uint32_t)cp->bind[j].replayed;
		}
	}
	for (i = 0; i < f->nmoved && i < HW_MAX_MOVED; i++)
		if (str_fmt(s->moved[i], sizeof(s->moved[i]), "%s", f->moved[i]) !=
		    STR_OK)
			return -1;
	s->nmoved = f->nmoved < HW_MAX_MOVED ? f->nmoved : HW_MAX_MOVED;
	/* the per-key answer ledger's lines, as the card has them */
	for (i = 0; i < c->nledger && i < HW_MAX_LEDGER; i++) {
		if (str_fmt(s->ledger[i].label, sizeof(s->ledger[i].label), "%s",
		    c->ledger[i].label) != STR_OK)
			return -1;
		s->ledger[i].count = c->ledger[i].count;
	}
	s->nledger = c->nledger < HW_MAX_LEDGER ? c->nledger : HW_MAX_LEDGER;
	/* The placeholders the human types in lox: those not held. */
	for (i = 0; i < c->nplugins; i++)
		for (j = 0; j < c->plugins[i].nbind; j++) {
			const struct card_binding *b = &c->plugins[i].bind[j];
			const struct manifest_input *in;
			size_t k;
			int dup = 0;

			if (b->held)
				continue;
			for (k = 0; k < t->nph; k++)
				dup |= strcmp(t->ph[k].name, b->placeholder) == 0;
			in = input_of(c->plugins[i].m, b->input);
			if (dup || in == NULL || t->nph == HW_MAX_PLACEHOLDERS)
				continue;
			if (str_fmt(t->ph[t->nph].name, sizeof(t->ph[0].name), "%s",
			    b->placeholder) != STR_OK)
				return -1;
			t->ph[t->nph].kind = in->kind == INPUT_EMAIL ?
			    HW_KIND_EMAIL : HW_KIND_TEXT;
			t->ph[t->nph].max_bytes = in->max_bytes;
			t->nph++;
		}
	return 0;
}

/* The plan hash: the content's sha256, the key or handle, each plugin
 * with its pins and bindings (docs/hub.md). */
int
hub_plan_hash(const struct plan_ticket *f, uint8_t out[32])
{
	struct hw_plan p;
	struct hw_plan_plugin pp[PROTO_MAX_PLUGINS];
	const char *in[PROTO_MAX_PLUGINS][PROTO_MAX_INPUTS];
	const char *ph[PROTO_MAX_PLUGINS][PROTO_MAX_INPUTS];
	size_t i, j;

	memset(&p, 0, sizeof(p));
	p.profile = f->profile;
	p.key = f->key;
	p.handle = f->handle;
	p.sha256 = f->content == PLAN_CONTENT_FAILED ? NULL : f->sha256;
	p.nplugins = f->npins;
	p.plugins = pp;
	for (i = 0; i < f->npins; i++) {
		const struct req_plugin *rp = &f->req->plugins[i];
		pp[i].name = f->pins[i].name;
		pp[i].version = f->pins[i].version;
		pp[i].marketplace = f->pins[i].marketplace;
		pp[i].manifest_sha256 = f->pins[i].manifest_sha256;
		pp[i].binary_sha256 = f->pins[i].binary_sha256;
		pp[i].nbind = rp->ninputs;
		for (j = 0; j < rp->ninputs; j++) {
			in[i][j] = rp->inputs[j].name;
			ph[i][j] = rp->inputs[j].placeholder;
		}
		pp[i].input = in[i];
		pp[i].placeholder = ph[i];
	}
	return hw_plan_hash(&p, out) == HW_OK ? 0 : -1;
}
