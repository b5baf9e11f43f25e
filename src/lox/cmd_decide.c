/* lox approve, lox deny: the human's decision on one ticket (docs/hub.md).
 *
 *   lox approve TICKET
 *   lox deny TICKET [REASON...]
 *
 * Both find the ticket among the pending ones, check it against the
 * pinned instance key and show its signed fields (what you see is what
 * you sign). approve asks for each placeholder's value without echo and
 * for y (a production profile: yes), seals the values to the ticket's
 * one-use key and signs a DECISION-DEV over the ticket's hash, its nonce
 * and the box's hash. deny signs a denial with an empty box; the reason
 * stays here: lox prints it back and sends nothing of it.
 * Exit status: 0 the decision is posted; 64 usage; 65 no such pending
 * ticket, or refused (not signed by the pinned instance, already decided);
 * 69 the hub cannot be reached or refused; 70 lox's state; 75 the human
 * cancelled (nothing sent). */
#include "config.h"
#include "lox/hub.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/render.h"
#include "lib/str.h"
#include "store/manifest.h"
#include "term/term.h"

#include <string.h>
#include <time.h>

#include <sodium.h>

#define EX_NOTICKET	65
#define EX_CANCELLED	75
#define ASK_MS		(10LL * 60 * 1000)
#define TRIES		3

static long long
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A pending ticket that renews id, verified under its instance's pinned
 * key: the console made it when it renewed the plan, and only it can
 * decide now (the console forgot the old one: docs/hub.md, "Renewal"). */
struct renewal {
	char instance[HW_MAX_NAME + 1];
	char by[HW_ID_LEN + 1];
};

/* Find the ticket in the pending list (paging on, to the end: a renewal
 * of it comes later), checked, and not renewed. Its bytes are copied into
 * *bytes. */
static int
find_ticket(struct loxhub *h, const char *id, struct hw_ticket *t,
    struct buf **bytes)
{
	static struct hw_list l;
	static struct hw_ticket scan;
	static struct renewal ren[HW_MAX_LIST_ITEMS];
	struct buf *raw = NULL;
	enum lox_ticket st;
	size_t i, nren = 0;

	*bytes = NULL;
	if (loxhub_pending(h, &l, &raw) != 0)
		return LOX_EX_UNAVAILABLE;
	for (;;) {
		for (i = 0; i < l.n; i++) {
			st = loxhub_check(h, l.items[i].ticket,
			    l.items[i].ticket_len, &scan);
			if (st == LOX_TICKET_OK && strcmp(scan.renews, id) == 0 &&
			    nren < HW_MAX_LIST_ITEMS) {
				memcpy(ren[nren].instance, scan.instance,
				    sizeof(ren[0].instance));
				memcpy(ren[nren].by, scan.id, sizeof(ren[0].by));
				nren++;
			}
			if (st == LOX_TICKET_UNPARSED || *bytes != NULL ||
			    strcmp(scan.id, id) != 0)
				continue;
			if (st != LOX_TICKET_OK) {
				lox_err("ticket %s is REFUSED: %s", id,
				    st == LOX_TICKET_UNPINNED ? "its instance has "
				    "no key pinned in this lox" : "it is not "
				    "signed by the instance key pinned here");
				buf_free(raw);
				return EX_NOTICKET;
			}
			*bytes = buf_new(l.items[i].ticket_len);
			if (buf_append(*bytes, l.items[i].ticket,
			    l.items[i].ticket_len) != 0)
				fatal("ticket copy");
		}
		/* A full page: the rest follows the last one listed. */
		if (l.n < HW_MAX_LIST_ITEMS)
			break;
		{
			char path[64];
			uint64_t last = l.items[l.n - 1].seq;
			buf_free(raw);
			raw = NULL;
			if (str_fmt(path, sizeof(path), "/v1/pending/after/%llu",
			    (unsigned long long)last) != STR_OK ||
			    hc_call(&h->hc, "GET", path, NULL, 0, HW_MAX_LIST,
			    LOX_POLL_MS, &raw, NULL) != HC_OK ||
			    hw_list_parse(buf_data(raw), buf_len(raw), &l) != HW_OK)
				break;
		}
	}
	buf_free(raw);
	if (*bytes == NULL) {
		lox_err("no pending ticket %s (decided, gone from the hub, or "
		    "unknown)", id);
		return EX_NOTICKET;
	}
	if (loxhub_check(h, buf_data(*bytes), buf_len(*bytes), t) !=
	    LOX_TICKET_OK)
		fatal("ticket re-check");
	/* Renewed by its own console (another instance cannot say so): a
	 * decision on it would be taken by the hub and run nothing. */
	for (i = 0; i < nren; i++)
		if (strcmp(ren[i].instance, t->instance) == 0) {
			lox_err("ticket %s was renewed by the console as %s: "
			    "decide on that one (lox tickets)", id, ren[i].by);
			buf_free(*bytes);
			*bytes = NULL;
			return EX_NOTICKET;
		}
	return 0;
}

static int
post(struct loxhub *h, const struct hw_ticket *t, const struct buf *ticket,
    uint8_t verdict, const struct buf *box)
{
	struct hw_dev d;
	struct hw_envelope e;
	struct buf *dev = NULL, *body = NULL;
	char path[128];
	enum hc_err err;
	int ret;

	memset(&d, 0, sizeof(d));
	hw_hash(buf_data(ticket), buf_len(ticket), d.ticket_hash);
	memcpy(d.instance_key, t->instance_key, HW_KEY_LEN);
	memcpy(d.ticket, t->id, sizeof(d.ticket));
	memcpy(d.nonce, t->nonce, HW_NONCE_LEN);
	d.verdict = verdict;
	d.time_ms = (uint64_t)wall_ms();
	memcpy(d.device_key, h->key.pk, HW_KEY_LEN);
	hw_hash(buf_data(box), buf_len(box), d.box_hash);
	memset(&e, 0, sizeof(e));
	if (hw_dev_encode(&d, h->key.sk, &dev) != HW_OK)
		return LOX_EX_SOFTWARE;
	e.dev = buf_data(dev);
	e.dev_len = buf_len(dev);
	e.box = buf_data(box);
	e.box_len = buf_len(box);
	if (hw_devpost_encode(&e, &body) != HW_OK ||
	    str_fmt(path, sizeof(path), "/v1/tickets/%s/decision", t->id) !=
	    STR_OK) {
		buf_free(dev);
		buf_free(body);
		return LOX_EX_SOFTWARE;
	}
	err = hc_call(&h->hc, "POST", path, buf_data(body), buf_len(body),
	    4096, 30000, NULL, NULL);
	buf_free(dev);
	buf_free(body);
	switch (err) {
	case HC_OK:
		ret = 0;
		break;
	case HC_CONFLICT:
		lox_err("ticket %s is decided already by this device (its "
		    "first decision stands)", t->id);
		ret = EX_NOTICKET;
		break;
	case HC_NOT_FOUND:
		lox_err("ticket %s is gone from the hub", t->id);
		ret = EX_NOTICKET;
		break;
	default:
		lox_err("%s: %s", h->url, hc_err_text(err));
		ret = LOX_EX_UNAVAILABLE;
		break;
	}
	return ret;
}

static void
put_name(struct term *tm, const char *s)
{
	char out[8 * HW_MAX_NAME + 8];

	render_text(s, strlen(s), tm->render_flags, 32, out, sizeof(out), NULL);
	term_printf(tm, "%s", out);
}

/* Each placeholder's value, typed without echo into locked memory and
 * checked as the console checks it (store/manifest.h). */
static int
read_values(struct term *tm, const struct hw_ticket *t, struct hw_value *v,
    uint8_t *mem)
{
	size_t i;
	int k;

	for (i = 0; i < t->nph; i++) {
		const struct hw_placeholder *p = &t->ph[i];
		struct manifest_input in;
		uint8_t *b = mem + i * (HW_MAX_VALUE + 1);
		long n = -1;

		memset(&in, 0, sizeof(in));
		in.kind = p->kind == HW_KIND_EMAIL ? INPUT_EMAIL : INPUT_TEXT;
		in.max_bytes = p->max_bytes;
		for (k = 0; k < TRIES; k++) {
			term_flush_input(tm);
			term_printf(tm, "  value for ${");
			put_name(tm, p->name);
			term_printf(tm, "} (%s, at most %u bytes; not shown): ",
			    p->kind == HW_KIND_EMAIL ? "email" : "text",
			    p->max_bytes);
			n = term_read_line(tm, (char *)b, HW_MAX_VALUE + 1, 0,
			    now_ms() + ASK_MS);
			term_printf(tm, "\n");
			if (n > 0 && input_value_fits(&in, b, (size_t)n))
				break;
			if (n < 0 && n != TERM_TOO_LONG)
				return -1;
			term_printf(tm, "  that does not fit the input (%s, 1 to "
			    "%u bytes)\n", p->kind == HW_KIND_EMAIL ? "an email "
			    "address" : "text without control characters",
			    p->max_bytes);
			n = -1;
		}
		if (n <= 0)
			return -1;
		memcpy(v[i].name, p->name, sizeof(v[i].name));
		v[i].bytes = b;
		v[i].len = (size_t)n;
	}
	return 0;
}

static int
approve(struct loxhub *h, const struct hw_ticket *t, const struct buf *ticket)
{
	static struct hw_value v[HW_MAX_PLACEHOLDERS];
	struct term tm;
	struct buf *box = NULL;
	const char *why = NULL;
	char line[64];
	uint8_t *mem;
	long n;
	int ret;

	if (term_open(&tm, &why) != 0) {
		lox_err("lox approve needs the human's terminal");
		return LOX_EX_USAGE;
	}
	mem = sodium_malloc(HW_MAX_PLACEHOLDERS * (HW_MAX_VALUE + 1));
	if (mem == NULL)
		fatal("out of locked memory");
	memset(v, 0, sizeof(v));
	if (read_values(&tm, t, v, mem) != 0) {
		term_printf(&tm, "  no value: nothing sent\n");
		ret = EX_CANCELLED;
		goto out;
	}
	term_flush_input(&tm);
	term_printf(&tm, t->screen.production ?
	    "Approve? type 'yes' to approve, anything else cancels: " :
	    "Approve? 'y' to approve, anything else cancels: ");
	n = term_read_line(&tm, line, sizeof(line), 1, now_ms() + ASK_MS);
	if (n < 0 || !(strcmp(line, "yes") == 0 ||
	    (!t->screen.production && strcmp(line, "y") == 0))) {
		term_printf(&tm, "\n  cancelled: nothing sent\n");
		ret = EX_CANCELLED;
		goto out;
	}
	if (hw_values_seal(v, t->nph, t->box_pk, &box) != HW_OK) {
		ret = LOX_EX_SOFTWARE;
		goto out;
	}
	ret = post(h, t, ticket, HW_APPROVE, box);
	if (ret == 0)
		/* Only what lox saw: the hub took it (201). Whether the
		 * console runs the plan is the console's to say (its window,
		 * its audit), never lox's. */
		term_printf(&tm, "  approved: the hub took your decision; the "
		    "console runs the plan only if this ticket is still its "
		    "pending one and your decision passes its checks (its "
		    "audit says)\n");
out:
	buf_free(box);
	sodium_free(mem);
	sodium_memzero(v, sizeof(v));
	term_close(&tm);
	return ret;
}

static int
deny(struct loxhub *h, const struct hw_ticket *t, const struct buf *ticket,
    int argc, char **argv)
{
	struct buf *box = NULL;
	char reason[1024] = "", shown[4 * sizeof(reason)];
	size_t used = 0;
	int k, ret;

	for (k = 0; k < argc; k++) {
		size_t n = strlen(argv[k]);
		if (used + n + 2 > sizeof(reason))
			break;
		if (used > 0)
			reason[used++] = ' ';
		memcpy(reason + used, argv[k], n);
		used += n;
		reason[used] = '\0';
	}
	if (hw_values_seal(NULL, 0, t->box_pk, &box) != HW_OK)
		return LOX_EX_SOFTWARE;
	ret = post(h, t, ticket, HW_DENY, box);
	buf_free(box);
	if (ret != 0)
		return ret;
	printf("denied\n");
	if (used > 0) {
		render_text(reason, used, render_locale_flags(), 0, shown,
		    sizeof(shown), NULL);
		printf("your reason (kept here, never sent): %s\n", shown);
	}
	explicit_bzero(reason, sizeof(reason));
	return 0;
}

static int
decide(int argc, char **argv, int approving)
{
	static struct hw_ticket t;
	struct loxhub h;
	struct buf *ticket = NULL;
	int ret;

	if (argc < 2 || (approving && argc != 2)) {
		lox_err(approving ? "usage: lox approve TICKET" :
		    "usage: lox deny TICKET [REASON...]");
		return LOX_EX_USAGE;
	}
	if (!hw_text_ok(HW_T_TICKET, argv[1], strlen(argv[1]))) {
		lox_err("TICKET: t_ and 32 lowercase hex digits");
		return LOX_EX_USAGE;
	}
	if (loxhub_load(&h, 1, 1) != 0)
		return LOX_EX_SOFTWARE;
	ret = find_ticket(&h, argv[1], &t, &ticket);
	if (ret == 0) {
		lox_show_ticket(stdout, &t, render_locale_flags());
		fflush(stdout);
		ret = approving ? approve(&h, &t, ticket) :
		    deny(&h, &t, ticket, argc - 2, argv + 2);
	}
	buf_free(ticket);
	loxhub_free(&h);
	return ret;
}

int
cmd_approve(struct lox *l, int argc, char **argv)
{
	(void)l;
	return decide(argc, argv, 1);
}

int
cmd_deny(struct lox *l, int argc, char **argv)
{
	(void)l;
	return decide(argc, argv, 0);
}
