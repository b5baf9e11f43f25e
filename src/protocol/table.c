/* The closed list itself (see table.h). Keep docs/protocol.md in step. */
#include "protocol/table.h"
#include "lib/log.h"

#include <string.h>

static const struct proto_error errors[E__COUNT] = {
	[E_BAD_REQUEST] = { "E_BAD_REQUEST", -32600,
	    "the request is not valid JSON-RPC for this console" },
	[E_PEER_REFUSED] = { "E_PEER_REFUSED", -32001,
	    "this account may not use the console" },
	[E_SANDBOX_UNAVAILABLE] = { "E_SANDBOX_UNAVAILABLE", -32002,
	    "the plugin sandbox is unavailable on this console" },
	[E_PROC_NOT_HIDDEN] = { "E_PROC_NOT_HIDDEN", -32003,
	    "plugin processes would be visible to other accounts" },
	[E_UNKNOWN_PROFILE] = { "E_UNKNOWN_PROFILE", -32010,
	    "no such profile" },
	[E_KEY_OUTSIDE_PREFIX] = { "E_KEY_OUTSIDE_PREFIX", -32011,
	    "the key is outside the profile's prefix" },
	[E_TOO_MANY_PLUGINS] = { "E_TOO_MANY_PLUGINS", -32012,
	    "the plan asks for more answers than the handle allows" },
	[E_PLUGIN_NOT_INSTALLED] = { "E_PLUGIN_NOT_INSTALLED", -32013,
	    "a plugin of the plan is not installed" },
	[E_PLUGIN_TAMPERED] = { "E_PLUGIN_TAMPERED", -32014,
	    "a plugin of the plan does not match its recorded hashes" },
	[E_PLUGIN_YANKED] = { "E_PLUGIN_YANKED", -32015,
	    "a plugin of the plan is a withdrawn version" },
	[E_LITERAL_INPUT] = { "E_LITERAL_INPUT", -32016,
	    "plugin inputs must be placeholders like ${name}" },
	[E_INPUT_INVALID] = { "E_INPUT_INVALID", -32017,
	    "a typed value does not fit its input" },
	[E_ANSWER_CAP] = { "E_ANSWER_CAP", -32018,
	    "the plan would take this agent past its answer cap for the key" },
	[E_HANDLE_EXPIRED] = { "E_HANDLE_EXPIRED", -32020,
	    "the handle is unknown, expired or used up" },
	[E_FETCH_FAILED] = { "E_FETCH_FAILED", -32021,
	    "the file could not be fetched" },
	[E_STALE] = { "E_STALE", -32022,
	    "the file changed since the approval" },
	[E_APPROVAL_DENIED] = { "E_APPROVAL_DENIED", -32030,
	    "the human denied the plan" },
	[E_APPROVAL_TIMEOUT] = { "E_APPROVAL_TIMEOUT", -32031,
	    "the human did not decide in time" },
	/* hub mode: one agent's share of the console's ticket table
	 * (docs/hub.md, "The console's side") */
	[E_TOO_MANY_PENDING] = { "E_TOO_MANY_PENDING", -32032,
	    "this agent has too many plans waiting for a decision" },
};

/* ---- result shapes ---- */

#define FIELD(k, req, sh) { k, req, sh }
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct shape s_bool = { .kind = SK_BOOL };
static const struct shape s_true = { .kind = SK_TRUE };
static const struct shape s_bit = { .kind = SK_BIT };
static const struct shape s_name = { .kind = SK_NAME };
static const struct shape s_profile = { .kind = SK_PROFILE };
static const struct shape s_input_name = { .kind = SK_INPUT_NAME };
static const struct shape s_version = { .kind = SK_VERSION };
static const struct shape s_text = { .kind = SK_TEXT,
    .max = PROTO_MAX_MANIFEST_TEXT };
static const struct shape s_seconds = { .kind = SK_INT, .min = 0,
    .max = 31L * 24 * 3600 };
static const struct shape s_quantum = { .kind = SK_INT, .min = 1, .max = 3600 };
static const struct shape s_level = { .kind = SK_INT, .min = 0, .max = 1 };
static const struct shape s_protocol = { .kind = SK_INT,
    .min = LF_PLUGIN_PROTOCOL_MIN, .max = LF_PLUGIN_PROTOCOL_MAX };
static const struct shape s_max_bytes = { .kind = SK_INT, .min = 1,
    .max = LF_PLUGIN_VALUE_MAX };
static const struct shape s_plan_id = { .kind = SK_ID,
    .prefix = PROTO_PREFIX_PLAN };
static const struct shape s_handle = { .kind = SK_ID,
    .prefix = PROTO_PREFIX_HANDLE };
static const struct shape s_ticket = { .kind = SK_ID,
    .prefix = PROTO_PREFIX_TICKET };

static const char *const v_up[] = { "up", NULL };
static const char *const v_sandbox[] = { "ok", "unavailable", NULL };
static const char *const v_warning[] = { "unofficial_marketplace", NULL };
static const char *const v_kind[] = { "text", "email", NULL };
static const char *const v_plugin_error[] = { "plugin_error", NULL };
static const struct shape s_up = { .kind = SK_ENUM, .values = v_up };
static const struct shape s_sandbox = { .kind = SK_ENUM, .values = v_sandbox };
static const struct shape s_warning = { .kind = SK_ENUM, .values = v_warning };
static const struct shape s_kind = { .kind = SK_ENUM, .values = v_kind };
static const struct shape s_plugin_error = { .kind = SK_ENUM,
    .values = v_plugin_error };

/* status */
static const struct shape s_protocols = { .kind = SK_ARRAY,
    .items = &s_protocol,
    .max_items = LF_PLUGIN_PROTOCOL_MAX - LF_PLUGIN_PROTOCOL_MIN + 1 };
static const struct shape_field f_status[] = {
	FIELD("console", 1, &s_up),
	FIELD("production", 1, &s_bool),
	FIELD("security_level", 1, &s_level),
	FIELD("idle_timeout_s", 1, &s_seconds),
	FIELD("session_left_s", 1, &s_seconds),
	FIELD("plugin_protocol", 1, &s_protocols),
	FIELD("sandbox", 1, &s_sandbox),
	FIELD("answer_quantum_s", 1, &s_quantum),
	FIELD("profile", 0, &s_profile),	/* only when asked for one */
};
static const struct shape s_status = { .kind = SK_OBJECT,
    .fields = f_status, .nfields = N(f_status) };

/* sources */
static const struct shape_field f_source[] = {
	FIELD("profile", 1, &s_profile),
	FIELD("production", 1, &s_bool),
};
static const struct shape s_source = { .kind = SK_OBJECT,
    .fields = f_source, .nfields = N(f_source) };
static const struct shape s_source_list = { .kind = SK_ARRAY,
    .items = &s_source, .max_items = PROTO_MAX_LIST };
static const struct shape_field f_sources[] = {
	FIELD("sources", 1, &s_source_list),
};
static const struct shape s_sources = { .kind = SK_OBJECT,
    .fields = f_sources, .nfields = N(f_sources) };

/* file.plugins */
static const struct shape_field f_input[] = {
	FIELD("name", 1, &s_input_name),
	FIELD("kind", 1, &s_kind),
	FIELD("max_bytes", 1, &s_max_bytes),
};
static const struct shape s_input = { .kind = SK_OBJECT,
    .fields = f_input, .nfields = N(f_input) };
static const struct shape s_inputs = { .kind = SK_ARRAY, .items = &s_input,
    .max_items = PROTO_MAX_INPUTS };
static const struct shape_field f_plugin[] = {
	FIELD("name", 1, &s_name),
	FIELD("version", 1, &s_version),
	FIELD("official", 1, &s_bool),
	FIELD("warning", 0, &s_warning),	/* iff not official */
	FIELD("question", 1, &s_text),
	FIELD("one", 1, &s_text),
	FIELD("zero", 1, &s_text),
	FIELD("protocol", 1, &s_protocol),
	FIELD("inputs", 1, &s_inputs),
};
static const struct shape s_plugin = { .kind = SK_OBJECT,
    .fields = f_plugin, .nfields = N(f_plugin) };
static const struct shape s_plugin_list = { .kind = SK_ARRAY,
    .items = &s_plugin, .max_items = PROTO_MAX_LIST };
static const struct shape_field f_plugins[] = {
	FIELD("plugins", 1, &s_plugin_list),
};
static const struct shape s_plugins = { .kind = SK_OBJECT,
    .fields = f_plugins, .nfields = N(f_plugins) };

/* file.plan (and file.run: the same answer shape) */
static const struct shape_field f_answer[] = {
	FIELD("plugin", 1, &s_name),
	FIELD("version", 1, &s_version),
	FIELD("result", 1, &s_bit),
	FIELD("error", 0, &s_plugin_error),	/* iff result is null */
};
static const struct shape s_answer = { .kind = SK_OBJECT,
    .fields = f_answer, .nfields = N(f_answer) };
static const struct shape s_answers = { .kind = SK_ARRAY, .items = &s_answer,
    .max_items = PROTO_MAX_PLUGINS };
static const struct shape s_held = { .kind = SK_ARRAY, .items = &s_input_name,
    .max_items = PROTO_MAX_PLUGINS * PROTO_MAX_INPUTS };
static const struct shape_field f_plan[] = {
	FIELD("plan", 1, &s_plan_id),
	FIELD("handle", 1, &s_handle),
	FIELD("answers", 1, &s_answers),
	FIELD("held_inputs", 1, &s_held),
};
static const struct shape s_plan = { .kind = SK_OBJECT,
    .fields = f_plan, .nfields = N(f_plan) };

/* file.plan and file.run in hub mode: the plan waits on lockhub. */
static const char *const v_pending[] = { "pending", NULL };
static const char *const v_lock[] = { "lockfile", NULL };
static const char *const v_pending_text[] = { PROTO_PENDING_TEXT, NULL };
static const struct shape s_status_pending = { .kind = SK_ENUM,
    .values = v_pending };
static const struct shape s_lock = { .kind = SK_ENUM, .values = v_lock };
static const struct shape s_pending_text = { .kind = SK_ENUM,
    .values = v_pending_text };
static const struct shape_field f_pending[] = {
	FIELD("status", 1, &s_status_pending),
	FIELD("plan", 1, &s_plan_id),
	FIELD("ticket", 1, &s_ticket),
	FIELD("lock", 1, &s_lock),
	FIELD("instance", 1, &s_profile),
	FIELD("text", 1, &s_pending_text),
};
static const struct shape s_pending = { .kind = SK_OBJECT,
    .fields = f_pending, .nfields = N(f_pending) };

/* file.release, change.request */
static const struct shape_field f_released[] = {
	FIELD("released", 1, &s_true),
};
static const struct shape s_released = { .kind = SK_OBJECT,
    .fields = f_released, .nfields = N(f_released) };
static const struct shape_field f_queued[] = {
	FIELD("queued", 1, &s_true),
};
static const struct shape s_queued = { .kind = SK_OBJECT,
    .fields = f_queued, .nfields = N(f_queued) };

/* ---- which errors each method may answer ---- */

static const enum lf_err err_none[] = { E_BAD_REQUEST, E_PEER_REFUSED };
static const enum lf_err err_status[] = { E_BAD_REQUEST, E_PEER_REFUSED,
	E_UNKNOWN_PROFILE };
static const enum lf_err err_plan[] = {
	E_BAD_REQUEST, E_PEER_REFUSED, E_LITERAL_INPUT, E_UNKNOWN_PROFILE,
	E_KEY_OUTSIDE_PREFIX, E_PLUGIN_NOT_INSTALLED, E_PLUGIN_YANKED,
	E_PLUGIN_TAMPERED, E_TOO_MANY_PLUGINS, E_SANDBOX_UNAVAILABLE,
	E_PROC_NOT_HIDDEN, E_HANDLE_EXPIRED, E_INPUT_INVALID, E_ANSWER_CAP,
	E_APPROVAL_DENIED, E_APPROVAL_TIMEOUT, E_FETCH_FAILED,
	E_TOO_MANY_PENDING,
};
static const enum lf_err err_release[] = {
	E_BAD_REQUEST, E_PEER_REFUSED, E_HANDLE_EXPIRED,
};

/* file.run (hub mode): everything a plan may answer once its human has
 * decided, E_STALE, the content that changed since the approval, and
 * E_TOO_MANY_PLUGINS, another plan on the handle that ran since its
 * ticket (the bounds asked again at the run, plan_steps.c's plan_bounds). */
static const enum lf_err err_run[] = {
	E_BAD_REQUEST, E_PEER_REFUSED, E_PLUGIN_NOT_INSTALLED, E_PLUGIN_YANKED,
	E_PLUGIN_TAMPERED, E_TOO_MANY_PLUGINS, E_SANDBOX_UNAVAILABLE,
	E_PROC_NOT_HIDDEN, E_HANDLE_EXPIRED, E_INPUT_INVALID, E_ANSWER_CAP,
	E_APPROVAL_DENIED, E_APPROVAL_TIMEOUT, E_FETCH_FAILED, E_STALE,
	E_TOO_MANY_PENDING,
};

static const struct proto_method methods[M__COUNT] = {
	[M_STATUS] = { .name = "status", .result = &s_status,
	    .errors = err_status, .nerrors = N(err_status) },
	[M_SOURCES] = { .name = "sources", .result = &s_sources,
	    .errors = err_none, .nerrors = N(err_none) },
	[M_FILE_PLUGINS] = { .name = "file.plugins", .result = &s_plugins,
	    .errors = err_none, .nerrors = N(err_none) },
	[M_FILE_PLAN] = { .name = "file.plan", .result = &s_plan,
	    .pending = &s_pending, .errors = err_plan, .nerrors = N(err_plan) },
	/* Hub mode only; a local console answers E_BAD_REQUEST. */
	[M_FILE_RUN] = { .name = "file.run", .result = &s_plan,
	    .pending = &s_pending, .errors = err_run, .nerrors = N(err_run) },
	[M_FILE_RELEASE] = { .name = "file.release", .result = &s_released,
	    .errors = err_release, .nerrors = N(err_release) },
	[M_CHANGE_REQUEST] = { .name = "change.request", .result = &s_queued,
	    .errors = err_none, .nerrors = N(err_none) },
};

const struct proto_error *
proto_error(enum lf_err e)
{
	ASSERT(e > E_NONE && e < E__COUNT);
	return &errors[e];
}

enum lf_err
proto_error_by_name(const char *name)
{
	int e;

	for (e = E_NONE + 1; e < E__COUNT; e++)
		if (strcmp(errors[e].name, name) == 0)
			return (enum lf_err)e;
	return E_NONE;
}

const struct proto_method *
proto_method(enum lf_method m)
{
	ASSERT(m >= 0 && m < M__COUNT);
	return &methods[m];
}

enum lf_method
proto_method_by_name(const char *name)
{
	int m;

	for (m = 0; m < M__COUNT; m++)
		if (strcmp(methods[m].name, name) == 0)
			return (enum lf_method)m;
	return M__COUNT;
}

int
proto_method_may_fail(enum lf_method m, enum lf_err e)
{
	const struct proto_method *pm = proto_method(m);
	size_t i;

	for (i = 0; i < pm->nerrors; i++)
		if (pm->errors[i] == e)
			return 1;
	return 0;
}
