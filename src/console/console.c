/* `lockfile console`: start-up, the serving loop, session timers, shutdown.
 *
 * One request at a time (one human, one screen), picked fairly by peer uid
 * among the open connections (serve.h, docs/console.md "Serving"): the
 * others wait while a plan waits for the human or its quantum. Start-up
 * order matters: our own binary is opened (for the parser workers, each a
 * fresh exec of it) before anything is loaded; inherited descriptors are
 * closed; the process is non-dumpable with no core. */
#include "config.h"
#include "console/cmd.h"
#include "console/confine.h"
#include "console/console.h"
#include "term/home.h"
#include "term/human.h"
#include "host/isolation.h"
#include "protocol/response.h"
#include "lib/exe.h"
#include "lib/clock.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/num.h"
#include "lib/paths.h"
#include "lib/sysconf.h"
#include "lib/str.h"
#include "hubwire/wire.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define ACCEPT_BATCH 16		/* connections taken per turn of the loop */

static const char usage_text[] =
"usage: lockfile console [--home DIR] [--socket PATH] [--allowed-uids UID,...]\n"
"                        [--clients-group NAME]\n"
"                        [--hub URL [--hub-ca FILE] [--hub-instance NAME]]\n"
"\n"
"Serves agents on the socket and the human on this terminal. Runs as the\n"
"console account (never root), from its approved policy only.\n"
"  --home DIR            console home (default: the account's home)\n"
"  --socket PATH         socket (default " LF_SOCKET ")\n"
"  --allowed-uids LIST   extra uids allowed to connect (comma-separated)\n"
"  --clients-group NAME  group allowed to connect (default "
    LF_CLIENTS_GROUP ")\n"
"  --hub URL             hub mode: the human decides on lockhub (docs/hub.md);\n"
"                        the policy's [hub] must be set, and the console\n"
"                        never runs without its hub\n"
"  --hub-ca FILE         the CA certificate of a hub with a private CA\n"
"  --hub-instance NAME   the name the hub enrolled this console under (else\n"
"                        the policy's [hub] instance; lox run gives it)\n"
"Exit status: 0 session ended (idle, session timeout, or a signal),\n"
"64 usage, 70 start-up refused (the reason is printed).\n";

static void console_audit_failed(struct console *c)
    __attribute__((noreturn));
static void console_ledger_failed(struct console *c, const char *why)
    __attribute__((noreturn));

/* One line to a peer, within the read allowance (a peer that does not
 * read its answer is not waited for longer). */
static int
send_line(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;
	long long deadline = now_ms() + SERVE_READ_MS;

	while (off < len) {
		ssize_t n = send(fd, line + off, len - off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			long long left = deadline - now_ms();
			if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
				return -1;
			continue;
		}
		return -1;	/* the client went away (a busy probe, say) */
	}
	return 0;
}

static char *
dispatch(struct console *c, const struct request *req, const struct peer *p,
    long long *release_ms)
{
	json_t *id;
	char *line;

	if (req->error == E_BAD_REQUEST || req->method == M__COUNT) {
		id = request_id_json(req);
		line = proto_error_line(req->method < M__COUNT ?
		    (enum lf_method)req->method : M__COUNT, id, E_BAD_REQUEST);
		json_decref(id);
		return line;
	}
	switch ((enum lf_method)req->method) {
	case M_STATUS:
		return handle_status(&c->methods, req);
	case M_SOURCES:
		return handle_sources(&c->methods, req);
	case M_FILE_PLUGINS:
		return handle_plugins(&c->methods, req);
	case M_FILE_PLAN:
		/* in hub mode the pending answer is parked, as a run's */
		return plan_handle_parked(&c->env, req, p, release_ms);
	case M_FILE_RUN:
		/* a pending answer is parked until its quantum, not held
		 * here: no agent's wait makes another busy (issue 27) */
		return plan_run_parked(&c->env, req, p, release_ms);
	case M_FILE_RELEASE:
		return handle_release(&c->methods, req, p);
	case M_CHANGE_REQUEST:
		return handle_change(&c->methods, req, p);
	default:
		id = request_id_json(req);
		line = proto_error_line((enum lf_method)req->method, id,
		    E_BAD_REQUEST);
		json_decref(id);
		return line;
	}
}

/* A peer the listener refused: answered before a byte of its request is
 * read, audited, shown, closed. */
static void
refuse_peer(struct console *c, int fd, const struct peer *p)
{
	char *line = proto_error_line(M__COUNT, NULL, E_PEER_REFUSED);
	json_t *rec = json_object();

	(void)send_line(fd, line);
	free(line);
	json_object_set_new(rec, "method", json_null());
	json_object_set_new(rec, "peer_uid", json_integer(p->uid));
	json_object_set_new(rec, "outcome", json_string("E_PEER_REFUSED"));
	c->env.audit->note(c->env.audit_ctx, rec);	/* answered */
	term_printf(&c->term, "refused a connection from uid %u\n",
	    (unsigned)p->uid);
	close(fd);
}

/* Take what waits in the backlog, a bounded number at a time (back to the
 * loop's timers and signals in between). Each peer is checked before a
 * byte is read; the allowed ones join the set (serve.h: its caps close
 * the excess of one uid unanswered). */
static void
accept_some(struct console *c)
{
	int k;

	for (k = 0; k < ACCEPT_BATCH; k++) {
		struct peer p;
		int fd = listener_accept(&c->lis);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				/* No descriptor for it: it waits in the backlog.
				 * Back off rather than spin on a listener that
				 * stays readable. */
				sleep_until_ms(now_ms() + 100);
			return;
		}
		memset(&p, 0, sizeof(p));
		if (!listener_peer_allowed(&c->lis, fd, &p)) {
			refuse_peer(c, fd, &p);
			continue;
		}
		(void)serve_add(&c->conns, fd, &p, now_ms());
	}
}

/* Serve the request at the head of cn: parsed by its peer's own worker,
 * dispatched, answered. The parser keeps one worker per uid (LRU of
 * PARSER_MAX_WORKERS): switching uid between requests finds the uid's
 * worker already running, no exec per request. */
static void
serve_one(struct console *c, struct serve_conn *cn)
{
	static struct request req;
	long long t0 = now_ms();
	const char *line;
	size_t len;
	char *ans;
	long long release = 0;
	int ok;

	c->last_request_ms = t0;
	if (serve_take(cn, &line, &len) == SERVE_TOO_LONG) {
		ans = proto_error_line(M__COUNT, NULL, E_BAD_REQUEST);
		(void)send_line(cn->fd, ans);
		free(ans);
		serve_done(&c->conns, cn, 0, now_ms(), now_ms() - t0);
		return;
	}
	parser_begin(&c->parser, cn->peer.uid);	/* its peer's own worker */
	parser_parse(&c->parser, line, len, &req);
	parser_end(&c->parser);
	ans = dispatch(c, &req, &cn->peer, &release);
	explicit_bzero(&req, sizeof(req));
	if (release != 0) {
		c->last_request_ms = now_ms();
		serve_park(&c->conns, cn, ans, release, c->last_request_ms - t0);
		return;
	}
	ok = send_line(cn->fd, ans) == 0;
	free(ans);
	c->last_request_ms = now_ms();
	serve_done(&c->conns, cn, ok, c->last_request_ms,
	    c->last_request_ms - t0);
}

/* A parked answer whose quantum has come leaves now (serve.h). */
static void
send_parked(struct console *c)
{
	struct serve_conn *cn;
	char *ans;

	while ((cn = serve_due(&c->conns, now_ms(), &ans)) != NULL) {
		int ok = send_line(cn->fd, ans) == 0;

		explicit_bzero(ans, strlen(ans));
		free(ans);
		serve_done(&c->conns, cn, ok, now_ms(), 0);
	}
}

static void
collect_scrub_words(struct console *c)
{
	size_t i;

	c->nscrub = 0;
	c->scrub_words[c->nscrub++] = c->home;
	c->scrub_words[c->nscrub++] = c->pol.work_dir;
	for (i = 0; i < c->pol.nprofiles; i++) {
		struct profile *pr = &c->pol.profiles[i];
		if (pr->src == NULL || pr->kind->location_words == NULL)
			continue;
		c->nscrub += pr->kind->location_words(pr->src,
		    c->scrub_words + c->nscrub,
		    sizeof(c->scrub_words) / sizeof(c->scrub_words[0]) - c->nscrub);
	}
}

static int
load_policy(struct console *c)
{
	char edit[PATH_MAX + 64], approved[PATH_MAX + 64], why[256];
	const char *rwhy;
	char *text, *etext;
	size_t len = 0, elen = 0;

	policy_paths(c->home, edit, sizeof(edit), approved, sizeof(approved));
	text = policy_read_file(approved, &len, &rwhy);
	if (text == NULL) {
		logit("no approved policy (%s): run `lockfile policy approve` "
		    "first", rwhy);
		return -1;
	}
	if (policy_parse(text, len, c->home, &c->pol, why, sizeof(why)) != 0) {
		logit("the approved policy is invalid: %s", why);
		free(text);
		return -1;
	}
	etext = policy_read_file(edit, &elen, &rwhy);
	if (etext != NULL && (elen != len || memcmp(etext, text, len) != 0))
		term_printf(&c->term, "NOTE: %s has an unapproved edit; this "
		    "console runs the approved copy (lockfile policy approve)\n",
		    edit);
	free(etext);
	free(text);
	return 0;
}

/* The answer ledger, in a 0700 directory of its own (docs/ledger.md). A
 * torn or damaged one stops the start: the human is told where and why,
 * and nothing is reset behind their back. */
static int
open_ledger(struct console *c)
{
	struct ledger_clock clk = { ledger_clock_real, NULL };
	struct ledger_problem p;
	struct ledger_stats ls;
	struct stat st;
	enum ledger_err e;
	int dirfd, created = 0;

	if (str_fmt(c->ledger_dir, sizeof(c->ledger_dir), "%s/%s", c->home,
	    LF_HOME_LEDGER_DIR) != STR_OK) {
		logit("ledger: the home path is too long");
		return -1;
	}
	if (mkdir_p(c->ledger_dir, 0700) != 0) {
		logit_errno("ledger: %s", c->ledger_dir);
		return -1;
	}
	dirfd = open(c->ledger_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dirfd < 0 || fstat(dirfd, &st) != 0 || st.st_uid != getuid() ||
	    (st.st_mode & 0077) != 0) {
		logit("ledger: %s must be a directory of the console account, "
		    "0700", c->ledger_dir);
		if (dirfd >= 0)
			close(dirfd);
		return -1;
	}
	e = ledger_open(&c->ledger, dirfd, &clk, c->pol.ledger_window_s,
	    &created, &p);
	close(dirfd);
	if (e == LEDGER_E_TORN || e == LEDGER_E_DAMAGED) {
		logit("the answer ledger %s/%s is %s: %s", c->ledger_dir,
		    LF_LEDGER_FILE, e == LEDGER_E_TORN ? "torn" : "damaged", p.msg);
		logit("refusing to start: the ledger is never reset behind your "
		    "back. `lockfile audit --ledger` shows it; `lockfile audit "
		    "--ledger --repair` keeps the %llu whole records before the "
		    "problem (docs/ledger.md)", p.good_records);
		return -1;
	}
	if (e != LEDGER_OK) {
		logit("the answer ledger %s/%s: %s", c->ledger_dir, LF_LEDGER_FILE,
		    p.msg);
		return -1;
	}
	/* each profile's names fold as its policy says (docs/ledger.md) */
	for (size_t i = 0; i < c->pol.nprofiles; i++)
		if (ledger_set_fold(c->ledger, c->pol.profiles[i].name,
		    (enum ledger_fold)c->pol.profiles[i].key_fold) != 0)
			return -1;
	ledger_get_stats(c->ledger, &ls);
	if (created) {
		json_t *rec = json_object();
		if (created == 2)
			term_printf(&c->term, "ledger: migrated from format 1 (keys "
			    "and sha256s now kept as keyed digests)\n");
		else
			term_printf(&c->term, "ledger: new (no earlier ledger in "
			    "%s)\n", c->ledger_dir);
		json_object_set_new(rec, "event", json_string(created == 2 ?
		    "ledger_migrated" : "ledger_created"));
		if (audit_write(&c->audit, rec) != 0)
			return -1;
	} else {
		/* entries: keys and the files runs opened (docs/ledger.md) */
		term_printf(&c->term, "ledger: %zu entr%s, %zu content%s, window "
		    "%us, cap %u\n", ls.keys, ls.keys == 1 ? "y" : "ies", ls.contents,
		    ls.contents == 1 ? "" : "s", c->pol.ledger_window_s,
		    c->pol.max_answers_per_key);
	}
	return 0;
}

/* The confinement of this console (confine.h, docs/isolation.md): its
 * home, the store (execute), the workspace and the ledger's directory
 * (write), the socket's directory (unlink), each local profile's path,
 * each network profile's TCP ports, the hub's port and records, the
 * parser worker's binary, then what every console reads. The isolation
 * snapshot is taken first: our own filter would mask the container's. */
static int
confine_self(struct console *c, const char **why)
{
	struct confine_spec *s = xcalloc(1, sizeof(*s));
	struct landlock_caps caps;
	const char *swhy = NULL;
	char dir[PATH_MAX];
	size_t i;
	int r = 0, ret = -1;

	isolation_snapshot(&c->iso.snap);
	confine_spec_init(s);
	r |= confine_add(s, c->home, CONFINE_READ, 0);
	/* Landlock grants execute beneath a directory that exists now: the
	 * store root is created before the first `plugin install`, or a
	 * plugin installed later could never run in this session. */
	if (mkdir_p(c->store.root, 0700) != 0) {
		*why = "the plugin store directory cannot be created";
		goto out;
	}
	r |= confine_add(s, c->store.root, CONFINE_EXEC, 0);
	r |= confine_add(s, c->ws.root, CONFINE_WRITE, 0);
	/* the ledger's own directory: its appends, and a compaction's new
	 * file renamed over the old (never the state directory beside it,
	 * which holds the approved policy) */
	if (c->ledger_dir[0] != '\0')
		r |= confine_add(s, c->ledger_dir, CONFINE_WRITE, 0);
	if (str_dirname(c->lis.path, dir, sizeof(dir)) == STR_OK)
		r |= confine_add(s, dir, CONFINE_UNLINK, 0);
	for (i = 0; i < c->pol.nprofiles; i++) {
		const struct profile *pr = &c->pol.profiles[i];
		struct source_read_path rp[4];
		size_t j, n = 0;
		if (pr->kind->read_paths != NULL)
			n = pr->kind->read_paths(pr->table, rp, 4);
		for (j = 0; j < n; j++)
			r |= confine_add(s, rp[j].path, CONFINE_READ, 1);
		if (pr->kind->tcp_ports != NULL) {
			s->network = 1;
			if (pr->src != NULL)
				s->nports += pr->kind->tcp_ports(pr->src,
				    s->ports + s->nports,
				    CONFINE_MAX_PORTS - s->nports);
		}
	}
	/* Hub mode: TCP to the hub's port, and the pending plans' records
	 * (docs/hub.md). */
	if (c->hub.on) {
		s->network = 1;
		if (s->nports < CONFINE_MAX_PORTS)
			s->ports[s->nports++] = c->hub.port;
		r |= confine_add(s, c->hub.dir, CONFINE_WRITE, 0);
	}
	/* The parser worker is a fresh exec of lockfile-parse-worker. */
	if (c->parser.exefd >= 0)
		r |= confine_add_fd(s, c->parser.exefd, LF_EXE_PARSE_WORKER,
		    CONFINE_EXEC);
	if (r != 0 || confine_add_system(s) != 0) {
		*why = "too many paths to confine the console";
		goto out;
	}
	if (c->sb.ll.abi > 0) {
		caps = c->sb.ll;
	} else if (landlock_probe(&caps, &swhy) != 0) {
		/* No Landlock: the sandbox is unavailable too (plans are
		 * refused); the console still gets its seccomp filter. */
		term_printf(&c->term, "WARNING: no Landlock (%s): the console is "
		    "confined by seccomp only\n", swhy);
		memset(&caps, 0, sizeof(caps));
	}
	if (confine_apply(s, &caps, why) != 0)
		goto out;
	ret = 0;
out:
	confine_spec_free(s);
	free(s);
	return ret;
}

/* The hub's name for this console: --hub-instance, which `lox run
 * --instance NAME` gives (the name the operator enrolled on the hub),
 * else the policy's [hub] instance; both given, they must agree. The
 * tickets and the pending answers carry it (docs/hub.md, docs/docker.md
 * "Hub mode"). 0, or -1 after saying why. */
static int
hub_instance(struct console *c, const char *name)
{
	char *pol = c->pol.hub.instance;

	if (name == NULL) {
		if (pol[0] != '\0')
			return 0;
		logit("the policy's [hub] names no instance: start the console "
		    "with --hub-instance NAME (lox run --instance NAME does)");
		return -1;
	}
	if (!hw_text_ok(HW_T_INSTANCE, name, strlen(name))) {
		logit("--hub-instance: [a-z0-9][a-z0-9_-]{0,31}");
		return -1;
	}
	if (pol[0] != '\0' && strcmp(pol, name) != 0) {
		logit("--hub-instance %s: the approved policy's [hub] instance is "
		    "\"%s\" (remove it from the policy, or start with that name)",
		    name, pol);
		return -1;
	}
	return str_fmt(pol, sizeof(c->pol.hub.instance), "%s", name) ==
	    STR_OK ? 0 : -1;
}

static int
start(struct console *c, const char *homearg, const char *sockpath,
    const char *group, const char *uids, const char *hub_url,
    const char *hub_ca, const char *hub_inst)
{
	const char *why = NULL;
	char fp[SHA256_HEX_LEN + 1], bwhy[PATH_MAX + 128];
	struct agents_in in;
	size_t i;

	if (home_resolve(homearg, c->home, sizeof(c->home)) != 0)
		return -1;
	/* The rule doctor applies (sysconf.h): a binary another account
	 * could replace is not the console the human approved. */
	if (sysconf_check_binary(bwhy, sizeof(bwhy)) != 0) {
		logit("refusing to run: %s", bwhy);
		return -1;
	}
	/* The worker it runs, from the same directory, by the same rule. */
	if (check_fd_owner_mode(c->parser.exefd, 0, 1) != 0) {
		logit("refusing to run: " LF_EXE_PARSE_WORKER " beside it is not "
		    "root's or is writable by others (install it root-owned: make "
		    "install)");
		return -1;
	}
	if (term_open(&c->term, &why) != 0) {
		logit("%s", why);
		return -1;
	}
	c->term.intr_fd = c->sigfd;	/* a SIGTERM ends a wait for the human */
	if (load_policy(c) != 0)
		return -1;
	if (listener_open(&c->lis, sockpath, group, &why) != 0) {
		logit("socket %s: %s", sockpath, why);
		return -1;
	}
	/* Who the agents are, once (host/agents.h, the builder doctor uses
	 * too): the socket lets in these uids and the isolation checks weigh
	 * their groups. */
	in = (struct agents_in){ .console_uid = c->lis.console_uid,
	    .have_clients_gid = c->lis.have_clients_gid,
	    .clients_gid = c->lis.clients_gid,
	    .build_uids = LOCKFILE_ALLOWED_UIDS,
	    .policy_uids = c->pol.allowed_uids, .npolicy = c->pol.nallowed,
	    .cli_uids = uids };
	switch (agents_build(&in, &c->agents)) {
	case AGENTS_OK:
		break;
	case AGENTS_BAD_BUILD:
		fatal("bad build-time ALLOWED_UIDS (uids above 0, never the "
		    "console account's own)");
	case AGENTS_BAD_CLI:
		logit("--allowed-uids: a comma-separated list of uids above 0, "
		    "never the console account's own (%u)",
		    (unsigned)c->lis.console_uid);
		return -1;
	}
	for (i = 0; i < c->agents.nallowed; i++)
		ASSERT(listener_allow_uid(&c->lis, c->agents.allowed[i]) == 0);
	/* A terminal an agent could drive or read is refused outright, before
	 * anything is asked on it (hub mode's approver confirmation below);
	 * each card asks again (console_env.c). */
	if (term_human_here(&c->term, &c->agents, bwhy, sizeof(bwhy)) != 0) {
		logit("%s", bwhy);
		return -1;
	}
	if (sandbox_open(&c->sb) != 0)
		term_printf(&c->term, "WARNING: plugin sandbox unavailable (%s): "
		    "plans will be refused\n", c->sb.why);
	if (store_open(&c->store, c->home, &why) != 0) {
		logit("plugin store: %s", why);
		return -1;
	}
	if (ws_open(&c->ws, c->pol.work_dir, c->pol.max_workspace_bytes,
	    &why) != 0) {
		logit("workspace: %s", why);
		return -1;
	}
	if (audit_open(&c->audit, c->home, &why) != 0) {
		logit("audit: %s", why);
		return -1;
	}
	if (open_ledger(c) != 0)
		return -1;
	values_init(&c->values);
	for (i = 0; i < c->pol.nprofiles; i++) {
		struct profile *pr = &c->pol.profiles[i];
		if (pr->kind->open(pr->table, c->home, &pr->src, &why) != 0) {
			term_printf(&c->term, "WARNING: profile %s cannot be "
			    "opened: %s; plans on it are refused until you fix "
			    "it and restart the console\n", pr->name, why);
			pr->src = NULL;
		}
	}
	collect_scrub_words(c);
	/* Hub mode both ways or neither: a console never runs without its
	 * hub, and never approves on its own terminal a policy meant for
	 * one. Opened before the confinement (the key, the CA). */
	if ((hub_url != NULL) != c->pol.hub.set) {
		logit(hub_url != NULL ? "--hub needs the policy's [hub] "
		    "(docs/hub.md)" : "the approved policy has [hub]: start the "
		    "console with --hub URL (it never runs without its hub)");
		return -1;
	}
	if (hub_url != NULL && hub_instance(c, hub_inst) != 0)
		return -1;
	if (hub_url != NULL && console_hub_open(&c->hub, &c->pol, c->home,
	    hub_url, hub_ca, &c->term, &why) != 0) {
		logit("hub: %s", why);
		return -1;
	}
	console_env_init(c, console_audit_failed, console_ledger_failed);
	/* Everything is open: from here on the console confines itself
	 * (confine.h); nothing after this line may need a new path. */
	if (confine_self(c, &why) != 0) {
		logit("self-confinement failed: %s", why);
		return -1;
	}
	/* After the confinement, which binds only threads started later. */
	if (ws_start_deleter(&c->ws, &why) != 0) {
		logit("workspace: %s", why);
		return -1;
	}
	if (audit_start_writer(&c->audit, &why) != 0) {
		logit("audit: %s", why);
		return -1;
	}
	hex_encode(c->pol.fingerprint, SHA256_LEN, fp);
	term_printf(&c->term, "lockfile console %s: socket %s, policy %.16s, "
	    "security level %d, quantum %us, %zu profile%s\n", LOCKFILE_VERSION,
	    sockpath, fp, c->pol.security_level, c->pol.answer_quantum_s,
	    c->pol.nprofiles, c->pol.nprofiles == 1 ? "" : "s");
	if (isolation_proc_hidden(&c->agents, &c->iso, &why) != 0)
		term_printf(&c->term, "WARNING: %s: plans will be refused "
		    "(E_PROC_NOT_HIDDEN)\n", why);
	c->start_ms = c->last_request_ms = now_ms();
	c->session_end_ms = c->start_ms +
	    (long long)c->pol.session_timeout_s * 1000;
	c->methods = (struct handler_env){ .plan = &c->env, .term = &c->term,
	    .session_end_ms = c->session_end_ms };
	return 0;
}

static void
shutdown_console(struct console *c, const char *why)
{
	json_t *rec = json_object();
	int hub_idle;

	/* A refused start-up served nothing, so held no value and no file:
	 * say only why (issue 32: it announced a wipe of nothing). */
	if (c->term.fd >= 0 && strcmp(why, "start-up refused") == 0)
		term_printf(&c->term, "lockfile console: %s\n", why);
	else if (c->term.fd >= 0)
		term_printf(&c->term, "lockfile console: %s; wiping values and "
		    "deleting fetched files\n", why);
	/* No agent can connect, or time, once the listener is closed: only
	 * then the files go (deleting a larger file takes longer). */
	listener_close(&c->lis);
	ws_close(&c->ws);
	values_wipe(&c->values);
	hub_idle = console_hub_close(&c->hub);
	if (c->audit.fd >= 0) {
		json_object_set_new(rec, "method", json_string("session.end"));
		json_object_set_new(rec, "outcome", json_string(why));
		(void)audit_write(&c->audit, rec);
	} else {
		json_decref(rec);
	}
	parser_stop(&c->parser);
	sandbox_close(&c->sb);
	/* A hub ticket's thread still fetching reads its profile's source:
	 * the exit frees the policy then (docs/hub.md). */
	if (hub_idle)
		policy_free(&c->pol);
	ledger_close(c->ledger);
	c->ledger = NULL;
	audit_close(&c->audit);
	term_close(&c->term);
}

/* Every fatal path of the console ends here (lib/log.h): the socket
 * closed first, every name in the workspace removed (no lock taken, no
 * descriptor needed: it may be what ran out), the values wiped. The
 * process exit then closes what was held open. */
static struct console *dying;

static void
emergency_cleanup(void)
{
	struct console *c = dying;

	listener_close(&c->lis);
	ws_emergency(&c->ws);
	values_wipe(&c->values);
	audit_emergency(&c->audit);	/* bounded: after the files */
	if (c->term.fd >= 0)
		term_printf(&c->term, "lockfile console: fatal error; values wiped "
		    "and fetched files deleted\n");
}

/* The audit cannot be written: stop as a shutdown does (fetched files
 * deleted, values wiped), then exit 70. Never returns. */
static void
console_audit_failed(struct console *c)
{
	logit("audit write failed: stopping");
	shutdown_console(c, "the audit cannot be written");
	_exit(70);
}

/* The ledger cannot record a plan: the same stop, before the answer the
 * record was for leaves (docs/ledger.md). Never returns. */
static void
console_ledger_failed(struct console *c, const char *why)
{
	logit("the answer ledger cannot record a plan (%s): stopping", why);
	shutdown_console(c, "the ledger cannot be written");
	_exit(70);
}

int
cmd_console(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "socket", required_argument, NULL, 's' },
		{ "allowed-uids", required_argument, NULL, 'u' },
		{ "clients-group", required_argument, NULL, 'g' },
		{ "hub", required_argument, NULL, 'B' },
		{ "hub-ca", required_argument, NULL, 'C' },
		{ "hub-instance", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct console con;
	struct console *c = &con;
	const char *home = NULL, *sockpath = LF_SOCKET;
	const char *group = LF_CLIENTS_GROUP, *uids = NULL, *end = "signal";
	const char *hub_url = NULL, *hub_ca = NULL, *hub_inst = NULL;
	sigset_t mask;
	int ch, wfd = -1;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'H': home = optarg; break;
		case 's': sockpath = optarg; break;
		case 'u': uids = optarg; break;
		case 'g': group = optarg; break;
		case 'B': hub_url = optarg; break;
		case 'C': hub_ca = optarg; break;
		case 'I': hub_inst = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 64;
		}
	}
	if (optind != argc) {
		fputs(usage_text, stderr);
		return 64;
	}
	if (getuid() == 0 || geteuid() == 0) {
		logit("the console never runs as root: start it as the console "
		    "account");
		return 70;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		fatal_errno("prctl");
	close_fds_from(3);
	memset(c, 0, sizeof(*c));
	c->term.fd = c->audit.fd = c->lis.fd = c->sigfd = -1;
	dying = c;
	log_set_cleanup(emergency_cleanup);
	/* The parser workers' executable, beside ours: opened before anything
	 * could replace it, checked in start(). Each worker is a fresh exec
	 * of it (parser_worker.h). */
	if (exe_sibling_open(LF_EXE_PARSE_WORKER, &wfd) != EXE_OK)
		fatal_errno("%s (install every executable beside "
		    LF_EXE_CONSOLE ": make install)", LF_EXE_PARSE_WORKER);
	parser_start(&c->parser, wfd);

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) != 0)
		fatal_errno("sigprocmask");
	c->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (c->sigfd < 0)
		fatal_errno("signalfd");
	signal(SIGPIPE, SIG_IGN);

	if ((hub_ca != NULL || hub_inst != NULL) && hub_url == NULL) {
		fputs(usage_text, stderr);
		return 64;
	}
	if (start(c, home, sockpath, group, uids, hub_url, hub_ca, hub_inst) != 0) {
		shutdown_console(c, "start-up refused");
		return 70;
	}
	serve_init(&c->conns);
	for (;;) {
		static struct pollfd pfd[2 + SERVE_MAX_CONNS];
		static size_t slot[SERVE_MAX_CONNS];
		struct serve_conn *cn;
		long long now = now_ms();
		long long idle_end = c->last_request_ms +
		    (long long)c->pol.idle_timeout_s * 1000;
		long long next = ws_expire(&c->ws, now);
		long long dl = serve_expire(&c->conns, now);
		long long wake = idle_end < c->session_end_ms ? idle_end
		    : c->session_end_ms;
		size_t nc;
		int timeout;

		/* Every turn serves at most one request: the session's end, a
		 * signal and handle expiry are checked between any two, so a
		 * connection that never pauses neither outlives the session
		 * nor holds off a SIGTERM. */
		if (now >= c->session_end_ms) {
			end = "session timeout";
			break;
		}
		if (now >= idle_end) {
			end = "idle timeout";
			break;
		}
		if (next != 0 && next < wake)
			wake = next;
		if (dl != 0 && dl < wake)
			wake = dl;
		pfd[0] = (struct pollfd){ .fd = c->lis.fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = c->sigfd, .events = POLLIN };
		nc = serve_pollfds(&c->conns, pfd + 2, slot, SERVE_MAX_CONNS);
		timeout = serve_ready(&c->conns) ? 0 :
		    (int)(wake - now > 60000 ? 60000 : wake > now ?
		    wake - now + 1 : 0);
		if (poll(pfd, 2 + nc, timeout) < 0) {
			if (errno != EINTR)
				fatal_errno("poll");
			continue;
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(c->sigfd, &si, sizeof(si)) == sizeof(si)) {
				end = si.ssi_signo == SIGHUP ? "hang-up" : "signal";
				break;
			}
		}
		send_parked(c);
		serve_read(&c->conns, pfd + 2, slot, nc, now_ms());
		if (pfd[0].revents & POLLIN)
			accept_some(c);
		if ((cn = serve_next(&c->conns)) != NULL)
			serve_one(c, cn);
		send_parked(c);	/* due while that one was served */
	}
	if (audit_has_failed(&c->audit))	/* its SIGTERM ended the loop */
		console_audit_failed(c);
	serve_close_all(&c->conns);
	shutdown_console(c, end);
	return 0;
}
