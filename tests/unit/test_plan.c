/* Unit tests of the plan pipeline (src/console/plan.c) through its
 * environment (plan.h): a fake human (scripted decisions and values, the
 * cards it was shown recorded), a fake sandbox (scripted outcomes, what
 * each plugin was given recorded), a fake clock (the quantum holds are
 * recorded, never slept) and an audit sink that keeps the records. The
 * store, workspace, values, policy and a local source are the real ones,
 * in a temporary home: no root, no terminal, milliseconds.
 *
 * Covered: every check before the card and their order; the decision
 * paths (approved, denied, timeout, withdrawn); typed values (read once,
 * held, replayed, refused, timed out, the agent gone) and where they go
 * (fd 6 only); a fetch failure after the approval; plans by handle and
 * handles used up, expired during the approval or another uid's; plugin
 * errors; the sandbox or /proc failing after the approval; a plugin
 * replaced after the card; every quantum hold (refusals before the card
 * are not held, everything after the approval is, at the first multiple
 * past the run); level 0's results; the answer ledger (the cap before the
 * card, in its place in the order, across handles and per uid; the card's
 * own-entry line; each answer, plugin_error and fetch failure counted; the
 * record written before the answer leaves, and a ledger that cannot take
 * it stopping the console with nothing sent); hub mode through a fake hub
 * (the pending answer after a first fetch whose bytes go, quantized; the
 * run after an approval; E_STALE with the spool released; a fetch failure
 * told only after the approval; no decision, another uid, a denial, a hub
 * that takes no ticket, a local console's file.run; values from the box,
 * held ones, one gone with a restart; the renewal of an expired ticket,
 * its content named unchecked); the bounds asked again after the approval
 * (plan_bounds: answers recorded while the card waited, two pending hub
 * plans on one handle, two past the cap). */
#include "console/plan.h"
#include "console/policy.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/mkdir.h"
#include "lib/str.h"
#include "protocol/table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <sodium.h>

#define QUANTUM_MS	5000
#define UID_A		1000
#define UID_B		1001

/* ---- fakes ---- */

struct fake {
	/* human */
	enum decision decision;
	int ndecide;
	struct card card;		/* the last card shown (shallow) */
	unsigned card_left, card_reveals;
	int card_held[8], card_replayed[8];
	char card_key[PROTO_MAX_KEY + 1];
	const char *value;		/* typed for any placeholder */
	long value_code;		/* or a PLAN_VALUE_* code when value NULL */
	int nread, nrefused;
	char windows[4096];
	int nresult;
	long long decide_advance_ms;	/* the human takes this long */
	void (*during_decide)(void);
	/* sandbox */
	int ready, proc_calls, proc_fail_at;	/* fail at that call (1-based) */
	enum outcome outcome[8];
	int nrun;
	long long run_advance_ms;
	char input_seen[64];
	uint8_t values_seen[256];
	size_t values_seen_len;
	/* clock */
	long long offset;
	long long slept_until;		/* the last hold's deadline, or 0 */
	int nsleep;
	/* audit */
	json_t *audit;
	/* ledger: the window answers of the plan's key seen at the hold */
	long long held_ledger;
	char card_ledger_line[200];
	size_t card_nledger;
	unsigned card_ledger_counts[8];
};

static struct fake F;
static struct plan_env E;
static struct policy pol;
static struct store store;
static struct workspace ws;
static struct values vals;
static char base[] = "/tmp/test-plan.XXXXXX";
static char home[PATH_MAX], srcdir[PATH_MAX], workdir[PATH_MAX];
static char ledgerdir[PATH_MAX];
static struct ledger *L;
static long long wall = 1700000000;	/* the ledger's clock, seconds */

static long long
fake_wall(void *ctx)
{
	return wall;
}

static const struct ledger_clock wall_clock = { fake_wall, NULL };

static unsigned long long
ledger_answers(uid_t uid, const char *key)
{
	struct ledger_usage u;

	ledger_window_usage(L, uid, "docs", key, &u);
	return u.answers;
}

static long long
fake_now(void *ctx)
{
	return now_ms() + F.offset;
}

static void
fake_sleep(void *ctx, long long deadline)
{
	/* what the ledger holds when the answer is about to leave */
	F.held_ledger = (long long)ledger_answers(UID_A, "2024/a.txt");
	F.nsleep++;
	F.slept_until = deadline;
	if (deadline > fake_now(NULL))
		F.offset += deadline - fake_now(NULL);
}

static const struct plan_clock_ops fake_clock = { fake_now, fake_sleep };

static enum decision
fake_decide(void *ctx, const struct card *c, long long deadline, int peer_fd)
{
	size_t i;

	F.ndecide++;
	F.card = *c;
	F.card_left = c->left_before;
	F.card_reveals = c->reveals;
	(void)!str_fmt(F.card_ledger_line, sizeof(F.card_ledger_line), "%s",
	    c->ledger_line ? c->ledger_line : "");
	F.card_nledger = c->nledger;
	for (i = 0; i < c->nledger && i < 8; i++)
		F.card_ledger_counts[i] = c->ledger[i].count;
	(void)!str_fmt(F.card_key, sizeof(F.card_key), "%s", c->key);
	for (i = 0; i < c->nplugins && i < 8; i++) {
		F.card_held[i] = c->plugins[i].nbind ? c->plugins[i].bind[0].held
		    : -1;
		F.card_replayed[i] = c->plugins[i].nbind ?
		    (int)c->plugins[i].bind[0].replayed : -1;
	}
	F.offset += F.decide_advance_ms;
	if (F.during_decide != NULL)
		F.during_decide();
	return F.decision;
}

static long
fake_read_value(void *ctx, const char *ph, const struct manifest_input *in,
    uint8_t *buf, size_t cap, long long deadline, int peer_fd)
{
	size_t n;

	F.nread++;
	if (F.value == NULL)
		return F.value_code;
	n = strlen(F.value);
	assert_true(n <= cap);
	memcpy(buf, F.value, n);
	return (long)n;
}

static void
fake_value_refused(void *ctx, const char *ph, const struct manifest_input *in)
{
	F.nrefused++;
}

static void
fake_window(void *ctx, const char *line)
{
	size_t n = strlen(F.windows);

	(void)!str_fmt(F.windows + n, sizeof(F.windows) - n, "%s\n", line);
}

static void
fake_result(void *ctx, size_t i, const char *plugin, const char *outcome,
    const char *detail, size_t detail_len)
{
	F.nresult++;
}

static const struct plan_human_ops fake_human = {
	fake_decide, fake_read_value, fake_value_refused, fake_window,
	fake_result,
};

static int
fake_ready(void *ctx, const char **why)
{
	*why = "no sandbox in this test";
	return F.ready;
}

static int
fake_proc_hidden(void *ctx, const char **why)
{
	F.proc_calls++;
	*why = "proc exposed";
	return F.proc_fail_at != 0 && F.proc_calls >= F.proc_fail_at ? -1 : 0;
}

static void
fake_refresh(void *ctx)
{
}

static void
fake_run(void *ctx, const struct plugin_run *r, struct plugin_result *res)
{
	ssize_t n;

	memset(res, 0, sizeof(*res));
	n = pread(r->inputfd, F.input_seen, sizeof(F.input_seen) - 1, 0);
	F.input_seen[n > 0 ? n : 0] = '\0';
	if (r->values_len > 0) {
		assert_true(r->values_len <= sizeof(F.values_seen));
		memcpy(F.values_seen, r->values, r->values_len);
		F.values_seen_len = r->values_len;
	}
	res->outcome = F.outcome[F.nrun < 8 ? F.nrun : 7];
	F.nrun++;
	F.offset += F.run_advance_ms;
}

static const struct plan_sandbox_ops fake_sandbox = {
	fake_ready, fake_proc_hidden, fake_refresh, fake_run,
};

static void
fake_audit(void *ctx, json_t *rec)
{
	json_array_append_new(F.audit, rec);
}

static const struct plan_audit_ops fake_audit_ops = { .write = fake_audit };

static void
fake_ledger_failed(void *ctx, const char *why)
{
	fail_msg("the ledger failed: %s", why);	/* does not return */
}

static const struct plan_ledger_ops fake_ledger_ops = { fake_ledger_failed };

/* In a child: the console's stop, as an exit status the parent reads. */
static void
exit_ledger_failed(void *ctx, const char *why)
{
	_exit(42);
}

static const struct plan_ledger_ops exit_ledger_ops = { exit_ledger_failed };

static void
ledger_reopen(void)
{
	struct ledger_problem p;
	int fd, created;

	ledger_close(L);
	L = NULL;
	fd = open(ledgerdir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	(void)unlinkat(fd, LF_LEDGER_FILE, 0);
	if (ledger_open(&L, fd, &wall_clock, pol.ledger_window_s, &created, &p)
	    != LEDGER_OK)
		fail_msg("ledger: %s", p.msg);
	close(fd);
	E.ledger = L;
}

/* ---- a fake hub (plan.h's plan_hub_ops) ---- */

static struct {
	int ask_fails;
	int nask;
	enum plan_content content;	/* the last ticket's */
	int has_sha;
	unsigned long long size;
	char renews[PLAN_ID_TEXT];
	size_t nmoved;
	int held0;			/* the last card's first binding held */
	enum plan_verdict verdict;
	enum plan_prep prep;		/* what prepared() answers */
	uint8_t sha[32];		/* the fetch behind the answer */
	const char *value;		/* the box's value for any placeholder */
	json_t *saved;			/* plan id -> record */
	int nforget;
} H;

static enum plan_ask
hub_ask(void *ctx, const struct plan_ticket *t, char ticket[PLAN_ID_TEXT],
    char instance[33])
{
	H.nask++;
	if (H.ask_fails)
		return PLAN_ASK_REFUSED;
	H.content = t->content;
	H.has_sha = t->sha256 != NULL && t->content != PLAN_CONTENT_FAILED;
	H.size = t->size;
	if (t->content == PLAN_CONTENT_LATER) {
		/* the fetch hub.c's job makes behind the answer, done here at
		 * once: into /dev/null, nothing held */
		struct fetch_result fr;
		int fd = open("/dev/null", O_WRONLY);
		enum fetch_cause fc;

		memset(&fr, 0, sizeof(fr));
		fc = t->src == NULL ? FC_UNAVAILABLE : t->kind->fetch(t->src, t->key,
		    fd, t->cap, &fr);
		close(fd);
		H.content = fc == FC_OK ? PLAN_CONTENT_FETCHED : PLAN_CONTENT_FAILED;
		H.has_sha = fc == FC_OK;
		H.size = fr.size;
		memcpy(H.sha, fr.sha256, 32);
	}
	(void)!str_fmt(H.renews, sizeof(H.renews), "%s", t->renews);
	H.nmoved = t->nmoved;
	H.held0 = t->card->nplugins > 0 && t->card->plugins[t->card->nplugins -
	    1].nbind > 0 ? t->card->plugins[t->card->nplugins - 1].bind[0].held
	    : -1;
	(void)!str_fmt(ticket, PLAN_ID_TEXT, "t_%032x", (unsigned)H.nask);
	(void)!str_fmt(instance, 33, "desk");
	return PLAN_ASK_OK;
}

static enum plan_ask
hub_room(void *ctx, uid_t uid, const char *plan)
{
	return PLAN_ASK_OK;
}

static enum plan_prep
hub_prepared(void *ctx, const char *plan, enum plan_content *content,
    uint8_t sha[32], unsigned long long *size, long long until)
{
	if (H.prep == PLAN_PREP_DONE) {
		*content = H.content;
		memcpy(sha, H.sha, 32);
		*size = H.size;
	}
	return H.prep;
}

static enum plan_verdict
hub_await(void *ctx, const char *plan, uid_t uid, long long until)
{
	return H.verdict;
}

static long
hub_value(void *ctx, const char *plan, const char *ph, uint8_t *buf,
    size_t cap)
{
	size_t n;

	if (H.value == NULL)
		return -1;
	n = strlen(H.value);
	memcpy(buf, H.value, n);
	return (long)n;
}

static void
hub_forget(void *ctx, const char *plan)
{
	H.nforget++;
}

static int
hub_save(void *ctx, const char *plan, json_t *rec)
{
	json_object_set(H.saved, plan, rec);
	return 0;
}

static json_t *
hub_load(void *ctx, const char *plan)
{
	return json_incref(json_object_get(H.saved, plan));
}

static void
hub_drop(void *ctx, const char *plan)
{
	json_object_del(H.saved, plan);
}

static const struct plan_hub_ops fake_hub = {
	hub_ask, hub_room, hub_prepared, hub_await, hub_value, hub_forget,
	hub_save, hub_load, hub_drop,
};

/* ---- the temporary home: store, source, policy ---- */

static void
write_file(const char *path, const void *d, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write_full(fd, d, n), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void
mkdirs(const char *sub)
{
	char p[PATH_MAX];

	assert_int_equal(str_fmt(p, sizeof(p), "%s/%s", home, sub), STR_OK);
	assert_int_equal(mkdir_p(p, 0700), 0);
}

struct fake_plugin {
	const char *name;
	int protocol;
	const char *input;	/* protocol 2: its one input */
};

static const struct fake_plugin plugins[] = {
	{ "p-one", 1, NULL },
	{ "p-two", 1, NULL },
	{ "p-in", 2, "needle" },
};

static void
install(const struct fake_plugin *p, json_t *lock, const char *bin)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], hex[65], mhex[65];
	uint8_t h[32];
	json_t *m = json_object(), *lim = json_object(), *ins = json_array(), *e;
	char *text;

	assert_int_equal(str_fmt(dir, sizeof(dir), "%s/.local/share/lockfile/"
	    "plugins/%s/1.0.0", home, p->name), STR_OK);
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(str_fmt(path, sizeof(path), "%s/plugin", dir), STR_OK);
	write_file(path, bin, strlen(bin), 0755);
	sha256_mem(bin, strlen(bin), h);
	hex_encode(h, 32, hex);
	json_object_set_new(m, "schema", json_integer(1));
	json_object_set_new(m, "name", json_string(p->name));
	json_object_set_new(m, "version", json_string("1.0.0"));
	json_object_set_new(m, "protocol", json_integer(p->protocol));
	json_object_set_new(m, "question", json_string("Is it so?"));
	json_object_set_new(m, "one", json_string("it is"));
	json_object_set_new(m, "zero", json_string("it is not"));
	if (p->input != NULL) {
		json_t *in = json_object();
		json_object_set_new(in, "name", json_string(p->input));
		json_object_set_new(in, "kind", json_string("text"));
		json_object_set_new(in, "max_bytes", json_integer(64));
		json_array_append_new(ins, in);
	}
	json_object_set_new(m, "inputs", ins);
	json_object_set_new(lim, "cpu_s", json_integer(10));
	json_object_set_new(lim, "memory_bytes", json_integer(67108864));
	json_object_set_new(lim, "wall_s", json_integer(30));
	json_object_set_new(m, "limits", lim);
	json_object_set_new(m, "binary_sha256", json_string(hex));
	text = json_dumps(m, JSON_SORT_KEYS | JSON_COMPACT);
	assert_int_equal(str_fmt(path, sizeof(path), "%s/manifest.json", dir),
	    STR_OK);
	write_file(path, text, strlen(text), 0644);
	sha256_mem(text, strlen(text), h);
	hex_encode(h, 32, mhex);
	free(text);
	json_decref(m);
	e = json_object();
	json_object_set_new(e, "name", json_string(p->name));
	json_object_set_new(e, "version", json_string("1.0.0"));
	json_object_set_new(e, "manifest_sha256", json_string(mhex));
	json_object_set_new(e, "binary_sha256", json_string(hex));
	json_object_set_new(e, "marketplace", json_string("official"));
	json_object_set_new(e, "official", json_true());
	json_object_set_new(e, "yanked", json_boolean(strcmp(p->name, "p-two")
	    == 0 && 0));
	json_array_append_new(json_object_get(lock, "plugins"), e);
}

static void
write_lock(json_t *lock)
{
	char path[PATH_MAX + 64], *text = json_dumps(lock, JSON_INDENT(1));

	assert_int_equal(str_fmt(path, sizeof(path),
	    "%s/.local/share/lockfile/plugins.lock", home), STR_OK);
	write_file(path, text, strlen(text), 0600);
	free(text);
}

static int
setup(void **state)
{
	char text[4096], why[256], path[PATH_MAX + 32];
	const char *w = NULL;
	json_t *lock;
	size_t i;

	if (sodium_init() < 0)
		return -1;
	/* The source beside the home, never inside it (policy.c refuses
	 * that: a key could reach the console's own files). */
	assert_non_null(mkdtemp(base));
	assert_int_equal(str_fmt(home, sizeof(home), "%s/home", base), STR_OK);
	assert_int_equal(mkdir(home, 0700), 0);
	mkdirs(".local/share/lockfile/plugins");
	assert_int_equal(str_fmt(srcdir, sizeof(srcdir), "%s/src", base), STR_OK);
	assert_int_equal(mkdir(srcdir, 0700), 0);
	assert_int_equal(str_fmt(workdir, sizeof(workdir), "%s/2024", srcdir),
	    STR_OK);
	assert_int_equal(mkdir(workdir, 0700), 0);
	assert_int_equal(str_fmt(workdir, sizeof(workdir), "%s/work", home),
	    STR_OK);
	assert_int_equal(str_fmt(path, sizeof(path), "%s/2024/a.txt", srcdir),
	    STR_OK);
	write_file(path, "file A bytes\n", 13, 0600);
	lock = json_pack("{s:i, s:[], s:[]}", "schema", 1, "plugins", "indexes");
	for (i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
		install(&plugins[i], lock, plugins[i].name);
	write_lock(lock);
	json_decref(lock);
	assert_int_equal(str_fmt(text, sizeof(text),
	    "security_level = 1\nanswer_quantum_s = 5\napproval_timeout_s = 60\n"
	    "max_plugins_per_handle = 4\nhandle_ttl_s = 600\n"
	    "work_dir = \"%s\"\n\n[profiles.docs]\nsource = \"local\"\n"
	    "path = \"%s\"\nprefix = \"2024/\"\n", workdir, srcdir), STR_OK);
	memset(&pol, 0, sizeof(pol));
	if (policy_parse(text, strlen(text), home, &pol, why, sizeof(why)) != 0)
		fail_msg("policy: %s", why);
	for (i = 0; i < pol.nprofiles; i++)
		if (pol.profiles[i].kind->open(pol.profiles[i].table, home,
		    &pol.profiles[i].src, &w) != 0)
			fail_msg("profile: %s", w);
	assert_int_equal(store_open(&store, home, &w), 0);
	assert_int_equal(ws_open(&ws, pol.work_dir, pol.max_workspace_bytes, &w),
	    0);
	assert_int_equal(ws_start_deleter(&ws, &w), 0);
	values_init(&vals);
	memset(&E, 0, sizeof(E));
	E.pol = &pol;
	E.store = &store;
	E.ws = &ws;
	E.values = &vals;
	E.human = &fake_human;
	E.sandbox = &fake_sandbox;
	E.clock = &fake_clock;
	E.audit = &fake_audit_ops;
	assert_int_equal(str_fmt(ledgerdir, sizeof(ledgerdir),
	    "%s/.local/state/lockfile/ledger", home), STR_OK);
	assert_int_equal(mkdir_p(ledgerdir, 0700), 0);
	ledger_reopen();
	E.ledger_ops = &fake_ledger_ops;
	return 0;
}

static int
teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	ws_close(&ws);
	values_wipe(&vals);
	ledger_close(L);
	L = NULL;
	policy_free(&pol);	/* closes the opened sources too */
	json_decref(F.audit);
	F.audit = NULL;
	if (str_fmt(cmd, sizeof(cmd), "rm -rf %s", base) == STR_OK)
		(void)!system(cmd);
	return 0;
}

/* Fresh fakes before each test; held values and handles are kept only
 * within a test (each test starts from none). */
static int
fresh(void **state)
{
	size_t i;

	json_decref(F.audit);
	memset(&F, 0, sizeof(F));
	F.decision = DECISION_APPROVED;
	F.ready = 1;
	F.audit = json_array();
	for (i = 0; i < 8; i++)
		F.outcome[i] = OUT_ANSWER_1;
	values_wipe(&vals);
	values_init(&vals);
	for (i = 0; i < WS_MAX_FILES; i++)
		if (ws.h[i].state == WS_HELD)
			ws_drop(&ws, &ws.h[i]);
	/* a ledger of no plans, the default cap */
	pol.max_answers_per_key = 64;
	wall = 1700000000;
	E.ledger_ops = &fake_ledger_ops;
	ledger_reopen();
	return 0;
}

/* ---- requests and answers ---- */

static void
req_init(struct request *r, const char *key)
{
	memset(r, 0, sizeof(*r));
	r->magic = REQUEST_MAGIC;
	r->method = M_FILE_PLAN;
	r->id_kind = RID_INT;
	r->id_int = 7;
	if (key != NULL) {
		r->has_profile = r->has_key = 1;
		(void)!str_fmt(r->profile, sizeof(r->profile), "docs");
		(void)!str_fmt(r->key, sizeof(r->key), "%s", key);
		r->key_len = (uint32_t)strlen(key);
	}
}

static void
req_plugin(struct request *r, const char *name, const char *input,
    const char *ph)
{
	struct req_plugin *p = &r->plugins[r->nplugins++];

	(void)!str_fmt(p->name, sizeof(p->name), "%s", name);
	if (input != NULL) {
		p->ninputs = 1;
		(void)!str_fmt(p->inputs[0].name, sizeof(p->inputs[0].name), "%s",
		    input);
		(void)!str_fmt(p->inputs[0].placeholder,
		    sizeof(p->inputs[0].placeholder), "%s", ph);
	}
}

static json_t *
plan(const struct request *r, uid_t uid)
{
	struct peer peer;
	json_t *j;
	char *line;

	memset(&peer, 0, sizeof(peer));
	peer.uid = uid;
	peer.fd = -1;
	line = plan_handle(&E, r, &peer);
	assert_non_null(line);
	assert_non_null(strchr(line, '\n'));
	j = json_loads(line, 0, NULL);
	assert_non_null(j);
	free(line);
	return j;
}

/* The error code of a response, or NULL when it is a result. */
static const char *
err_of(const json_t *j)
{
	return json_string_value(json_object_get(json_object_get(j, "error"),
	    "message"));
}

static const json_t *
last_audit(void)
{
	return json_array_get(F.audit, json_array_size(F.audit) - 1);
}

static const char *
audit_str(const char *k)
{
	return json_string_value(json_object_get(last_audit(), k));
}

static size_t
work_files(void)
{
	DIR *d = opendir(workdir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* ---- tests ---- */

static void
test_answered(void **state)
{
	struct request r;
	json_t *j, *a;
	long long before = fake_now(NULL);

	req_init(&r, "2024/./a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	F.outcome[1] = OUT_ANSWER_0;
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	a = json_object_get(json_object_get(j, "result"), "answers");
	assert_int_equal(json_array_size(a), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0),
	    "result")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 1),
	    "result")), 0);
	assert_true(id_is_valid(json_string_value(json_object_get(
	    json_object_get(j, "result"), "handle")), "f_"));
	/* the card: the cleaned key, the typed one, the count */
	assert_int_equal(F.ndecide, 1);
	assert_string_equal(F.card_key, "2024/a.txt");
	assert_int_equal(F.card_reveals, 2);
	assert_int_equal(F.card_left, 4);
	/* each plugin ran on the fetched file */
	assert_int_equal(F.nrun, 2);
	assert_string_equal(F.input_seen, "file A bytes\n");
	/* the audit has what the agent never sees */
	assert_string_equal(audit_str("outcome"), "answered");
	assert_string_equal(audit_str("decision"), "approved");
	assert_int_equal(json_integer_value(json_object_get(last_audit(), "size")),
	    13);
	assert_int_equal(strlen(audit_str("sha256")), 64);
	/* held to the first multiple of the quantum after the approval */
	assert_int_equal(F.nsleep, 1);
	assert_true(F.slept_until >= before + QUANTUM_MS &&
	    F.slept_until <= before + QUANTUM_MS + 1000);
	assert_non_null(strstr(F.windows, ": answered"));
	assert_int_equal(F.nresult, 0);	/* level 1: no results shown */
	json_decref(j);
}

struct refusal {
	const char *why;
	void (*make)(struct request *);
	const char *code;
};

static void mk_literal(struct request *r) {
	req_init(r, "2024/a.txt");
	(void)!str_fmt(r->profile, sizeof(r->profile), "nope");
	req_plugin(r, "missing", NULL, NULL);
	r->error = E_LITERAL_INPUT;
}
static void mk_profile(struct request *r) {
	req_init(r, "2024/a.txt");
	(void)!str_fmt(r->profile, sizeof(r->profile), "nope");
	req_plugin(r, "missing", NULL, NULL);
}
static void mk_prefix(struct request *r) {
	req_init(r, "2023/../../x.txt");
	req_plugin(r, "missing", NULL, NULL);
}
static void mk_outside(struct request *r) {
	req_init(r, "secret/x.txt");
	req_plugin(r, "p-one", NULL, NULL);
}
static void mk_missing(struct request *r) {
	req_init(r, "2024/a.txt");
	req_plugin(r, "p-one", NULL, NULL);
	req_plugin(r, "missing", NULL, NULL);
	F.ready = 0;
}
static void mk_bindings(struct request *r) {
	req_init(r, "2024/a.txt");
	req_plugin(r, "p-in", "other", "email");
	F.ready = 0;
}
static void mk_unbound(struct request *r) {
	req_init(r, "2024/a.txt");
	req_plugin(r, "p-one", "needle", "x");
}
static void mk_too_many(struct request *r) {
	int i;
	req_init(r, "2024/a.txt");
	for (i = 0; i < 5; i++)
		req_plugin(r, "p-one", NULL, NULL);
	F.ready = 0;
}
static void mk_flag_too_many(struct request *r) {
	req_init(r, "2024/a.txt");
	req_plugin(r, "p-one", NULL, NULL);
	r->too_many_plugins = 1;
}
static void mk_sandbox(struct request *r) {
	req_init(r, "2024/a.txt");
	req_plugin(r, "p-one", NULL, NULL);
	F.ready = 0;
	F.proc_fail_at = 1;
}
static void mk_proc(struct request *r) {
	req_init(r, "2024/a.txt");
	req_plugin(r, "p-one", NULL, NULL);
	F.proc_fail_at = 1;
}
static void mk_cap(struct request *r) {
	req_init(r, "2024/a.txt");
	req_plugin(r, "p-one", NULL, NULL);
	req_plugin(r, "p-two", NULL, NULL);
	pol.max_answers_per_key = 1;
	F.ready = 0;
}
static void mk_handle_before_cap(struct request *r) {
	mk_too_many(r);
	pol.max_answers_per_key = 1;
}
static void mk_handle(struct request *r) {
	req_init(r, NULL);
	r->has_handle = 1;
	(void)!str_fmt(r->handle, sizeof(r->handle),
	    "f_00112233445566778899aabbccddeeff");
	req_plugin(r, "missing", NULL, NULL);
}

/* Each check, and the order between neighbours: a request failing two
 * checks gets the earlier one. None reaches the card, the file or the
 * quantum. */
static const struct refusal refusals[] = {
	{ "literal input before everything", mk_literal, "E_LITERAL_INPUT" },
	{ "unknown profile before plugins", mk_profile, "E_UNKNOWN_PROFILE" },
	{ "a key escaping the root", mk_prefix, "E_KEY_OUTSIDE_PREFIX" },
	{ "a key outside the prefix", mk_outside, "E_KEY_OUTSIDE_PREFIX" },
	{ "plugins before the sandbox", mk_missing, "E_PLUGIN_NOT_INSTALLED" },
	{ "bindings before the sandbox", mk_bindings, "E_BAD_REQUEST" },
	{ "an input a protocol-1 plugin lacks", mk_unbound, "E_BAD_REQUEST" },
	{ "answers before the sandbox", mk_too_many, "E_TOO_MANY_PLUGINS" },
	{ "more plugins than a request holds", mk_flag_too_many,
	    "E_TOO_MANY_PLUGINS" },
	{ "the handle's answers before the cap", mk_handle_before_cap,
	    "E_TOO_MANY_PLUGINS" },
	{ "the answer cap before the sandbox", mk_cap, "E_ANSWER_CAP" },
	{ "the sandbox before /proc", mk_sandbox, "E_SANDBOX_UNAVAILABLE" },
	{ "/proc", mk_proc, "E_PROC_NOT_HIDDEN" },
	{ "an unknown handle", mk_handle, "E_HANDLE_EXPIRED" },
};

static void
test_refusals_before_the_card(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		struct request r;
		json_t *j;

		fresh(NULL);
		refusals[i].make(&r);
		j = plan(&r, UID_A);
		if (err_of(j) == NULL || strcmp(err_of(j), refusals[i].code) != 0)
			fail_msg("%s: got %s, want %s", refusals[i].why,
			    err_of(j) ? err_of(j) : "a result", refusals[i].code);
		assert_int_equal(F.ndecide, 0);
		assert_int_equal(F.nrun, 0);
		assert_int_equal(F.nsleep, 0);	/* answered at once */
		assert_int_equal(work_files(), 0);
		assert_string_equal(audit_str("outcome"), refusals[i].code);
		assert_non_null(strstr(F.windows, refusals[i].code));
		json_decref(j);
	}
}

static void
test_yanked_and_tampered(void **state)
{
	char path[PATH_MAX + 64];
	struct request r;
	json_t *j, *lock;
	const char *w;
	size_t i;

	/* a changed binary: tampered, before the card */
	assert_int_equal(str_fmt(path, sizeof(path), "%s/.local/share/lockfile/"
	    "plugins/p-two/1.0.0/plugin", home), STR_OK);
	write_file(path, "another binary", 14, 0755);
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-two", NULL, NULL);
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_PLUGIN_TAMPERED");
	assert_int_equal(F.ndecide, 0);
	json_decref(j);
	/* recorded as yanked: refused as such */
	fresh(NULL);
	lock = json_pack("{s:i, s:[], s:[]}", "schema", 1, "plugins", "indexes");
	for (i = 0; i < 3; i++)
		install(&plugins[i], lock, plugins[i].name);
	json_object_set_new(json_array_get(json_object_get(lock, "plugins"), 1),
	    "yanked", json_true());
	write_lock(lock);
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_PLUGIN_YANKED");
	json_decref(j);
	/* put the store back */
	json_object_set_new(json_array_get(json_object_get(lock, "plugins"), 1),
	    "yanked", json_false());
	write_lock(lock);
	json_decref(lock);
	assert_int_equal(store_reload(&store, &w), 0);
}

static void
test_decisions(void **state)
{
	static const struct { enum decision d; const char *code, *rec; } c[] = {
		{ DECISION_DENIED, "E_APPROVAL_DENIED", "denied" },
		{ DECISION_TIMEOUT, "E_APPROVAL_TIMEOUT", "timeout" },
		{ DECISION_WITHDRAWN, "E_APPROVAL_TIMEOUT", "withdrawn" },
	};
	size_t i;

	for (i = 0; i < 3; i++) {
		struct request r;
		json_t *j;

		fresh(NULL);
		F.decision = c[i].d;
		req_init(&r, "2024/a.txt");
		req_plugin(&r, "p-in", "needle", "email");
		j = plan(&r, UID_A);
		assert_string_equal(err_of(j), c[i].code);
		assert_string_equal(audit_str("decision"), c[i].rec);
		/* nothing fetched, no value asked, no hold */
		assert_int_equal(F.nread, 0);
		assert_int_equal(F.nrun, 0);
		assert_int_equal(work_files(), 0);
		assert_int_equal(F.nsleep, 0);
		json_decref(j);
	}
}

static void
test_values(void **state)
{
	struct request r;
	json_t *j, *held;
	char *dump;

	F.value = "a-secret-needle";
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-in", "needle", "email");
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	assert_int_equal(F.nread, 1);
	assert_int_equal(F.card_held[0], 0);
	/* fd 6: a 4-byte length and the value */
	assert_int_equal(F.values_seen_len, 4 + 15);
	assert_memory_equal(F.values_seen, "\0\0\0\x0f" "a-secret-needle", 19);
	held = json_object_get(json_object_get(j, "result"), "held_inputs");
	assert_string_equal(json_string_value(json_array_get(held, 0)), "email");
	/* never in the response, the audit or the window */
	dump = json_dumps(j, 0);
	assert_null(strstr(dump, "a-secret"));
	free(dump);
	dump = json_dumps(F.audit, 0);
	assert_null(strstr(dump, "a-secret"));
	free(dump);
	assert_null(strstr(F.windows, "a-secret"));
	json_decref(j);
	/* held: the next plan reuses it without asking, and says so */
	F.value = NULL;
	F.value_code = PLAN_VALUE_TIMEOUT;
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	assert_int_equal(F.nread, 1);
	assert_int_equal(F.card_held[0], 1);
	assert_int_equal(F.card_replayed[0], 1);
	json_decref(j);
	/* another uid holds none of it */
	j = plan(&r, UID_B);
	assert_string_equal(err_of(j), "E_APPROVAL_TIMEOUT");
	assert_int_equal(F.nread, 2);
	json_decref(j);
}

static void
test_value_refusals(void **state)
{
	static const struct { const char *v; long code; const char *err; } c[] = {
		{ "0123456789012345678901234567890123456789012345678901234567"
		  "8901234", 0, "E_INPUT_INVALID" },	/* 65 bytes: over max_bytes */
		{ "bell\a", 0, "E_INPUT_INVALID" },
		{ NULL, PLAN_VALUE_TIMEOUT, "E_APPROVAL_TIMEOUT" },
		{ NULL, PLAN_VALUE_NONE, "E_INPUT_INVALID" },
		{ NULL, PLAN_VALUE_PEER_GONE, "E_APPROVAL_TIMEOUT" },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct request r;
		json_t *j;

		fresh(NULL);
		F.value = c[i].v;
		F.value_code = c[i].code;
		req_init(&r, "2024/a.txt");
		req_plugin(&r, "p-in", "needle", "email");
		j = plan(&r, UID_A);
		if (err_of(j) == NULL || strcmp(err_of(j), c[i].err) != 0)
			fail_msg("case %zu: got %s, want %s", i, err_of(j) ?
			    err_of(j) : "a result", c[i].err);
		assert_int_equal(F.nrefused, c[i].v != NULL);
		assert_int_equal(F.nrun, 0);
		assert_int_equal(work_files(), 0);
		/* a refused value is forgotten: the next plan asks again */
		assert_null(values_find(&vals, UID_A, "email"));
		json_decref(j);
	}
}

static void
test_fetch_failure_after_approval(void **state)
{
	struct request r;
	json_t *j;

	req_init(&r, "2024/missing.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_FETCH_FAILED");
	assert_int_equal(F.ndecide, 1);	/* told only after the approval */
	assert_int_equal(F.nsleep, 1);	/* on the quantum */
	assert_int_equal(F.nrun, 0);
	assert_non_null(audit_str("fetch_cause"));
	assert_int_equal(work_files(), 0);
	json_decref(j);
}

static const char *
handle_of(const json_t *j)
{
	return json_string_value(json_object_get(json_object_get(j, "result"),
	    "handle"));
}

static void
test_by_handle(void **state)
{
	struct request r, rh;
	json_t *j, *k;
	char id[40];

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	(void)!str_fmt(id, sizeof(id), "%s", handle_of(j));
	json_decref(j);
	req_init(&rh, NULL);
	rh.has_handle = 1;
	(void)!str_fmt(rh.handle, sizeof(rh.handle), "%s", id);
	req_plugin(&rh, "p-one", NULL, NULL);
	/* another uid's handle is an unknown one */
	k = plan(&rh, UID_B);
	assert_string_equal(err_of(k), "E_HANDLE_EXPIRED");
	json_decref(k);
	/* by handle: the same file, no second fetch, fewer answers left */
	F.nrun = 0;
	k = plan(&rh, UID_A);
	assert_null(err_of(k));
	assert_string_equal(handle_of(k), id);
	assert_int_equal(F.card_left, 2);
	assert_int_equal(work_files(), 1);
	json_decref(k);
	/* the last answer uses it up: then the handle is gone */
	k = plan(&rh, UID_A);
	assert_null(err_of(k));
	json_decref(k);
	k = plan(&rh, UID_A);
	assert_string_equal(err_of(k), "E_HANDLE_EXPIRED");
	json_decref(k);
	/* more than it has left */
	j = plan(&r, UID_A);
	(void)!str_fmt(id, sizeof(id), "%s", handle_of(j));
	json_decref(j);
	(void)!str_fmt(rh.handle, sizeof(rh.handle), "%s", id);
	rh.nplugins = 0;
	req_plugin(&rh, "p-one", NULL, NULL);
	req_plugin(&rh, "p-one", NULL, NULL);
	req_plugin(&rh, "p-one", NULL, NULL);
	k = plan(&rh, UID_A);
	assert_string_equal(err_of(k), "E_TOO_MANY_PLUGINS");
	json_decref(k);
}

static void
test_handle_expires_during_approval(void **state)
{
	struct request r, rh;
	json_t *j;

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	req_init(&rh, NULL);
	rh.has_handle = 1;
	(void)!str_fmt(rh.handle, sizeof(rh.handle), "%s", handle_of(j));
	json_decref(j);
	req_plugin(&rh, "p-two", NULL, NULL);
	F.decide_advance_ms = 601 * 1000LL;	/* past the handle's TTL */
	F.nsleep = 0;
	j = plan(&rh, UID_A);
	assert_string_equal(err_of(j), "E_HANDLE_EXPIRED");
	assert_string_equal(audit_str("cause"), "expired during the approval");
	assert_int_equal(F.nsleep, 1);	/* after the approval: held */
	json_decref(j);
}

static void
test_plugin_error(void **state)
{
	struct request r;
	json_t *j, *a;

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	F.outcome[0] = OUT_SIGNALED;
	j = plan(&r, UID_A);
	a = json_array_get(json_object_get(json_object_get(j, "result"),
	    "answers"), 0);
	assert_true(json_is_null(json_object_get(a, "result")));
	assert_string_equal(json_string_value(json_object_get(a, "error")),
	    "plugin_error");
	json_decref(j);
}

static void
test_failures_after_approval(void **state)
{
	struct request r;
	json_t *j;

	/* the sandbox cannot be set up for a run */
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	F.outcome[0] = OUT_SANDBOX_UNAVAILABLE;
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_SANDBOX_UNAVAILABLE");
	assert_int_equal(F.nsleep, 1);
	assert_int_equal(work_files(), 0);	/* the file is not kept */
	json_decref(j);
	/* /proc exposed between the card and the run */
	fresh(NULL);
	F.proc_fail_at = 2;
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_PROC_NOT_HIDDEN");
	assert_int_equal(F.ndecide, 1);
	assert_int_equal(F.nrun, 0);
	assert_int_equal(F.nsleep, 1);
	assert_int_equal(work_files(), 0);
	json_decref(j);
}

/* plan_bounds holds every check that must pass right before plugins run,
 * asked again in the tail both entries end in (docs/security.md, "one
 * bounds check"): a sandbox that went away while the human read the card
 * refuses the plan before anything is fetched or run. */
static void
sandbox_goes(void)
{
	F.ready = 0;
}

static void
test_sandbox_gone_after_the_card(void **state)
{
	struct request r;
	json_t *j;

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	F.during_decide = sandbox_goes;
	j = plan(&r, UID_A);
	assert_non_null(err_of(j));	/* not answered */
	assert_string_equal(err_of(j), "E_SANDBOX_UNAVAILABLE");
	assert_int_equal(F.ndecide, 1);
	assert_int_equal(F.nrun, 0);
	assert_int_equal(F.nsleep, 1);	/* on the quantum */
	assert_int_equal(work_files(), 0);
	assert_null(audit_str("fetch_cause"));	/* nothing was fetched */
	json_decref(j);
}

static void
replace_p_one(void)
{
	char path[PATH_MAX + 64];

	(void)!str_fmt(path, sizeof(path), "%s/.local/share/lockfile/plugins/"
	    "p-one/1.0.0/plugin", home);
	write_file(path, "replaced after the card", 23, 0755);
}

static void
test_tampered_after_the_card(void **state)
{
	struct request r;
	json_t *j, *lock;
	const char *w;
	size_t i;

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	F.during_decide = replace_p_one;
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_PLUGIN_TAMPERED");
	assert_int_equal(F.nrun, 0);
	assert_int_equal(F.nsleep, 1);
	assert_int_equal(work_files(), 0);
	json_decref(j);
	lock = json_pack("{s:i, s:[], s:[]}", "schema", 1, "plugins", "indexes");
	for (i = 0; i < 3; i++)
		install(&plugins[i], lock, plugins[i].name);
	write_lock(lock);
	json_decref(lock);
	assert_int_equal(store_reload(&store, &w), 0);
}

static void
test_quantum_multiples(void **state)
{
	struct request r;
	json_t *j;
	long long before = fake_now(NULL);

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	F.run_advance_ms = 2 * QUANTUM_MS + QUANTUM_MS / 2;	/* 2.5 quanta */
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	/* the first multiple past the run: 3 quanta after the approval */
	assert_true(F.slept_until >= before + 3 * QUANTUM_MS &&
	    F.slept_until < before + 3 * QUANTUM_MS + 1000);
	json_decref(j);
}

/* The cap: max_answers_per_key answers for one agent and key inside the
 * window, across plans and handles; the refusal before the card, at once;
 * another agent's counts apart; the window's end frees the key. */
static void
test_answer_cap(void **state)
{
	struct request r, r1, rh;
	json_t *j;
	int sleeps;

	pol.max_answers_per_key = 5;
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	assert_string_equal(F.card_ledger_line, "this key: no answers to uid "
	    "1000 in the last 1 d, cap 5");
	assert_int_equal(F.card_nledger, LEDGER_SCREEN_LINES);
	assert_int_equal(F.card_ledger_counts[0], 0);	/* answers */
	assert_int_equal(F.card_ledger_counts[2], 5);	/* the cap */
	/* recorded before the answer left: the ledger had it at the hold */
	assert_int_equal(F.held_ledger, 2);
	assert_int_equal(json_integer_value(json_object_get(last_audit(),
	    "ledger_answers")), 2);
	/* by its handle: a second plan on the same key, counted the same */
	req_init(&rh, NULL);
	rh.has_handle = 1;
	(void)!str_fmt(rh.handle, sizeof(rh.handle), "%s", handle_of(j));
	json_decref(j);
	req_plugin(&rh, "p-one", NULL, NULL);
	req_plugin(&rh, "p-two", NULL, NULL);
	wall += 60;
	j = plan(&rh, UID_A);
	assert_null(err_of(j));
	assert_non_null(strstr(F.card_ledger_line, "this key: 2 answers to uid "
	    "1000 in 1 plan since 2023-11-14 22:13 UTC, cap 5 per 1 d"));
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 4);
	/* a new handle by key: 4 + 2 passes 5, refused before the card,
	 * at once, nothing fetched */
	F.ndecide = F.nrun = 0;
	sleeps = F.nsleep;
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_ANSWER_CAP");
	assert_int_equal(F.ndecide, 0);
	assert_int_equal(F.nrun, 0);
	assert_int_equal(F.nsleep, sleeps);
	assert_string_equal(audit_str("outcome"), "E_ANSWER_CAP");
	assert_int_equal(json_integer_value(json_object_get(last_audit(),
	    "ledger_window_answers")), 4);
	json_decref(j);
	/* the typed key is cleaned first: "2024/./a.txt" is the same key */
	req_init(&r1, "2024/./a.txt");
	req_plugin(&r1, "p-one", NULL, NULL);
	req_plugin(&r1, "p-one", NULL, NULL);
	j = plan(&r1, UID_A);
	assert_string_equal(err_of(j), "E_ANSWER_CAP");
	json_decref(j);
	/* one more fits exactly */
	r1.nplugins = 1;
	j = plan(&r1, UID_A);
	assert_null(err_of(j));
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 5);
	/* another agent: its own count, its own card */
	j = plan(&r, UID_B);
	assert_null(err_of(j));
	assert_string_equal(F.card_ledger_line, "this key: no answers to uid "
	    "1001 in the last 1 d, cap 5");
	json_decref(j);
	assert_int_equal(ledger_answers(UID_B, "2024/a.txt"), 2);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 5);
	/* a day later the window has let them go */
	wall += 86400 + 86400 / 64;
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	json_decref(j);
}

/* What counts: each answer and each plugin_error; a fetch failure after
 * the approval counts one; a plan refused after the approval without an
 * answer (the sandbox failing) counts nothing. */
static void
test_ledger_counts(void **state)
{
	struct request r;
	json_t *j;

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	F.outcome[1] = OUT_SIGNALED;
	j = plan(&r, UID_A);
	assert_null(err_of(j));
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 2);
	req_init(&r, "2024/missing.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_FETCH_FAILED");
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/missing.txt"), 1);
	fresh(NULL);
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	F.outcome[0] = OUT_SANDBOX_UNAVAILABLE;
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_SANDBOX_UNAVAILABLE");
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 0);
	/* denied: nothing */
	F.outcome[0] = OUT_ANSWER_1;
	F.decision = DECISION_DENIED;
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_APPROVAL_DENIED");
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 0);
}

/* A ledger that cannot take the record stops the console before the
 * answer leaves: in a child whose file size limit stops the write, the
 * pipeline never returns its line (exit 42 from the stop). */
static void
test_ledger_failure_sends_nothing(void **state)
{
	struct request r;
	pid_t pid;
	int st;

	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim;
		struct ledger_stats ls;
		struct peer peer;
		char *line;

		/* The child has no deleter thread, but the mutex may have been
		 * the deleter's at the fork (then plan_handle waited forever:
		 * plan-unit-asan hung once in CI): a fresh one, as a fork
		 * handler would give. */
		if (pthread_mutex_init(&ws.mu, NULL) != 0 ||
		    pthread_cond_init(&ws.cv, NULL) != 0)
			_exit(6);
		ledger_get_stats(L, &ls);
		signal(SIGXFSZ, SIG_IGN);
		lim.rlim_cur = lim.rlim_max = ls.bytes;
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(3);
		E.ledger_ops = &exit_ledger_ops;
		memset(&peer, 0, sizeof(peer));
		peer.uid = UID_A;
		peer.fd = -1;
		line = plan_handle(&E, &r, &peer);
		_exit(line != NULL ? 4 : 5);	/* an answer would leave */
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 42);
	/* the child's fetched file, which no handle of ours knows */
	{
		char cmd[PATH_MAX + 32];
		if (str_fmt(cmd, sizeof(cmd), "rm -rf %s/*", workdir) == STR_OK)
			(void)!system(cmd);
	}
	/* and the parent's ledger (the same file) holds nothing torn */
	ledger_close(L);
	L = NULL;
	{
		struct ledger_problem p;
		int fd = open(ledgerdir, O_RDONLY | O_DIRECTORY), created;
		assert_int_equal(ledger_open(&L, fd, &wall_clock,
		    pol.ledger_window_s, &created, &p), LEDGER_OK);
		close(fd);
		E.ledger = L;
	}
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 0);
}

static void
test_level0_results(void **state)
{
	struct request r;
	json_t *j;

	pol.security_level = 0;
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	j = plan(&r, UID_A);
	assert_int_equal(F.nresult, 2);
	json_decref(j);
	pol.security_level = 1;
}


/* ---- hub mode: the pipeline's hub paths through a fake hub ---- */

static void
hub_on(void)
{
	json_decref(H.saved);
	memset(&H, 0, sizeof(H));
	H.saved = json_object();
	E.hub = &fake_hub;
}

static void
hub_off(void)
{
	E.hub = NULL;
	json_decref(H.saved);
	H.saved = NULL;
}

static json_t *
run_plan(const char *plan_id, uid_t uid)
{
	struct request r;
	struct peer peer;
	json_t *j;
	char *line;

	memset(&r, 0, sizeof(r));
	r.magic = REQUEST_MAGIC;
	r.method = M_FILE_RUN;
	r.id_kind = RID_INT;
	r.id_int = 8;
	r.has_plan = 1;
	(void)!str_fmt(r.plan, sizeof(r.plan), "%s", plan_id);
	memset(&peer, 0, sizeof(peer));
	peer.uid = uid;
	peer.fd = -1;
	line = plan_run(&E, &r, &peer);
	assert_non_null(line);
	j = json_loads(line, 0, NULL);
	assert_non_null(j);
	free(line);
	return j;
}

/* A pending answer: its plan id (into out). */
static void
pending_of(const json_t *j, char *out)
{
	const json_t *r = json_object_get(j, "result");

	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "status")),
	    "pending");
	assert_string_equal(json_string_value(json_object_get(r, "text")),
	    PROTO_PENDING_TEXT);
	(void)!str_fmt(out, 40, "%s", json_string_value(json_object_get(r,
	    "plan")));
}

static void
test_hub_pending_and_run(void **state)
{
	struct request r;
	json_t *j;
	char id[40];
	long long before = fake_now(NULL);

	hub_on();
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	/* the first fetch: its hash and size for the ticket, its bytes gone */
	assert_int_equal(H.nask, 1);
	assert_int_equal(H.content, PLAN_CONTENT_FETCHED);
	assert_true(H.has_sha);
	assert_int_equal(H.size, 13);
	assert_int_equal(work_files(), 0);
	assert_int_equal(F.ndecide, 0);	/* never the console's card */
	assert_int_equal(F.nsleep, 1);	/* the pending answer is quantized */
	assert_true(F.slept_until >= before + QUANTUM_MS);
	assert_string_equal(audit_str("outcome"), "pending");
	assert_non_null(json_object_get(H.saved, id));
	/* approved: fetched again, run, answered at the quantum */
	H.verdict = PLAN_APPROVED;
	F.nsleep = 0;
	j = run_plan(id, UID_A);
	assert_null(err_of(j));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j,
	    "result"), "plan")), id);
	assert_int_equal(F.nrun, 1);
	assert_string_equal(F.input_seen, "file A bytes\n");
	assert_int_equal(F.nsleep, 1);
	assert_null(json_object_get(H.saved, id));	/* done */
	json_decref(j);
	/* done means done */
	j = run_plan(id, UID_A);
	assert_string_equal(err_of(j), "E_APPROVAL_TIMEOUT");
	json_decref(j);
	hub_off();
}

static void
replace_a(const char *bytes)
{
	char path[PATH_MAX + 32];

	(void)!str_fmt(path, sizeof(path), "%s/2024/a.txt", srcdir);
	write_file(path, bytes, strlen(bytes), 0600);
}

static void
test_hub_stale(void **state)
{
	struct request r;
	json_t *j;
	char id[40];

	hub_on();
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	replace_a("other bytes!\n");
	H.verdict = PLAN_APPROVED;
	j = run_plan(id, UID_A);
	replace_a("file A bytes\n");
	assert_string_equal(err_of(j), "E_STALE");
	assert_int_equal(F.nrun, 0);	/* no plugin on the new bytes */
	assert_int_equal(work_files(), 0);	/* the spool released */
	json_decref(j);
	hub_off();
}

static void
test_hub_fetch_failure_after_approval(void **state)
{
	struct request r;
	json_t *j;
	char id[40];

	hub_on();
	req_init(&r, "2024/missing.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id);	/* not told at plan time */
	json_decref(j);
	assert_int_equal(H.content, PLAN_CONTENT_FAILED);
	assert_false(H.has_sha);
	H.verdict = PLAN_APPROVED;
	F.nsleep = 0;
	j = run_plan(id, UID_A);
	assert_string_equal(err_of(j), "E_FETCH_FAILED");
	assert_int_equal(F.nsleep, 1);	/* on the quantum */
	json_decref(j);
	hub_off();
}

/* The same in hub mode: file.run asks plan_bounds whole (the sandbox
 * ready, /proc hidden), not only the answer bounds. */
static void
test_hub_sandbox_gone_at_the_run(void **state)
{
	struct request r;
	json_t *j;
	char id[40];

	hub_on();
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	F.ready = 0;
	H.verdict = PLAN_APPROVED;
	F.nsleep = 0;
	j = run_plan(id, UID_A);
	assert_non_null(err_of(j));	/* not answered */
	assert_string_equal(err_of(j), "E_SANDBOX_UNAVAILABLE");
	assert_int_equal(F.nrun, 0);
	assert_int_equal(F.nsleep, 1);	/* on the quantum */
	assert_int_equal(work_files(), 0);
	assert_null(audit_str("fetch_cause"));	/* nothing was fetched */
	assert_null(json_object_get(H.saved, id));	/* done */
	json_decref(j);
	hub_off();
}

/* The console waits for no hub (docs/hub.md): a ticket still being
 * fetched and posted, or not decided yet, answers pending again at the
 * quantum; one the hub did not take is refused and over. */
static void
test_hub_pending_again(void **state)
{
	struct request r;
	json_t *j;
	char id[40], again[40];

	hub_on();
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	assert_int_equal(H.content, PLAN_CONTENT_FETCHED);
	H.prep = PLAN_PREP_BUSY;
	F.nsleep = 0;
	j = run_plan(id, UID_A);
	pending_of(j, again);
	assert_string_equal(again, id);
	assert_int_equal(F.nsleep, 1);	/* on the quantum */
	assert_int_equal(F.nrun, 0);
	json_decref(j);
	/* posted, no decision yet: pending again, the record kept */
	H.prep = PLAN_PREP_DONE;
	H.verdict = PLAN_UNDECIDED;
	F.nsleep = 0;
	j = run_plan(id, UID_A);
	pending_of(j, again);
	assert_int_equal(F.nsleep, 1);
	assert_non_null(json_object_get(H.saved, id));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    H.saved, id), "content")), PLAN_CONTENT_FETCHED);
	json_decref(j);
	hub_off();
	/* the hub did not take the ticket: told at the run, the plan over */
	hub_on();
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	H.prep = PLAN_PREP_REFUSED;
	j = run_plan(id, UID_A);
	assert_string_equal(err_of(j), "E_APPROVAL_TIMEOUT");
	assert_null(json_object_get(H.saved, id));
	json_decref(j);
	hub_off();
}

static void
test_hub_verdicts(void **state)
{
	struct request r;
	json_t *j;
	char id[40];

	hub_on();
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	/* none that holds: refused, the plan still pending */
	H.verdict = PLAN_NO_DECISION;
	j = run_plan(id, UID_A);
	assert_string_equal(err_of(j), "E_APPROVAL_TIMEOUT");
	assert_non_null(json_object_get(H.saved, id));
	json_decref(j);
	/* another agent's plan is as unknown as none */
	H.verdict = PLAN_APPROVED;
	j = run_plan(id, UID_B);
	assert_string_equal(err_of(j), "E_APPROVAL_TIMEOUT");
	assert_int_equal(F.nrun, 0);
	json_decref(j);
	/* denied: over */
	H.verdict = PLAN_DENIED;
	j = run_plan(id, UID_A);
	assert_string_equal(err_of(j), "E_APPROVAL_DENIED");
	assert_null(json_object_get(H.saved, id));
	json_decref(j);
	/* the hub does not take a ticket */
	H.ask_fails = 1;
	j = plan(&r, UID_A);
	assert_string_equal(err_of(j), "E_APPROVAL_TIMEOUT");
	assert_int_equal(json_object_size(H.saved), 0);
	json_decref(j);
	/* a local console has no file.run */
	hub_off();
	j = run_plan(id, UID_A);
	assert_string_equal(err_of(j), "E_BAD_REQUEST");
	json_decref(j);
}

static void
test_hub_values(void **state)
{
	struct request r;
	json_t *j;
	char id[40], id2[40];

	hub_on();
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-in", "needle", "email");
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	assert_int_equal(H.held0, 0);
	/* the value comes from the decision's box, to fd 6 */
	H.verdict = PLAN_APPROVED;
	H.value = "box-value";
	j = run_plan(id, UID_A);
	assert_null(err_of(j));
	assert_memory_equal(F.values_seen, "\0\0\0\x09" "box-value", 13);
	json_decref(j);
	/* held now: the next ticket says so */
	j = plan(&r, UID_A);
	pending_of(j, id2);
	json_decref(j);
	assert_int_equal(H.held0, 1);
	/* a restart: the value is gone, the ticket too; the renewal finds the
	 * value the plan relied on no longer held */
	values_wipe(&vals);
	values_init(&vals);
	H.verdict = PLAN_EXPIRED;
	j = run_plan(id2, UID_A);
	assert_string_equal(err_of(j), "E_INPUT_INVALID");
	assert_null(json_object_get(H.saved, id2));
	json_decref(j);
	/* a box without the value */
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	H.verdict = PLAN_APPROVED;
	H.value = NULL;
	{
		size_t files = work_files();	/* the first run's handle */
		j = run_plan(id, UID_A);
		assert_string_equal(err_of(j), "E_INPUT_INVALID");
		assert_int_equal(work_files(), files);	/* nothing fetched */
	}
	json_decref(j);
	hub_off();
}

static void
test_hub_renewal(void **state)
{
	struct request r;
	json_t *j;
	char id[40], id2[40];

	hub_on();
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id);
	json_decref(j);
	/* expired: asked again as a new ticket for the same plan, its content
	 * named unchecked, renewing the first */
	H.verdict = PLAN_EXPIRED;
	F.nsleep = 0;
	j = run_plan(id, UID_A);
	pending_of(j, id2);
	json_decref(j);
	assert_string_equal(id2, id);
	assert_int_equal(H.nask, 2);
	assert_int_equal(H.content, PLAN_CONTENT_UNCHECKED);
	assert_string_equal(H.renews, "t_00000000000000000000000000000001");
	assert_int_equal(H.nmoved, 0);
	assert_int_equal(F.nsleep, 1);
	assert_int_equal(F.nrun, 0);
	/* the renewal approved: the run checks the sha256 then */
	H.verdict = PLAN_APPROVED;
	j = run_plan(id, UID_A);
	assert_null(err_of(j));
	assert_int_equal(F.nrun, 1);
	json_decref(j);
	hub_off();
}

/* The error code, or "answered": a failed check, not a crash, when a
 * plan that should be refused is answered. */
static const char *
outcome_of(const json_t *j)
{
	return err_of(j) != NULL ? err_of(j) : "answered";
}

/* The local pipeline asks the same bounds again after the card, in the
 * request that runs the plugins: answers recorded for this agent and key
 * while the human read the card (another plan's) take it past the cap,
 * so nothing is fetched or run and the ledger is as it was. */
static void
other_plan_during_the_card(void)
{
	struct ledger_problem p;

	assert_int_equal(ledger_record(L, UID_A, "docs", "2024/a.txt", NULL, NULL, 2,
	    &p), LEDGER_OK);
}

static void
test_bounds_again_after_the_card(void **state)
{
	struct request r;
	json_t *j;

	pol.max_answers_per_key = 3;
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	F.during_decide = other_plan_during_the_card;
	j = plan(&r, UID_A);
	assert_int_equal(F.ndecide, 1);
	assert_string_equal(outcome_of(j), "E_ANSWER_CAP");
	assert_int_equal(F.nrun, 0);
	assert_int_equal(work_files(), 0);	/* nothing fetched */
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 2);
	assert_int_equal(F.nsleep, 1);		/* after the approval: held */
	json_decref(j);
}

/* Issue 25, item 3: every bound that must hold right before the plugins
 * run is checked again in the request that runs them (plan_bounds). Two
 * pending plans on one handle, each fitting alone: the first run takes
 * the handle to 3 of its 4 answers, the second (3 more) is refused with
 * E_TOO_MANY_PLUGINS, nothing runs and the ledger is unchanged. */
static void
test_hub_two_plans_on_one_handle(void **state)
{
	struct request r, rh2, rh3;
	json_t *j;
	char id0[40], id2[40], id3[40], handle[40];
	int nrun;

	hub_on();
	H.verdict = PLAN_APPROVED;
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id0);
	json_decref(j);
	j = run_plan(id0, UID_A);
	assert_null(err_of(j));
	(void)!str_fmt(handle, sizeof(handle), "%s", handle_of(j));
	json_decref(j);
	/* 1 answer given, 3 left: a plan of 2 and one of 3 each fit alone */
	req_init(&rh2, NULL);
	rh2.has_handle = 1;
	(void)!str_fmt(rh2.handle, sizeof(rh2.handle), "%s", handle);
	req_plugin(&rh2, "p-one", NULL, NULL);
	req_plugin(&rh2, "p-two", NULL, NULL);
	rh3 = rh2;
	req_plugin(&rh3, "p-one", NULL, NULL);
	j = plan(&rh2, UID_A);
	pending_of(j, id2);
	json_decref(j);
	j = plan(&rh3, UID_A);
	pending_of(j, id3);
	json_decref(j);
	j = run_plan(id2, UID_A);
	assert_null(err_of(j));
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 3);
	/* both approved: the second one's 3 answers would make 6 */
	nrun = F.nrun;
	F.nsleep = 0;
	j = run_plan(id3, UID_A);
	assert_string_equal(outcome_of(j), "E_TOO_MANY_PLUGINS");
	assert_int_equal(F.nrun, nrun);		/* nothing ran */
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 3);
	assert_int_equal(F.nsleep, 1);		/* after the approval: held */
	assert_null(json_object_get(H.saved, id3));	/* done */
	json_decref(j);
	hub_off();
}

/* The ledger's half of plan_bounds (a regression test: the inline check
 * held before): two pending plans by key, each under the cap alone; the
 * second run is refused with E_ANSWER_CAP, nothing runs, nothing counted. */
static void
test_hub_two_plans_past_the_cap(void **state)
{
	struct request r;
	json_t *j;
	char id1[40], id2[40];
	int nrun;

	pol.max_answers_per_key = 3;
	hub_on();
	H.verdict = PLAN_APPROVED;
	req_init(&r, "2024/a.txt");
	req_plugin(&r, "p-one", NULL, NULL);
	req_plugin(&r, "p-two", NULL, NULL);
	j = plan(&r, UID_A);
	pending_of(j, id1);
	json_decref(j);
	j = plan(&r, UID_A);
	pending_of(j, id2);
	json_decref(j);
	j = run_plan(id1, UID_A);
	assert_null(err_of(j));
	json_decref(j);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 2);
	nrun = F.nrun;
	j = run_plan(id2, UID_A);
	assert_string_equal(outcome_of(j), "E_ANSWER_CAP");
	assert_int_equal(F.nrun, nrun);
	assert_int_equal(ledger_answers(UID_A, "2024/a.txt"), 2);
	json_decref(j);
	hub_off();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_answered, fresh),
		cmocka_unit_test_setup(test_refusals_before_the_card, fresh),
		cmocka_unit_test_setup(test_yanked_and_tampered, fresh),
		cmocka_unit_test_setup(test_decisions, fresh),
		cmocka_unit_test_setup(test_values, fresh),
		cmocka_unit_test_setup(test_value_refusals, fresh),
		cmocka_unit_test_setup(test_fetch_failure_after_approval, fresh),
		cmocka_unit_test_setup(test_by_handle, fresh),
		cmocka_unit_test_setup(test_handle_expires_during_approval, fresh),
		cmocka_unit_test_setup(test_plugin_error, fresh),
		cmocka_unit_test_setup(test_failures_after_approval, fresh),
		cmocka_unit_test_setup(test_tampered_after_the_card, fresh),
		cmocka_unit_test_setup(test_sandbox_gone_after_the_card, fresh),
		cmocka_unit_test_setup(test_quantum_multiples, fresh),
		cmocka_unit_test_setup(test_level0_results, fresh),
		cmocka_unit_test_setup(test_answer_cap, fresh),
		cmocka_unit_test_setup(test_ledger_counts, fresh),
		cmocka_unit_test_setup(test_ledger_failure_sends_nothing, fresh),
		cmocka_unit_test_setup(test_hub_pending_and_run, fresh),
		cmocka_unit_test_setup(test_hub_stale, fresh),
		cmocka_unit_test_setup(test_hub_fetch_failure_after_approval, fresh),
		cmocka_unit_test_setup(test_hub_sandbox_gone_at_the_run, fresh),
		cmocka_unit_test_setup(test_hub_pending_again, fresh),
		cmocka_unit_test_setup(test_hub_verdicts, fresh),
		cmocka_unit_test_setup(test_hub_values, fresh),
		cmocka_unit_test_setup(test_hub_renewal, fresh),
		cmocka_unit_test_setup(test_bounds_again_after_the_card, fresh),
		cmocka_unit_test_setup(test_hub_two_plans_on_one_handle, fresh),
		cmocka_unit_test_setup(test_hub_two_plans_past_the_cap, fresh),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("plan", tests, setup, teardown);
}
