/* hubload: a load generator for lockhub (bench/README.md, "bench/hub").
 *
 *   hubload keys [--consoles N] [--devices M]
 *   hubload run --url URL [--consoles N] [--devices M] [--approvers K]
 *       [--seconds S] [--warmup S] [--drain S] [--pid PID]...
 *
 * `keys` prints the simulated consoles' instance keys and the devices'
 * keys ("instance NAME KEY", "device NAME KEY"), derived from fixed seeds,
 * for `lockhub enroll`. `run` drives the hub as the console and lox do,
 * with the project's own layouts (src/hubwire) and signatures: each
 * console thread posts a signed TICKET naming K devices and long-polls its
 * decision; each device thread long-polls `pending/after/SEQ` and posts a
 * signed DECISION-DEV with a sealed empty VALUES for every ticket listed.
 * Every thread keeps one libcurl handle, so its connection is kept alive.
 *
 * It prints `name value` lines: tickets posted and decided, tickets per
 * second over the measured window (after the warm-up), the decision
 * latency (the first device's post starting -> the console's long-poll
 * answering) p50/p99, its own CPU time and that of every --pid (a lockhub
 * instance) over the window, and their RSS (VmRSS sampled every 100 ms,
 * VmHWM at the end, /proc/PID/status). A bench tool, not product code:
 * it dies on what cannot happen (out of memory, a layout that does not
 * encode). */
#include "hubwire/keys.h"
#include "hubwire/msg.h"
#include "hubwire/wire.h"
#include "lib/buf.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>

#include <curl/curl.h>
#include <sodium.h>

#define MAX_CONSOLES	160
#define MAX_DEVICES	32
#define MAX_PIDS	8
#define POLL_TIMEOUT_MS	40000L	/* above lockhub's longest --poll-s used */
#define POST_TIMEOUT_MS	15000L

enum { ROLE_SEED_INSTANCE = 0x49, ROLE_SEED_DEVICE = 0x44 };

struct slot {			/* one console's ticket in flight */
	_Atomic uint64_t counter;	/* its ticket's counter */
	_Atomic uint64_t dev_ns;	/* a device began posting; 0 none yet */
};

struct stats {
	uint64_t posted, decided, in_window, dev_ok, dev_conflict;
	uint64_t errors, bad_decisions, no_dev_time;
	uint32_t *lat_us;		/* the window's samples */
	size_t nlat, caplat;
};

struct console {
	pthread_t th;
	unsigned idx;
	struct hw_keypair key;
	uint8_t box_pk[32];
	struct stats st;
};

struct device {
	pthread_t th;
	unsigned idx;
	struct hw_keypair key;
	struct stats st;
};

static struct {
	const char *url;
	unsigned nconsoles, ndevices, napprovers;
	double seconds, warmup, drain;
	unsigned npids;
	long pids[MAX_PIDS];
	uint32_t run_tag;
	struct slot slots[MAX_CONSOLES];
	struct hw_keypair devkeys[MAX_DEVICES];
	_Atomic int stop_posting, consoles_abort, devices_stop;
	_Atomic uint64_t t_window0, t_window1;	/* ns; t_window1 0 = open */
} g;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void
key_for(int role, unsigned idx, struct hw_keypair *kp)
{
	uint8_t seed[32];

	memset(seed, 0x5a, sizeof(seed));
	seed[0] = (uint8_t)role;
	seed[1] = (uint8_t)(idx >> 8);
	seed[2] = (uint8_t)idx;
	hw_key_from_seed(kp, seed);
}

static void
instance_name(unsigned idx, char out[HW_MAX_NAME + 1])
{
	if (str_fmt(out, HW_MAX_NAME + 1, "bench-c%u", idx) != STR_OK)
		fatal("instance name");
}

/* ---- HTTP: one handle per thread, kept alive ---- */

struct http {
	CURL *h;
	struct buf *reply;
	const _Atomic int *abort;
};

static size_t
on_data(char *d, size_t size, size_t n, void *arg)
{
	return buf_append(arg, d, size * n) == 0 ? size * n : 0;
}

static const _Atomic int never;

static int
on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c,
    curl_off_t d)
{
	const _Atomic int *abort_flag = arg;

	(void)a; (void)b; (void)c; (void)d;
	return atomic_load(abort_flag) ? 1 : 0;
}

static void
http_init(struct http *ht, const _Atomic int *abort_flag)
{
	ht->h = curl_easy_init();
	ht->reply = buf_new(HW_MAX_LIST);
	ht->abort = abort_flag;
	if (ht->h == NULL || ht->reply == NULL)
		fatal("out of memory");
	curl_easy_setopt(ht->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(ht->h, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(ht->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(ht->h, CURLOPT_WRITEDATA, ht->reply);
	curl_easy_setopt(ht->h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(ht->h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(ht->h, CURLOPT_PROXY, "");
	curl_easy_setopt(ht->h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
}

static void
http_free(struct http *ht)
{
	curl_easy_cleanup(ht->h);
	buf_free(ht->reply);
}

/* One signed request (docs/hub.md, "Signed requests"): the HTTP status,
 * or 0 when there was no answer (refused, aborted, timed out). The body
 * of the answer is in ht->reply. */
static long
http_call(struct http *ht, const struct hw_keypair *key, const char *method,
    const char *path, const struct buf *body)
{
	char url[512], hdr[64 + 2 * HW_MAX_SIGNED_SMALL];
	const uint8_t *bd = body != NULL ? buf_data(body) : (const uint8_t *)"";
	size_t bl = body != NULL ? buf_len(body) : 0;
	struct hw_request q;
	struct buf *sr = NULL;
	struct curl_slist *hl = NULL;
	long st = 0;
	int post = strcmp(method, "POST") == 0;

	memset(&q, 0, sizeof(q));
	if (str_fmt(q.method, sizeof(q.method), "%s", method) != STR_OK ||
	    str_fmt(q.path, sizeof(q.path), "%s", path) != STR_OK ||
	    str_fmt(url, sizeof(url), "%s%s", g.url, path) != STR_OK)
		fatal("request too long");
	hw_hash(bd, bl, q.body_hash);
	q.time_ms = wall_ms();
	randombytes_buf(q.nonce, sizeof(q.nonce));
	memcpy(q.key, key->pk, HW_KEY_LEN);
	if (hw_request_encode(&q, key->sk, &sr) != HW_OK)
		fatal("REQUEST does not encode");
	memcpy(hdr, "Lockhub-Auth: ", 14);
	sodium_bin2base64(hdr + 14, sizeof(hdr) - 14, buf_data(sr),
	    buf_len(sr), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	buf_free(sr);
	hl = curl_slist_append(hl, hdr);
	hl = curl_slist_append(hl, "Content-Type: application/octet-stream");
	hl = curl_slist_append(hl, "Expect:");
	if (hl == NULL)
		fatal("out of memory");
	buf_reset(ht->reply);
	curl_easy_setopt(ht->h, CURLOPT_URL, url);
	curl_easy_setopt(ht->h, CURLOPT_HTTPHEADER, hl);
	if (post) {
		curl_easy_setopt(ht->h, CURLOPT_POST, 1L);
		curl_easy_setopt(ht->h, CURLOPT_POSTFIELDS, (const char *)bd);
		curl_easy_setopt(ht->h, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)bl);
	} else {
		curl_easy_setopt(ht->h, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(ht->h, CURLOPT_TIMEOUT_MS,
	    post ? POST_TIMEOUT_MS : POLL_TIMEOUT_MS);
	/* Only a long-poll is cut short at the end: a post runs to its
	 * answer, so what the hub took is counted. */
	curl_easy_setopt(ht->h, CURLOPT_XFERINFODATA,
	    post ? (void *)&never : (void *)ht->abort);
	if (curl_easy_perform(ht->h) == CURLE_OK)
		curl_easy_getinfo(ht->h, CURLINFO_RESPONSE_CODE, &st);
	curl_easy_setopt(ht->h, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hl);
	return st;
}

/* ---- statistics ---- */

static void
add_latency(struct stats *s, uint64_t ns)
{
	if (s->nlat == s->caplat) {
		size_t cap = s->caplat ? 2 * s->caplat : 1024;
		uint32_t *p = realloc(s->lat_us, cap * sizeof(*p));
		if (p == NULL)
			fatal("out of memory");
		s->lat_us = p;
		s->caplat = cap;
	}
	s->lat_us[s->nlat++] = ns / 1000 > UINT32_MAX ? UINT32_MAX :
	    (uint32_t)(ns / 1000);
}

static int
in_window(uint64_t t)
{
	uint64_t w0 = atomic_load(&g.t_window0), w1 = atomic_load(&g.t_window1);

	return w0 != 0 && t >= w0 && (w1 == 0 || t <= w1);
}

/* ---- consoles ---- */

/* A ticket as a console makes it (docs/hub.md, "TICKET"): one plugin, no
 * placeholder (the device seals an empty VALUES), naming K devices. */
static void
make_ticket(struct console *c, uint64_t counter, struct hw_ticket *t)
{
	struct hw_screen *s = &t->screen;
	struct hw_plugin *p = &s->plugins[0];
	unsigned i;

	memset(t, 0, sizeof(*t));
	instance_name(c->idx, t->instance);
	memcpy(t->instance_key, c->key.pk, HW_KEY_LEN);
	if (str_fmt(t->id, sizeof(t->id), "t_%08x%08x%016llx", c->idx,
	    g.run_tag, (unsigned long long)counter) != STR_OK)
		fatal("ticket id");
	randombytes_buf(t->nonce, sizeof(t->nonce));
	t->created_ms = wall_ms();
	t->expires_ms = t->created_ms + 300000;
	randombytes_buf(t->plan_hash, sizeof(t->plan_hash));
	memset(t->policy_fp, 0x12, sizeof(t->policy_fp));
	randombytes_buf(t->agent_commit, sizeof(t->agent_commit));
	memcpy(t->agent_label, "uid 1000 (agent)", 17);
	memcpy(t->box_pk, c->box_pk, 32);
	memcpy(s->profile, "bench", 6);
	memcpy(s->key, "bench/a.pdf", 12);
	s->content = HW_CONTENT_FETCHED;
	memset(s->sha256, 0x13, sizeof(s->sha256));
	s->size = 48213;
	s->reveals = 1;
	s->left_before = 8;
	s->nplugins = 1;
	memcpy(p->name, "is-pdf", 7);
	memcpy(p->version, "1.0.0", 6);
	p->official = 1;
	memcpy(p->question, "Is the file a well-formed PDF?", 31);
	memcpy(p->one, "it is a well-formed PDF", 24);
	memcpy(p->zero, "it is not a well-formed PDF", 28);
	/* Console i's tickets name devices i, i+1, ... (mod M). */
	t->napprovers = g.napprovers;
	for (i = 0; i < g.napprovers; i++)
		memcpy(t->approvers[i],
		    g.devkeys[(c->idx + i) % g.ndevices].pk, HW_KEY_LEN);
}

/* The decision answers this ticket: its DEV and HUB name it (the
 * signatures are the console's to check, not the bench's). */
static int
decision_ok(const struct buf *b, const char *id)
{
	struct hw_envelope e;
	struct hw_dev d;
	struct hw_hub h;

	return hw_decision_parse(buf_data(b), buf_len(b), &e) == HW_OK &&
	    hw_dev_parse(e.dev, e.dev_len, &d) == HW_OK &&
	    hw_hub_parse(e.hub, e.hub_len, &h) == HW_OK &&
	    strcmp(d.ticket, id) == 0 && strcmp(h.ticket, id) == 0 &&
	    d.verdict == HW_APPROVE;
}

/* Long-poll one ticket's decision to its answer: 1 decided, 0 aborted. */
static int
await_decision(struct console *c, struct http *ht, const char *id)
{
	struct slot *sl = &g.slots[c->idx];
	char path[128];
	long st;

	if (str_fmt(path, sizeof(path), "/v1/tickets/%s/decision", id)
	    != STR_OK)
		fatal("path");
	for (;;) {
		if (atomic_load(&g.consoles_abort))
			return 0;
		st = http_call(ht, &c->key, "GET", path, NULL);
		if (st == 204)
			continue;
		if (st == 200) {
			uint64_t t = now_ns(), d = atomic_load(&sl->dev_ns);
			c->st.decided++;
			if (!decision_ok(ht->reply, id))
				c->st.bad_decisions++;
			if (d == 0)
				c->st.no_dev_time++;
			else if (in_window(t)) {
				c->st.in_window++;
				add_latency(&c->st, t - d);
			}
			return 1;
		}
		if (atomic_load(&g.consoles_abort))
			return 0;
		c->st.errors++;
		nap_ms(10);
	}
}

static void *
console_main(void *arg)
{
	struct console *c = arg;
	struct slot *sl = &g.slots[c->idx];
	struct hw_ticket *t = calloc(1, sizeof(*t));
	struct http ht;
	uint64_t counter = 0;

	if (t == NULL)
		fatal("out of memory");
	http_init(&ht, &g.consoles_abort);
	while (!atomic_load(&g.stop_posting)) {
		struct buf *tb = NULL;
		long st;

		make_ticket(c, ++counter, t);
		if (hw_ticket_encode(t, c->key.sk, &tb) != HW_OK)
			fatal("TICKET does not encode");
		atomic_store(&sl->dev_ns, 0);
		atomic_store(&sl->counter, counter);
		st = http_call(&ht, &c->key, "POST", "/v1/tickets", tb);
		buf_free(tb);
		if (st != 201) {
			c->st.errors++;
			nap_ms(10);
			continue;
		}
		c->st.posted++;
		if (!await_decision(c, &ht, t->id))
			break;
	}
	http_free(&ht);
	free(t);
	return NULL;
}

/* ---- devices ---- */

/* n lowercase hex digits (a ticket id: hw_ticket_parse checked them). */
static uint64_t
hex_u64(const char *s, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 4 | (uint64_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
	return v;
}

/* Decide one listed ticket as lox does: DEV bound to the ticket's hash,
 * instance key and nonce, over a sealed empty VALUES. */
static void
decide(struct device *dv, struct http *ht, struct hw_ticket *t,
    const uint8_t *tk, size_t tklen)
{
	struct hw_envelope e;
	struct hw_dev d;
	struct buf *box = NULL, *dev = NULL, *post = NULL;
	char path[128];
	uint64_t idx, counter;
	long st;

	if (hw_ticket_parse(tk, tklen, t) != HW_OK) {
		dv->st.errors++;
		return;
	}
	if (hw_values_seal(NULL, 0, t->box_pk, &box) != HW_OK)
		fatal("VALUES does not seal");
	memset(&d, 0, sizeof(d));
	hw_hash(tk, tklen, d.ticket_hash);
	memcpy(d.instance_key, t->instance_key, HW_KEY_LEN);
	memcpy(d.ticket, t->id, sizeof(d.ticket));
	memcpy(d.nonce, t->nonce, HW_NONCE_LEN);
	d.verdict = HW_APPROVE;
	d.time_ms = wall_ms();
	memcpy(d.device_key, dv->key.pk, HW_KEY_LEN);
	hw_hash(buf_data(box), buf_len(box), d.box_hash);
	if (hw_dev_encode(&d, dv->key.sk, &dev) != HW_OK)
		fatal("DECISION-DEV does not encode");
	memset(&e, 0, sizeof(e));
	e.dev = buf_data(dev);
	e.dev_len = buf_len(dev);
	e.box = buf_data(box);
	e.box_len = buf_len(box);
	if (hw_devpost_encode(&e, &post) != HW_OK)
		fatal("DEVPOST does not encode");
	if (str_fmt(path, sizeof(path), "/v1/tickets/%s/decision", t->id)
	    != STR_OK)
		fatal("path");
	/* The latency starts here, at the first device's post (the id
	 * carries the console's index and its ticket counter). */
	idx = hex_u64(t->id + 2, 8);
	counter = hex_u64(t->id + 18, 16);
	if (idx < g.nconsoles &&
	    atomic_load(&g.slots[idx].counter) == counter) {
		uint64_t zero = 0;
		atomic_compare_exchange_strong(&g.slots[idx].dev_ns, &zero,
		    now_ns());
	}
	st = http_call(ht, &dv->key, "POST", path, post);
	if (st == 201)
		dv->st.dev_ok++;
	else if (st == 409)
		dv->st.dev_conflict++;
	else if (!atomic_load(&g.devices_stop))
		dv->st.errors++;
	buf_free(post);
	buf_free(dev);
	buf_free(box);
}

static void *
device_main(void *arg)
{
	struct device *dv = arg;
	struct hw_ticket *t = calloc(1, sizeof(*t));
	struct hw_list *l = calloc(1, sizeof(*l));
	struct buf *tk[HW_MAX_LIST_ITEMS];
	struct http ht;
	uint64_t seq = 0;
	int first = 1;

	if (t == NULL || l == NULL)
		fatal("out of memory");
	http_init(&ht, &g.devices_stop);
	while (!atomic_load(&g.devices_stop)) {
		char path[64];
		long st;
		size_t i, n;

		if (first)
			memcpy(path, "/v1/pending", 12);
		else if (str_fmt(path, sizeof(path), "/v1/pending/after/%llu",
		    (unsigned long long)seq) != STR_OK)
			fatal("path");
		st = http_call(&ht, &dv->key, "GET", path, NULL);
		if (st == 204)
			continue;
		if (st != 200 || hw_list_parse(buf_data(ht.reply),
		    buf_len(ht.reply), l) != HW_OK) {
			if (!atomic_load(&g.devices_stop))
				dv->st.errors++;
			nap_ms(10);
			continue;
		}
		first = 0;
		/* The cursor: past the newest ticket listed (or the hub's
		 * newest when none is), so a list cut at its cap loses
		 * nothing. */
		if (l->n == 0)
			seq = l->seq;
		/* The items point into ht.reply, which the posts reuse:
		 * copied out first. */
		for (i = 0; i < l->n; i++) {
			if (l->items[i].seq > seq)
				seq = l->items[i].seq;
			tk[i] = buf_new(l->items[i].ticket_len);
			if (tk[i] == NULL || buf_append(tk[i],
			    l->items[i].ticket, l->items[i].ticket_len) != 0)
				fatal("out of memory");
		}
		n = l->n;
		for (i = 0; i < n; i++) {
			if (!atomic_load(&g.devices_stop))
				decide(dv, &ht, t, buf_data(tk[i]),
				    buf_len(tk[i]));
			buf_free(tk[i]);
		}
	}
	http_free(&ht);
	free(l);
	free(t);
	return NULL;
}

/* ---- the hub's processes: CPU and memory (/proc/PID) ---- */

struct proc_sample {
	long rss_max_kib, rss_kib, hwm_kib;
	double cpu0, cpu1;		/* user + system, seconds */
	double runq0, runq1;		/* waiting for a CPU, seconds */
};

static struct proc_sample procs[MAX_PIDS], self_sample;

/* A "Name:   N kB" line of /proc/PID/status, in KiB; -1 when absent. */
static long
status_kib(long pid, const char *name)
{
	char path[64], line[256];
	size_t n = strlen(name);
	long v = -1;
	FILE *f;

	if (str_fmt(path, sizeof(path), "/proc/%ld/status", pid) != STR_OK ||
	    (f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, n) == 0 && line[n] == ':') {
			char *p = line + n + 1, *end;
			unsigned long long u;
			while (*p == ' ' || *p == '\t')
				p++;
			end = p + strspn(p, "0123456789");
			*end = '\0';
			if (parse_u64(p, 0, 1ULL << 40, &u) == 0)
				v = (long)u;
			break;
		}
	}
	fclose(f);
	return v;
}

/* utime + stime of /proc/PID/stat (fields 14 and 15, after the command
 * name's closing parenthesis), in seconds; -1 when gone. */
static double
proc_cpu(long pid)
{
	char path[64], line[1024], *p, *f;
	unsigned long long ut = 0, stm = 0, v;
	int field = 2;
	FILE *fp;

	if (str_fmt(path, sizeof(path), "/proc/%ld/stat", pid) != STR_OK ||
	    (fp = fopen(path, "r")) == NULL)
		return -1;
	p = fgets(line, sizeof(line), fp);
	fclose(fp);
	if (p == NULL || (p = strrchr(line, ')')) == NULL)
		return -1;
	for (f = p + 1; *f != '\0' && field < 15; ) {
		size_t len;
		while (*f == ' ')
			f++;
		field++;
		len = strcspn(f, " \n");
		if (field == 14 || field == 15) {
			char num[32];
			if (len >= sizeof(num))
				return -1;
			memcpy(num, f, len);
			num[len] = '\0';
			if (parse_u64(num, 0, ~0ULL, &v) != 0)
				return -1;
			*(field == 14 ? &ut : &stm) = v;
		}
		f += len;
	}
	return (double)(ut + stm) / (double)sysconf(_SC_CLK_TCK);
}

/* The time PID's threads waited on a run queue for a CPU (the second
 * field of /proc/PID/task/TID/schedstat, ns): on a loaded machine the
 * part of the latency that is neither the hub's work nor its I/O. */
static double
proc_runq(long pid)
{
	char path[64], line[128];
	unsigned long long sum = 0;
	struct dirent *de;
	DIR *d;

	if (str_fmt(path, sizeof(path), "/proc/%ld/task", pid) != STR_OK ||
	    (d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char file[128], *sp, *end;
		unsigned long long v;
		FILE *f;

		if (de->d_name[0] == '.' ||
		    str_fmt(file, sizeof(file), "/proc/%ld/task/%s/schedstat",
		    pid, de->d_name) != STR_OK || (f = fopen(file, "r")) == NULL)
			continue;
		if (fgets(line, sizeof(line), f) != NULL &&
		    (sp = strchr(line, ' ')) != NULL) {
			sp++;
			end = sp + strspn(sp, "0123456789");
			*end = '\0';
			if (parse_u64(sp, 0, ~0ULL, &v) == 0)
				sum += v;
		}
		fclose(f);
	}
	closedir(d);
	return (double)sum / 1e9;
}

static double
self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void
sample_rss(void)
{
	unsigned i;

	for (i = 0; i < g.npids; i++) {
		long r = status_kib(g.pids[i], "VmRSS");
		if (r > procs[i].rss_max_kib)
			procs[i].rss_max_kib = r;
	}
}

/* ---- commands ---- */

static int
usage(void)
{
	fputs("usage: hubload keys [--consoles N] [--devices M]\n"
	    "       hubload run --url URL [--consoles N] [--devices M] "
	    "[--approvers K]\n"
	    "           [--seconds S] [--warmup S] [--drain S] [--pid PID]...\n",
	    stderr);
	return 64;
}

static int
parse_args(int argc, char **argv)
{
	unsigned long long v;
	int i;

	g.nconsoles = 32;
	g.ndevices = 8;
	g.napprovers = 1;
	g.seconds = 20;
	g.warmup = 2;
	g.drain = 15;
	for (i = 2; i < argc; i += 2) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (val == NULL)
			return -1;
		if (strcmp(a, "--url") == 0)
			g.url = val;
		else if (strcmp(a, "--consoles") == 0 &&
		    parse_u64(val, 1, MAX_CONSOLES, &v) == 0)
			g.nconsoles = (unsigned)v;
		else if (strcmp(a, "--devices") == 0 &&
		    parse_u64(val, 1, MAX_DEVICES, &v) == 0)
			g.ndevices = (unsigned)v;
		else if (strcmp(a, "--approvers") == 0 &&
		    parse_u64(val, 1, HW_MAX_APPROVERS, &v) == 0)
			g.napprovers = (unsigned)v;
		else if (strcmp(a, "--seconds") == 0 &&
		    parse_u64(val, 1, 3600, &v) == 0)
			g.seconds = (double)v;
		else if (strcmp(a, "--warmup") == 0 &&
		    parse_u64(val, 0, 600, &v) == 0)
			g.warmup = (double)v;
		else if (strcmp(a, "--drain") == 0 &&
		    parse_u64(val, 1, 600, &v) == 0)
			g.drain = (double)v;
		else if (strcmp(a, "--pid") == 0 && g.npids < MAX_PIDS &&
		    parse_u64(val, 1, 1 << 22, &v) == 0)
			g.pids[g.npids++] = (long)v;
		else
			return -1;
	}
	if (g.napprovers > g.ndevices)
		return -1;
	/* Every console and device holds one long-poll: lockhub parks at
	 * most 200 (HUB_DEFAULT_MAX_WAITERS). */
	if (g.nconsoles + g.ndevices > 190)
		return -1;
	return 0;
}

static int
cmd_keys(void)
{
	char text[HW_KEY_TEXT_LEN + 1], name[HW_MAX_NAME + 1];
	struct hw_keypair kp;
	unsigned i;

	for (i = 0; i < g.nconsoles; i++) {
		key_for(ROLE_SEED_INSTANCE, i, &kp);
		hw_key_text(kp.pk, text);
		instance_name(i, name);
		printf("instance %s %s\n", name, text);
		hw_key_free(&kp);
	}
	for (i = 0; i < g.ndevices; i++) {
		key_for(ROLE_SEED_DEVICE, i, &kp);
		hw_key_text(kp.pk, text);
		printf("device bench-d%u %s\n", i, text);
		hw_key_free(&kp);
	}
	return 0;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double
pct_ms(const uint32_t *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i] / 1000.0;
}

static void
sum_stats(struct stats *to, const struct stats *s)
{
	to->posted += s->posted;
	to->decided += s->decided;
	to->in_window += s->in_window;
	to->dev_ok += s->dev_ok;
	to->dev_conflict += s->dev_conflict;
	to->errors += s->errors;
	to->bad_decisions += s->bad_decisions;
	to->no_dev_time += s->no_dev_time;
	if (s->nlat > 0) {
		size_t k;
		for (k = 0; k < s->nlat; k++)
			add_latency(to, (uint64_t)s->lat_us[k] * 1000);
	}
}

/* Sleep until deadline (ns), sampling RSS every 100 ms. */
static void
wait_sampling(uint64_t deadline)
{
	while (now_ns() < deadline) {
		sample_rss();
		nap_ms(100);
	}
}

static void
report(const struct stats *all, double window_s, double self_s)
{
	unsigned i;

	printf("consoles %u\ndevices %u\napprovers %u\n", g.nconsoles,
	    g.ndevices, g.napprovers);
	printf("posted %llu\ndecided %llu\n", (unsigned long long)all->posted,
	    (unsigned long long)all->decided);
	printf("device_posts %llu\ndevice_conflicts %llu\n",
	    (unsigned long long)all->dev_ok,
	    (unsigned long long)all->dev_conflict);
	printf("errors %llu\nbad_decisions %llu\nno_device_time %llu\n",
	    (unsigned long long)all->errors,
	    (unsigned long long)all->bad_decisions,
	    (unsigned long long)all->no_dev_time);
	printf("window_s %.2f\ndecided_in_window %llu\n", window_s,
	    (unsigned long long)all->in_window);
	printf("tickets_per_s %.1f\n", window_s > 0 ?
	    (double)all->in_window / window_s : 0.0);
	printf("latency_p50_ms %.2f\nlatency_p99_ms %.2f\nlatency_max_ms %.2f\n",
	    pct_ms(all->lat_us, all->nlat, 0.50),
	    pct_ms(all->lat_us, all->nlat, 0.99),
	    pct_ms(all->lat_us, all->nlat, 1.0));
	printf("client_cpu_s %.2f\nclient_cpu_pct %.0f\n", self_s,
	    window_s > 0 ? 100.0 * self_s / window_s : 0.0);
	printf("client_runq_pct %.0f\n", window_s > 0 ? 100.0 *
	    (self_sample.runq1 - self_sample.runq0) / window_s : 0.0);
	for (i = 0; i < g.npids; i++) {
		double cpu = procs[i].cpu1 - procs[i].cpu0;
		double rq = procs[i].runq1 - procs[i].runq0;
		printf("hub %ld cpu_s %.2f cpu_pct %.0f runq_pct %.0f "
		    "rss_kib %ld rss_max_kib %ld hwm_kib %ld\n", g.pids[i], cpu,
		    window_s > 0 ? 100.0 * cpu / window_s : 0.0,
		    window_s > 0 ? 100.0 * rq / window_s : 0.0,
		    procs[i].rss_kib, procs[i].rss_max_kib, procs[i].hwm_kib);
	}
}

static int
cmd_run(void)
{
	static struct console cons[MAX_CONSOLES];
	static struct device devs[MAX_DEVICES];
	struct stats all;
	uint64_t t0, w0, w1;
	double self0, self1;
	unsigned i;

	if (g.url == NULL)
		return usage();
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		fatal("curl_global_init");
	randombytes_buf(&g.run_tag, sizeof(g.run_tag));
	for (i = 0; i < g.ndevices; i++) {
		devs[i].idx = i;
		key_for(ROLE_SEED_DEVICE, i, &devs[i].key);
		key_for(ROLE_SEED_DEVICE, i, &g.devkeys[i]);
	}
	for (i = 0; i < g.nconsoles; i++) {
		uint8_t box_sk[32];
		cons[i].idx = i;
		key_for(ROLE_SEED_INSTANCE, i, &cons[i].key);
		crypto_box_keypair(cons[i].box_pk, box_sk);
		sodium_memzero(box_sk, sizeof(box_sk));
	}
	for (i = 0; i < g.npids; i++)
		procs[i].rss_max_kib = -1;
	/* The devices first, so the consoles' first tickets are listed. */
	for (i = 0; i < g.ndevices; i++)
		if (pthread_create(&devs[i].th, NULL, device_main, &devs[i]))
			fatal("pthread_create");
	nap_ms(200);
	t0 = now_ns();
	for (i = 0; i < g.nconsoles; i++)
		if (pthread_create(&cons[i].th, NULL, console_main, &cons[i]))
			fatal("pthread_create");
	wait_sampling(t0 + (uint64_t)(g.warmup * 1e9));
	w0 = now_ns();
	self0 = self_cpu();
	self_sample.runq0 = proc_runq((long)getpid());
	for (i = 0; i < g.npids; i++) {
		procs[i].cpu0 = proc_cpu(g.pids[i]);
		procs[i].runq0 = proc_runq(g.pids[i]);
	}
	atomic_store(&g.t_window0, w0);
	wait_sampling(w0 + (uint64_t)(g.seconds * 1e9));
	w1 = now_ns();
	atomic_store(&g.t_window1, w1);
	self1 = self_cpu();
	self_sample.runq1 = proc_runq((long)getpid());
	for (i = 0; i < g.npids; i++) {
		procs[i].cpu1 = proc_cpu(g.pids[i]);
		procs[i].runq1 = proc_runq(g.pids[i]);
		procs[i].rss_kib = status_kib(g.pids[i], "VmRSS");
	}
	/* No new tickets; the ones in flight get their decisions (bounded
	 * by --drain), then the devices stop. */
	atomic_store(&g.stop_posting, 1);
	{
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += (time_t)g.drain;
		for (i = 0; i < g.nconsoles; i++) {
			if (pthread_timedjoin_np(cons[i].th, NULL, &dl) != 0) {
				atomic_store(&g.consoles_abort, 1);
				pthread_join(cons[i].th, NULL);
			}
		}
	}
	sample_rss();
	for (i = 0; i < g.npids; i++)
		procs[i].hwm_kib = status_kib(g.pids[i], "VmHWM");
	atomic_store(&g.devices_stop, 1);
	for (i = 0; i < g.ndevices; i++)
		pthread_join(devs[i].th, NULL);
	memset(&all, 0, sizeof(all));
	for (i = 0; i < g.nconsoles; i++) {
		sum_stats(&all, &cons[i].st);
		free(cons[i].st.lat_us);
		hw_key_free(&cons[i].key);
	}
	for (i = 0; i < g.ndevices; i++) {
		sum_stats(&all, &devs[i].st);
		hw_key_free(&devs[i].key);
		hw_key_free(&g.devkeys[i]);
	}
	qsort(all.lat_us, all.nlat, sizeof(*all.lat_us), cmp_u32);
	report(&all, (double)(w1 - w0) / 1e9, self1 - self0);
	free(all.lat_us);
	curl_global_cleanup();
	return 0;
}

int
main(int argc, char **argv)
{
	log_init("hubload");
	if (sodium_init() < 0)
		fatal("sodium_init");
	if (argc < 2 || parse_args(argc, argv) != 0)
		return usage();
	if (strcmp(argv[1], "keys") == 0)
		return cmd_keys();
	if (strcmp(argv[1], "run") == 0)
		return cmd_run();
	return usage();
}
