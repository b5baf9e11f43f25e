/* lox tickets: the pending tickets, as lox checked them (docs/hub.md).
 *
 *   lox tickets [--wait]
 *
 * A ticket is listed only when it verifies under the instance key lox
 * pinned for its instance; the others are counted, and nothing of their
 * content is shown (it is text the hub or someone else chose). --wait
 * long-polls until at least one such ticket is pending.
 * Exit status: 0 listed (maybe none), 64 usage, 69 the hub cannot be
 * reached or refused, 70 lox's state is unusable. */
#include "config.h"
#include "lox/hub.h"
#include "lib/render.h"
#include "lib/str.h"

#include <string.h>

/* A verified ticket renewed by a later verified one of its own instance:
 * the console forgot it, so it is not shown (docs/hub.md, "lox"). */
static int
renewed(const struct loxhub *h, const struct hw_list *l,
    const struct hw_ticket *t)
{
	static struct hw_ticket r;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (loxhub_check(h, l->items[i].ticket, l->items[i].ticket_len,
		    &r) == LOX_TICKET_OK && strcmp(r.renews, t->id) == 0 &&
		    strcmp(r.instance, t->instance) == 0)
			return 1;
	return 0;
}

static size_t
show_list(struct loxhub *h, const struct hw_list *l, int print)
{
	static struct hw_ticket t;
	unsigned flags = render_locale_flags();
	size_t i, ok = 0, unpinned = 0, forged = 0, superseded = 0;

	for (i = 0; i < l->n; i++) {
		switch (loxhub_check(h, l->items[i].ticket,
		    l->items[i].ticket_len, &t)) {
		case LOX_TICKET_OK:
			if (renewed(h, l, &t)) {
				superseded++;
				break;
			}
			if (print)
				lox_show_summary(stdout, &t, flags);
			ok++;
			break;
		case LOX_TICKET_UNPINNED:
			unpinned++;
			break;
		default:
			forged++;
			break;
		}
	}
	if (print && superseded > 0)
		printf("(%zu superseded ticket%s not shown: the console renewed "
		    "%s; decide on the renewal)\n", superseded,
		    superseded == 1 ? "" : "s", superseded == 1 ? "it" : "them");
	if (print && unpinned > 0)
		printf("(%zu ticket%s from instances this lox has not pinned: "
		    "not shown; lox enroll --instance NAME=KEY)\n", unpinned,
		    unpinned == 1 ? "" : "s");
	if (print && forged > 0)
		printf("(%zu ticket%s REFUSED: not signed by the pinned instance "
		    "key, or not a ticket; nothing of them is shown)\n", forged,
		    forged == 1 ? "" : "s");
	return ok;
}

int
cmd_tickets(struct lox *l, int argc, char **argv)
{
	static struct hw_list list;
	struct loxhub h;
	struct buf *raw = NULL;
	int k, wait = 0, ret = 0;
	uint64_t seq;

	for (k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--wait") == 0) {
			wait = 1;
		} else {
			lox_err("refused: lox tickets %s", argv[k]);
			return LOX_EX_USAGE;
		}
	}
	if (loxhub_load(&h, 1, 1) != 0)
		return LOX_EX_SOFTWARE;
	if (loxhub_pending(&h, &list, &raw) != 0) {
		loxhub_free(&h);
		return LOX_EX_UNAVAILABLE;
	}
	seq = list.seq;
	while (wait && show_list(&h, &list, 0) == 0) {
		char path[64];
		enum hc_err e;

		buf_free(raw);
		raw = NULL;
		if (str_fmt(path, sizeof(path), "/v1/pending/after/%llu",
		    (unsigned long long)seq) != STR_OK)
			break;
		e = hc_call(&h.hc, "GET", path, NULL, 0, HW_MAX_LIST,
		    LOX_POLL_MS, &raw, NULL);
		if (e == HC_NO_DATA || e == HC_BUSY)
			continue;
		if (e != HC_OK || hw_list_parse(buf_data(raw), buf_len(raw),
		    &list) != HW_OK) {
			lox_err("%s: %s", h.url, e != HC_OK ? hc_err_text(e) :
			    "the list of tickets does not parse");
			ret = LOX_EX_UNAVAILABLE;
			goto out;
		}
		seq = list.seq;
	}
	if (show_list(&h, &list, 1) == 0)
		printf("no pending ticket\n");
out:
	buf_free(raw);
	loxhub_free(&h);
	(void)l;
	return ret;
}
