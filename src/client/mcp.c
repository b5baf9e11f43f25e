/* `lockfile mcp`: an MCP server on stdio (newline-delimited JSON-RPC).
 *
 * Both eras are answered: the 2025-06-18 / 2025-11-25 handshake
 * (initialize, notifications/initialized) and the stateless 2026-07-28
 * form, where every request names its protocol version in _meta and
 * server/discover replaces initialize. Tool calls run concurrently in one
 * poll loop (client.h calls are state machines), so a plan that waits for
 * the human does not stop tools/list, another call or a cancellation.
 *
 * Boundary: only the closed list reaches stdout. Tool results carry the
 * checked console result or a static {"error", "hint"}; the progress
 * notification of a waiting call has a constant text and is paced by this
 * server on the quantum the status probe reported, never by anything the
 * console sends. Nothing but MCP goes to stdout; logs go to stderr. */
#include "config.h"
#include "client/client.h"
#include "client/cmd.h"
#include "client/mcp.h"
#include "client/mcp_tools.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MCP_MAX_LINE	(1024 * 1024)	/* one message from the host */
#define MCP_MAX_DEPTH	32
#define MCP_MAX_INFLIGHT 4		/* the console serves one at a time */
#define MCP_MAX_ID	256		/* bytes of a string id or token */
/* typescript-sdk#2580: a progress notification read in the same chunk as
 * the response is dropped as "unknown token"; keep them apart. */
#define MCP_PROGRESS_GAP_MS 250

#define V_MODERN	"2026-07-28"
#define V_LEGACY_LATEST	"2025-11-25"
#define META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define META_CAPS	"io.modelcontextprotocol/clientCapabilities"

static const char progress_text[] =
    "waiting for the lockfile console: a human approves every plan, and "
    "answers leave on the console's quantum";

static const char instructions[] =
    "lockfile answers yes/no questions about confidential files you cannot "
    "read. Use sources and plugins to see what you may ask, then plan. A "
    "human approves every plan on the lockfile console, so a plan can take "
    "minutes. You only ever learn bits: 1, 0, or no answer (plugin_error); "
    "never content, size, names or reasons.";

struct inflight {
	int used;
	json_t *id;		/* the host's request id */
	json_t *token;		/* progress token, or NULL */
	int modern;		/* answer with resultType */
	struct call call;
	long long interval_ms, next_tick_ms, last_progress_ms;
	json_int_t progress;
	char *response;		/* ready, waiting for the gap */
	long long respond_at_ms;
};

struct mcp {
	struct client_cfg cfg;
	int initialized;	/* the legacy handshake happened */
	int in_eof;
	int discarding;		/* an oversized line is being skipped */
	struct buf *in;
	struct inflight fl[MCP_MAX_INFLIGHT];
};

static void
send_msg(json_t *msg)
{
	char *s = jsonx_dump_line(msg);
	size_t n = strlen(s);

	/* one message, one line, one write */
	s = xreallocarray(s, n + 2, 1);
	s[n] = '\n';
	s[n + 1] = '\0';
	if (write_full(STDOUT_FILENO, s, n + 1) != 0)
		fatal_errno("stdout");
	free(s);
	json_decref(msg);
}

static json_t *
envelope(const json_t *id)
{
	json_t *m = json_object();

	json_object_set_new(m, "jsonrpc", json_string("2.0"));
	json_object_set_new(m, "id", id ? json_deep_copy(id) : json_null());
	return m;
}

static void
send_error(const json_t *id, int code, const char *message, json_t *data)
{
	json_t *m = envelope(id), *e = json_object();

	json_object_set_new(e, "code", json_integer(code));
	json_object_set_new(e, "message", json_string(message));
	if (data != NULL)
		json_object_set_new(e, "data", data);
	json_object_set_new(m, "error", e);
	send_msg(m);
}

static void
send_result(const json_t *id, json_t *result, int modern)
{
	json_t *m = envelope(id);

	if (modern)
		json_object_set_new(result, "resultType", json_string("complete"));
	json_object_set_new(m, "result", result);
	send_msg(m);
}

static json_t *
server_info(void)
{
	json_t *i = json_object();

	json_object_set_new(i, "name", json_string("lockfile"));
	json_object_set_new(i, "version", json_string(LOCKFILE_VERSION));
	return i;
}

static json_t *
capabilities(void)
{
	json_t *c = json_object();

	json_object_set_new(c, "tools", json_object());
	return c;
}

/* ---- eras ---- */

enum era { ERA_LEGACY, ERA_MODERN, ERA_REFUSED };

/* A request naming its version in _meta is of the stateless era: check
 * the fields that era requires, refusing (and answering) what is wrong. */
static enum era
request_era(const json_t *id, const json_t *params)
{
	const json_t *meta = json_is_object(params) ?
	    json_object_get(params, "_meta") : NULL;
	const json_t *ver = json_is_object(meta) ?
	    json_object_get(meta, META_VERSION) : NULL;
	json_t *data, *sup;

	if (ver == NULL)
		return ERA_LEGACY;
	if (!json_is_string(ver) ||
	    !json_is_object(json_object_get(meta, META_CAPS))) {
		send_error(id, -32602, "_meta must name the protocol version and "
		    "the client capabilities", NULL);
		return ERA_REFUSED;
	}
	if (strcmp(json_string_value(ver), V_MODERN) != 0) {
		data = json_object();
		sup = json_array();
		json_array_append_new(sup, json_string(V_MODERN));
		json_object_set_new(data, "supported", sup);
		json_object_set_new(data, "requested", json_deep_copy(ver));
		send_error(id, -32022, "unsupported protocol version", data);
		return ERA_REFUSED;
	}
	return ERA_MODERN;
}

static void
on_initialize(struct mcp *s, const json_t *id, const json_t *params)
{
	const json_t *pv = json_object_get(params, "protocolVersion");
	const char *v = V_LEGACY_LATEST;
	json_t *r;

	if (!json_is_object(params) || !json_is_string(pv)) {
		send_error(id, -32602, "initialize needs a protocolVersion", NULL);
		return;
	}
	if (strcmp(json_string_value(pv), "2025-06-18") == 0)
		v = "2025-06-18";
	r = json_object();
	json_object_set_new(r, "protocolVersion", json_string(v));
	json_object_set_new(r, "capabilities", capabilities());
	json_object_set_new(r, "serverInfo", server_info());
	json_object_set_new(r, "instructions", json_string(instructions));
	s->initialized = 1;
	send_result(id, r, 0);
}

static void
on_discover(const json_t *id)
{
	json_t *r = json_object(), *v = json_array(), *meta = json_object();

	json_array_append_new(v, json_string(V_MODERN));
	json_object_set_new(r, "supportedVersions", v);
	json_object_set_new(r, "capabilities", capabilities());
	json_object_set_new(r, "instructions", json_string(instructions));
	json_object_set_new(r, "ttlMs", json_integer(0));
	json_object_set_new(r, "cacheScope", json_string("private"));
	json_object_set_new(meta, "io.modelcontextprotocol/serverInfo",
	    server_info());
	json_object_set_new(r, "_meta", meta);
	send_result(id, r, 1);
}

static void
on_tools_list(const json_t *id, int modern)
{
	json_t *r = json_object();

	json_object_set_new(r, "tools", mcp_tools_list());
	if (modern) {
		json_object_set_new(r, "ttlMs", json_integer(0));
		json_object_set_new(r, "cacheScope", json_string("private"));
	}
	send_result(id, r, modern);
}

/* ---- tool calls ---- */

static struct inflight *
find_call(struct mcp *s, const json_t *id)
{
	size_t i;

	for (i = 0; i < MCP_MAX_INFLIGHT; i++)
		if (s->fl[i].used && json_equal(s->fl[i].id, id))
			return &s->fl[i];
	return NULL;
}

static void
free_call(struct inflight *f)
{
	call_end(&f->call);
	json_decref(f->id);
	json_decref(f->token);
	free(f->response);
	memset(f, 0, sizeof(*f));
}

static int
valid_token(const json_t *t)
{
	return json_is_integer(t) || (json_is_string(t) &&
	    json_string_length(t) <= MCP_MAX_ID);
}

static void
on_tools_call(struct mcp *s, const json_t *id, const json_t *params,
    int modern)
{
	const json_t *name = json_object_get(params, "name");
	const json_t *args = json_object_get(params, "arguments");
	const json_t *meta = json_object_get(params, "_meta");
	const json_t *token = json_is_object(meta) ?
	    json_object_get(meta, "progressToken") : NULL;
	struct inflight *f = NULL;
	enum lf_method m;
	json_t *cparams;
	const char *why;
	size_t i;

	if (!json_is_object(params) || !json_is_string(name)) {
		send_error(id, -32602, "tools/call needs a tool name", NULL);
		return;
	}
	if (token != NULL && !valid_token(token)) {
		send_error(id, -32602, "a progressToken is a string or an integer",
		    NULL);
		return;
	}
	switch (mcp_tool_params(json_string_value(name), args, &m, &cparams,
	    &why)) {
	case MCP_ARGS_OK:
		break;
	case MCP_ARGS_UNKNOWN_TOOL:
		send_error(id, -32602, "no such tool (see tools/list)", NULL);
		return;
	default:
		send_error(id, -32602, why, NULL);
		return;
	}
	if (find_call(s, id) != NULL) {
		json_decref(cparams);
		send_error(id, -32600, "a request with this id is in flight", NULL);
		return;
	}
	for (i = 0; i < MCP_MAX_INFLIGHT && f == NULL; i++)
		if (!s->fl[i].used)
			f = &s->fl[i];
	if (f == NULL) {
		/* The console serves one request at a time anyway. */
		json_decref(cparams);
		send_result(id, mcp_tool_result(CL_BUSY, E_NONE, NULL), modern);
		return;
	}
	memset(f, 0, sizeof(*f));
	f->used = 1;
	f->id = json_deep_copy(id);
	f->token = token ? json_deep_copy(token) : NULL;
	f->modern = modern;
	call_begin(&f->call, &s->cfg, m, cparams);
}

static void
on_cancelled(struct mcp *s, const json_t *params)
{
	struct inflight *f;

	if (!json_is_object(params))
		return;
	f = find_call(s, json_object_get(params, "requestId"));
	/* The result will be unused: stop waiting, send nothing. The
	 * console's card still waits for the human, who may deny it. */
	if (f != NULL)
		free_call(f);
}

/* ---- one message ---- */

static int
valid_id(const json_t *id)
{
	return json_is_integer(id) || (json_is_string(id) &&
	    json_string_length(id) <= MCP_MAX_ID);
}

void
mcp_message(struct mcp *s, const char *line, size_t len)
{
	json_t *msg = jsonx_parse(line, len, MCP_MAX_LINE, MCP_MAX_DEPTH);
	const json_t *ver, *id, *method, *params;
	const char *mname, *k;
	json_t *v;
	enum era era;

	if (msg == NULL) {
		send_error(NULL, -32700, "parse error", NULL);
		return;
	}
	if (!json_is_object(msg)) {
		send_error(NULL, -32600, "one JSON-RPC object per line", NULL);
		goto out;
	}
	ver = json_object_get(msg, "jsonrpc");
	id = json_object_get(msg, "id");
	method = json_object_get(msg, "method");
	params = json_object_get(msg, "params");
	if (method == NULL && (json_object_get(msg, "result") != NULL ||
	    json_object_get(msg, "error") != NULL))
		goto out;	/* a response: this server sends no requests */
	json_object_foreach(msg, k, v)
		if (strcmp(k, "jsonrpc") != 0 && strcmp(k, "id") != 0 &&
		    strcmp(k, "method") != 0 && strcmp(k, "params") != 0) {
			send_error(valid_id(id) ? id : NULL, -32600,
			    "unknown member in the request", NULL);
			goto out;
		}
	if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0 ||
	    !json_is_string(method) || (params != NULL &&
	    !json_is_object(params)) || (id != NULL && !valid_id(id))) {
		/* Silence is for a well-formed notification only (JSON-RPC 2.0:
		 * an invalid request is answered, with id null when it has
		 * none or a bad one). */
		if (id != NULL || !json_is_string(ver) ||
		    strcmp(json_string_value(ver), "2.0") != 0 ||
		    !json_is_string(method))
			send_error(valid_id(id) ? id : NULL, -32600,
			    "not a JSON-RPC 2.0 request", NULL);
		goto out;
	}
	mname = json_string_value(method);
	if (id == NULL) {
		/* notifications: never answered */
		if (strcmp(mname, "notifications/cancelled") == 0)
			on_cancelled(s, params);
		goto out;
	}
	if (strcmp(mname, "initialize") == 0) {
		on_initialize(s, id, params);
		goto out;
	}
	era = request_era(id, params);
	if (era == ERA_REFUSED)
		goto out;
	if (strcmp(mname, "server/discover") == 0) {
		if (era != ERA_MODERN)
			send_error(id, -32602, "server/discover needs _meta with "
			    "the protocol version (" V_MODERN ")", NULL);
		else
			on_discover(id);
		goto out;
	}
	if (era == ERA_LEGACY && strcmp(mname, "ping") == 0) {
		send_result(id, json_object(), 0);
		goto out;
	}
	if (era == ERA_LEGACY && !s->initialized) {
		send_error(id, -32602, "initialize first, or name the protocol "
		    "version in _meta", NULL);
		goto out;
	}
	if (strcmp(mname, "tools/list") == 0)
		on_tools_list(id, era == ERA_MODERN);
	else if (strcmp(mname, "tools/call") == 0)
		on_tools_call(s, id, params, era == ERA_MODERN);
	else
		send_error(id, -32601, "method not found", NULL);
out:
	json_decref(msg);
}

/* Read what stdin has; handle every whole line. */
static void
read_input(struct mcp *s)
{
	char chunk[65536];
	ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
	size_t off = 0;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		s->in_eof = 1;
		return;
	}
	while (off < (size_t)n) {
		char *nl = memchr(chunk + off, '\n', (size_t)n - off);
		size_t take = nl ? (size_t)(nl - (chunk + off)) : (size_t)n - off;

		if (!s->discarding && buf_append(s->in, chunk + off, take) != 0) {
			/* Over the cap: skip to the end of this line. */
			s->discarding = 1;
			buf_reset(s->in);
		}
		off += take;
		if (nl == NULL)
			break;
		off++;	/* the newline */
		if (s->discarding) {
			s->discarding = 0;
			send_error(NULL, -32700, "message too large", NULL);
			continue;
		}
		{
			size_t len = buf_len(s->in);
			const char *l = buf_str(s->in);
			if (len > 0 && l[len - 1] == '\r')
				len--;
			if (len > 0)
				mcp_message(s, l, len);
			buf_reset(s->in);
		}
	}
}

/* ---- progress and answers ---- */

static void
maybe_progress(struct inflight *f, long long now)
{
	json_t *m, *p;

	if (f->token == NULL || f->response != NULL || !call_in_main(&f->call))
		return;
	if (f->interval_ms == 0) {
		/* On the quantum, at most every 30 s so a host's timeout
		 * that resets on progress never runs out. */
		long long q = f->call.quantum_s ? f->call.quantum_s : 1;
		long long k = (q + 29) / 30;
		f->interval_ms = q * 1000 / k;
		f->next_tick_ms = f->call.main_start_ms + f->interval_ms;
	}
	if (now < f->next_tick_ms)
		return;
	m = json_object();
	p = json_object();
	json_object_set_new(m, "jsonrpc", json_string("2.0"));
	json_object_set_new(m, "method", json_string("notifications/progress"));
	json_object_set_new(p, "progressToken", json_deep_copy(f->token));
	json_object_set_new(p, "progress", json_integer(++f->progress));
	json_object_set_new(p, "message", json_string(progress_text));
	json_object_set_new(m, "params", p);
	send_msg(m);
	f->last_progress_ms = now;
	while (f->next_tick_ms <= now)
		f->next_tick_ms += f->interval_ms;
}

static void
step_call(struct inflight *f, short revents)
{
	long long now;

	if (f->response == NULL && call_step(&f->call, revents)) {
		json_t *m = envelope(f->id), *r;
		r = mcp_tool_result(f->call.outcome, f->call.err, f->call.result);
		if (f->modern)
			json_object_set_new(r, "resultType", json_string("complete"));
		json_object_set_new(m, "result", r);
		f->response = jsonx_dump_line(m);
		json_decref(m);
		f->respond_at_ms = f->last_progress_ms ?
		    f->last_progress_ms + MCP_PROGRESS_GAP_MS : 0;
	}
	now = now_ms();
	if (f->response != NULL) {
		if (now >= f->respond_at_ms) {
			size_t n = strlen(f->response);
			f->response = xreallocarray(f->response, n + 2, 1);
			memcpy(f->response + n, "\n", 2);
			if (write_full(STDOUT_FILENO, f->response, n + 1) != 0)
				fatal_errno("stdout");
			free_call(f);
		}
		return;
	}
	maybe_progress(f, now);
}

static void
serve(struct mcp *s)
{
	for (;;) {
		struct pollfd pfd[1 + MCP_MAX_INFLIGHT];
		int slot[1 + MCP_MAX_INFLIGHT];
		long long now = now_ms(), wake = now + 60000;
		nfds_t n = 0;
		size_t i;

		int inflight = 0;

		/* stdin closed: answer the calls in flight, then exit (a host
		 * that will not wait sends SIGTERM, which ends the process) */
		pfd[n].fd = s->in_eof ? -1 : STDIN_FILENO;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		slot[n++] = -1;
		for (i = 0; i < MCP_MAX_INFLIGHT; i++) {
			struct inflight *f = &s->fl[i];
			if (!f->used)
				continue;
			inflight = 1;
			if (f->response != NULL) {
				if (f->respond_at_ms < wake)
					wake = f->respond_at_ms;
				continue;
			}
			call_poll(&f->call, &pfd[n], &wake);
			if (f->token != NULL && f->next_tick_ms != 0 &&
			    f->next_tick_ms < wake)
				wake = f->next_tick_ms;
			if (pfd[n].fd >= 0)
				slot[n++] = (int)i;
		}
		if (s->in_eof && !inflight)
			return;
		if (poll(pfd, n, wake > now ? (int)(wake - now) : 0) < 0) {
			if (errno == EINTR)
				continue;
			fatal_errno("poll");
		}
		if (!s->in_eof && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			read_input(s);
		for (i = 0; i < MCP_MAX_INFLIGHT; i++) {
			nfds_t j;
			short rev = 0;
			if (!s->fl[i].used)
				continue;
			for (j = 1; j < n; j++)
				if (slot[j] == (int)i)
					rev = pfd[j].revents;
			step_call(&s->fl[i], rev);
		}
	}
}

struct mcp *
mcp_new(const struct client_cfg *cfg)
{
	struct mcp *s = xcalloc(1, sizeof(*s));

	s->cfg = *cfg;
	s->in = buf_new(MCP_MAX_LINE);
	return s;
}

void
mcp_free(struct mcp *s)
{
	size_t i;

	for (i = 0; i < MCP_MAX_INFLIGHT; i++)
		if (s->fl[i].used)
			free_call(&s->fl[i]);
	buf_free(s->in);
	free(s);
}

static const char usage_text[] =
"usage: lockfile mcp [--socket PATH] [--wait SECONDS]\n"
"\n"
"An MCP server on stdio for an agent host (docs/mcp.md). Its tools (status,\n"
"sources, plugins, plan, run, release, request_change) talk to the console\n"
"socket and return only what the closed list allows. Give the host a long\n"
"tool timeout: a human approves every plan.\n"
"  --socket PATH   the console socket (default $LOCKFILE_SOCKET, else\n"
"                  /run/lockfile/lockfile.sock)\n"
"  --wait SECONDS  how long a plan waits for the human and the quantum\n"
"                  (default $LOCKFILE_WAIT, else 900)\n"
"Exit status: 0 when stdin has closed and the calls in flight are answered,\n"
"64 usage.\n";

int
cmd_mcp(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_cfg cfg;
	struct mcp *s;
	const char *sock = NULL, *wait = NULL, *why;
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 's': sock = optarg; break;
		case 'w': wait = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (client_cfg_init(&cfg, sock, wait, &why) != 0) {
		logit("%s", why);
		return EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	s = mcp_new(&cfg);
	serve(s);
	mcp_free(s);
	return 0;
}
