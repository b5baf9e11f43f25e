/* The agent-side commands: status, sources, plugins, ask (plan), run,
 * release, request-change. Each parses its flags, builds its params
 * (params.h), makes one call (client.h) and prints what the call ended in:
 * text composed from checked values (text.h), or with --json one JSON
 * object, {"result": ...} or {"error": CODE, "hint": HINT}. The exit status
 * depends on the outcome only, never on an answer (docs/client.md). */
#include "client/client.h"
#include "client/cmd.h"
#include "client/params.h"
#include "client/text.h"
#include "lib/jsonx.h"
#include "lib/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char common_help[] =
"  --socket PATH   the console socket (default $LOCKFILE_SOCKET, else\n"
"                  /run/lockfile/lockfile.sock)\n"
"  --json          print one JSON object instead of text\n"
"  --help          this text\n";

static const char exit_help[] =
"Exit status: 0 answered (whatever the answers), 1 refused with an E_* code,\n"
"2 console error, 3 busy, 4 unreachable, 5 timeout, 64 usage.\n";

static const char wait_help[] =
"  --wait SECONDS  how long to wait for the human and the quantum (default\n"
"                  $LOCKFILE_WAIT, else 900)\n";

struct cli {
	const char *name;
	const char *usage;	/* first lines of --help */
	int want_wait;
	struct client_cfg cfg;
	int json;
};

enum {
	O_SOCKET = 256, O_JSON, O_WAIT, O_HELP, O_PROFILE, O_KEY, O_HANDLE,
	O_PLUGIN,
};

static int
usage(const struct cli *c, FILE *f, int code)
{
	fputs(c->usage, f);
	fputs(common_help, f);
	if (c->want_wait)
		fputs(wait_help, f);
	fputs(exit_help, f);
	return code;
}

static int
usage_error(const struct cli *c, const char *why)
{
	logit("%s (see lockfile %s --help)", why, c->name);
	return EXIT_USAGE;
}

/* Print what a call ended in; returns its exit status. */
static int
report(struct cli *c, enum lf_method m, const struct call *call)
{
	int code = outcome_exit(call->outcome);

	if (c->json) {
		json_t *doc;
		char *s;
		if (call->outcome == CL_RESULT) {
			doc = json_object();
			json_object_set(doc, "result", call->result);
		} else {
			doc = outcome_error_json(call->outcome, call->err);
		}
		s = jsonx_dump_line(doc);
		printf("%s\n", s);
		free(s);
		json_decref(doc);
	} else if (call->outcome == CL_RESULT) {
		text_result(stdout, m, call->result);
	} else {
		text_failure(stderr, call->outcome, call->err);
	}
	if (fflush(stdout) != 0)
		fatal_errno("stdout");
	return code;
}

/* Make the call and print what it ended in. */
static int
finish(struct cli *c, enum lf_method m, json_t *params)
{
	struct call call;
	int code;

	call_begin(&call, &c->cfg, m, params);
	call_run(&call);
	code = report(c, m, &call);
	call_end(&call);
	return code;
}

/* The flags every command takes, plus the command's own (extra, handled by
 * onopt). Returns -1 to go on, or an exit status. */
static int
parse(struct cli *c, int argc, char **argv, const struct option *extra,
    size_t nextra, int (*onopt)(void *, int, const char *), void *arg)
{
	struct option opts[16];
	const char *sock = NULL, *wait = NULL, *why;
	size_t n = 0, i;
	int ch;

	opts[n++] = (struct option){ "socket", required_argument, NULL, O_SOCKET };
	opts[n++] = (struct option){ "json", no_argument, NULL, O_JSON };
	opts[n++] = (struct option){ "help", no_argument, NULL, O_HELP };
	if (c->want_wait)
		opts[n++] = (struct option){ "wait", required_argument, NULL,
		    O_WAIT };
	for (i = 0; i < nextra && n < 15; i++)
		opts[n++] = extra[i];
	opts[n] = (struct option){ NULL, 0, NULL, 0 };

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case O_SOCKET:
			sock = optarg;
			break;
		case O_JSON:
			c->json = 1;
			break;
		case O_WAIT:
			wait = optarg;
			break;
		case O_HELP:
			return usage(c, stdout, 0);
		default:
			if (onopt != NULL && ch >= O_PROFILE) {
				int r = onopt(arg, ch, optarg);
				if (r >= 0)
					return r;
				break;
			}
			return usage_error(c, "unknown or incomplete option");
		}
	}
	if (client_cfg_init(&c->cfg, sock, wait, &why) != 0)
		return usage_error(c, why);
	return -1;
}


/* ---- status, sources, plugins ---- */

static int
on_profile(void *arg, int ch, const char *val)
{
	*(const char **)arg = val;
	return -1;
}

int
cmd_client_status(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "profile", required_argument, NULL, O_PROFILE },
	};
	struct cli c = { .name = "status", .usage =
	    "usage: lockfile status [--profile P] [--socket PATH] [--json]\n\n"
	    "Is the console up, and how is it set? Reports busy when it does not\n"
	    "answer within 2 s (it is serving another request). With --profile,\n"
	    "that profile's production flag (the answer must name the profile).\n"
	    "\n" };
	const char *profile = NULL, *why;
	json_t *params;
	int r;

	if ((r = parse(&c, argc, argv, extra, 1, on_profile, &profile)) >= 0)
		return r;
	if (optind != argc)
		return usage_error(&c, "status takes no arguments");
	params = params_status(profile, &why);
	if (params == NULL && why != NULL)
		return usage_error(&c, why);
	return finish(&c, M_STATUS, params);
}

static int
no_args(int argc, char **argv, struct cli *c, enum lf_method m)
{
	int r;

	if ((r = parse(c, argc, argv, NULL, 0, NULL, NULL)) >= 0)
		return r;
	if (optind != argc)
		return usage_error(c, "this command takes no arguments");
	return finish(c, m, NULL);
}

int
cmd_client_sources(int argc, char **argv)
{
	struct cli c = { .name = "sources", .usage =
	    "usage: lockfile sources [--socket PATH] [--json]\n\n"
	    "The profiles a plan may name, with their production flag. Never\n"
	    "lists files.\n\n" };

	return no_args(argc, argv, &c, M_SOURCES);
}

int
cmd_client_plugins(int argc, char **argv)
{
	struct cli c = { .name = "plugins", .usage =
	    "usage: lockfile plugins [--socket PATH] [--json]\n\n"
	    "The installed plugins, from their signed manifests: each answers one\n"
	    "yes/no question about a file (its question, what 1 and 0 mean, its\n"
	    "inputs).\n\n" };

	return no_args(argc, argv, &c, M_FILE_PLUGINS);
}

/* ---- ask ---- */

struct ask {
	const char *profile, *key, *handle;
	json_t *plugins;
	const char *why;
};

static int
on_ask(void *arg, int ch, const char *val)
{
	struct ask *a = arg;

	switch (ch) {
	case O_PROFILE:
		a->profile = val;
		break;
	case O_KEY:
		a->key = val;
		break;
	case O_HANDLE:
		a->handle = val;
		break;
	case O_PLUGIN:
		if (params_plugin_spec(a->plugins, val, &a->why) != 0)
			return EXIT_USAGE;
		break;
	default:
		return EXIT_USAGE;
	}
	return -1;
}

int
cmd_client_ask(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "key", required_argument, NULL, O_KEY },
		{ "handle", required_argument, NULL, O_HANDLE },
		{ "plugin", required_argument, NULL, O_PLUGIN },
	};
	struct cli c = { .name = "ask", .want_wait = 1, .usage =
	    "usage: lockfile ask (--profile P --key K | --handle H)\n"
	    "                    --plugin NAME[@VERSION][:INPUT=${placeholder},...]...\n"
	    "                    [--wait SECONDS] [--socket PATH] [--json]\n\n"
	    "Ask yes/no questions about one file you cannot read. A human approves\n"
	    "the plan on the console first; this waits for the decision. You get\n"
	    "only bits: per plugin 1, 0 or no answer (plugin_error), and a handle\n"
	    "to ask more about the same file. Inputs are placeholders: the human\n"
	    "types their values on the console; you never see them. INPUT may be\n"
	    "\"input\" for a plugin's only input, whatever its name.\n\n" };
	struct ask a = { 0 };
	json_t *params;
	int r;

	a.plugins = json_array();
	r = parse(&c, argc, argv, extra, 4, on_ask, &a);
	if (r >= 0) {
		json_decref(a.plugins);
		return r == EXIT_USAGE && a.why ? usage_error(&c, a.why) : r;
	}
	if (optind != argc) {
		json_decref(a.plugins);
		return usage_error(&c, "ask takes no arguments besides its flags");
	}
	if (params_needs_manifests(a.plugins)) {
		/* ":input=${x}" names a plugin's only input: ask which it is */
		struct call pc;
		call_begin(&pc, &c.cfg, M_FILE_PLUGINS, NULL);
		call_run(&pc);
		if (pc.outcome != CL_RESULT) {
			r = report(&c, M_FILE_PLUGINS, &pc);
			call_end(&pc);
			json_decref(a.plugins);
			return r;
		}
		params_bind_only_inputs(a.plugins, pc.result);
		call_end(&pc);
	}
	params = params_plan(a.profile, a.key, a.handle, a.plugins, &a.why);
	if (params == NULL)
		return usage_error(&c, a.why);
	return finish(&c, M_FILE_PLAN, params);
}

/* ---- run, release, request-change: one argument ---- */

static int
one_arg(int argc, char **argv, struct cli *c, const char **arg)
{
	int r;

	if ((r = parse(c, argc, argv, NULL, 0, NULL, NULL)) >= 0)
		return r;
	if (optind + 1 != argc)
		return usage_error(c, "this command takes exactly one argument");
	*arg = argv[optind];
	return -1;
}

int
cmd_client_run(int argc, char **argv)
{
	struct cli c = { .name = "run", .want_wait = 1, .usage =
	    "usage: lockfile run PLAN [--wait SECONDS] [--socket PATH] [--json]\n\n"
	    "Hub mode: run a plan (pl_...) the human approved remotely, and get\n"
	    "its answers. A local console refuses it with E_BAD_REQUEST.\n\n" };
	const char *plan, *why;
	json_t *params;
	int r;

	if ((r = one_arg(argc, argv, &c, &plan)) >= 0)
		return r;
	if ((params = params_run(plan, &why)) == NULL)
		return usage_error(&c, why);
	return finish(&c, M_FILE_RUN, params);
}

int
cmd_client_release(int argc, char **argv)
{
	struct cli c = { .name = "release", .usage =
	    "usage: lockfile release HANDLE [--socket PATH] [--json]\n\n"
	    "Delete the console's copy of a fetched file (f_...). The answer\n"
	    "waits for the console's quantum.\n\n" };
	const char *handle, *why;
	json_t *params;
	int r;

	if ((r = one_arg(argc, argv, &c, &handle)) >= 0)
		return r;
	if ((params = params_release(handle, &why)) == NULL)
		return usage_error(&c, why);
	return finish(&c, M_FILE_RELEASE, params);
}

int
cmd_client_request_change(int argc, char **argv)
{
	struct cli c = { .name = "request-change", .usage =
	    "usage: lockfile request-change TEXT [--socket PATH] [--json]\n\n"
	    "Queue a text for the human (a plugin to install, a profile to add).\n"
	    "Nothing installs, trusts or loosens through this.\n\n" };
	const char *text, *why;
	json_t *params;
	int r;

	if ((r = one_arg(argc, argv, &c, &text)) >= 0)
		return r;
	if ((params = params_change(text, strlen(text), &why)) == NULL)
		return usage_error(&c, why);
	return finish(&c, M_CHANGE_REQUEST, params);
}
