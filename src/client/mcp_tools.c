/* The MCP tools (see mcp_tools.h). docs/mcp.md lists them. */
#include "client/mcp_tools.h"
#include "client/params.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P_PROFILE "\"^[a-z0-9][a-z0-9_-]{0,63}$\""
#define P_NAME "\"^[a-z][a-z0-9-]{0,31}$\""
#define P_INPUT "\"^[a-z][a-z0-9_]{0,31}$\""
#define P_VERSION \
	"\"^(0|[1-9][0-9]{0,5})\\\\.(0|[1-9][0-9]{0,5})\\\\.(0|[1-9][0-9]{0,5})$\""
#define P_HANDLE "\"^f_[0-9a-f]{32}$\""
#define P_PLAN "\"^pl_[0-9a-f]{32}$\""

static const char in_none[] =
    "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}";

static const char in_status[] =
    "{\"type\":\"object\",\"properties\":{\"profile\":{\"type\":\"string\","
    "\"pattern\":" P_PROFILE ",\"description\":\"optional: a profile from "
    "the sources tool; the answer then carries that profile's production "
    "flag\"}},\"additionalProperties\":false}";

static const char in_plan[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"profile\":{\"type\":\"string\",\"pattern\":" P_PROFILE ","
    "\"description\":\"a profile from the sources tool (with key)\"},"
    "\"key\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024,"
    "\"description\":\"the file's key inside the profile (with profile)\"},"
    "\"handle\":{\"type\":\"string\",\"pattern\":" P_HANDLE ","
    "\"description\":\"instead of profile and key: the handle an earlier "
    "plan returned, to ask more about the same file\"},"
    "\"plugins\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,"
    "\"description\":\"the questions: plugins from the plugins tool\","
    "\"items\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"pattern\":" P_NAME "},"
    "\"version\":{\"type\":\"string\",\"pattern\":" P_VERSION ","
    "\"description\":\"optional: pin a version\"},"
    "\"inputs\":{\"type\":\"object\",\"maxProperties\":8,"
    "\"propertyNames\":{\"pattern\":" P_INPUT "},"
    "\"additionalProperties\":{\"type\":\"string\","
    "\"pattern\":\"^\\\\$\\\\{[a-z][a-z0-9_]{0,31}\\\\}$\"},"
    "\"description\":\"each input of the plugin bound to a placeholder "
    "like ${email}; the human types its value on the console, you never "
    "see it; a literal value is refused (E_LITERAL_INPUT)\"}},"
    "\"required\":[\"name\"],\"additionalProperties\":false}}},"
    "\"required\":[\"plugins\"],\"additionalProperties\":false}";

static const char in_run[] =
    "{\"type\":\"object\",\"properties\":{\"plan\":{\"type\":\"string\","
    "\"pattern\":" P_PLAN "}},\"required\":[\"plan\"],"
    "\"additionalProperties\":false}";

static const char in_release[] =
    "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":\"string\","
    "\"pattern\":" P_HANDLE "}},\"required\":[\"handle\"],"
    "\"additionalProperties\":false}";

static const char in_change[] =
    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
    "\"minLength\":1,\"maxLength\":4096,\"description\":\"what you would "
    "like the human to change\"}},\"required\":[\"text\"],"
    "\"additionalProperties\":false}";

static const struct mcp_tool {
	const char *name, *title, *description, *input;
	enum lf_method method;
	int read_only;
} tools[] = {
	{ "status", "lockfile console status",
	  "Is the lockfile console up, and how is it set: production flag, "
	  "security level, idle and session timers, plugin protocols, sandbox "
	  "state, answer quantum. Console state only, never file information. "
	  "Fails with busy when the console is serving another request (a "
	  "plan waiting for the human).",
	  in_status, M_STATUS, 1 },
	{ "sources", "lockfile profiles",
	  "The profiles (sources of confidential files) a plan may name, with "
	  "their production flag. Never lists files.",
	  in_none, M_SOURCES, 1 },
	{ "plugins", "lockfile plugins",
	  "The installed plugins. Each answers one signed yes/no question "
	  "about a file: its question, what 1 and what 0 mean, and its inputs "
	  "(bound to placeholders whose values only the human types).",
	  in_none, M_FILE_PLUGINS, 1 },
	{ "plan", "ask yes/no questions about a file",
	  "Ask plugins yes/no questions about one confidential file you cannot "
	  "read. A human must approve the plan on the lockfile console before "
	  "the file is read: this call waits for that decision (minutes; allow "
	  "a long timeout). You learn only bits: for each plugin 1, 0, or null "
	  "with plugin_error (no answer), plus a handle to ask more about the "
	  "same file and the plan id; never content, size, names or why. Name "
	  "profile and key, or the handle of an earlier plan. Refusals come "
	  "back as E_* codes with a fixed hint (E_APPROVAL_DENIED never says "
	  "why).",
	  in_plan, M_FILE_PLAN, 0 },
	{ "run", "run a remotely approved plan",
	  "Hub mode only: run a plan (pl_...) that the human approved "
	  "remotely, and get its answers (bits only, as for plan). A local "
	  "console refuses it with E_BAD_REQUEST.",
	  in_run, M_FILE_RUN, 0 },
	{ "release", "release a fetched file",
	  "Delete the console's copy of a fetched file, by the handle a plan "
	  "returned, when you need no more answers about it.",
	  in_release, M_FILE_RELEASE, 0 },
	{ "request_change", "ask the human for a change",
	  "Queue a text for the human at the console (for example: install a "
	  "plugin, add a profile). It is only shown to the human; nothing is "
	  "installed, trusted or loosened through this.",
	  in_change, M_CHANGE_REQUEST, 0 },
};

#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* ---- output schemas from the closed table ---- */

static json_t *
pattern(const char *re)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_string("string"));
	json_object_set_new(o, "pattern", json_string(re));
	return o;
}

json_t *
shape_json_schema(const struct shape *s)
{
	json_t *o, *props, *req;
	size_t i;
	char re[64];

	switch (s->kind) {
	case SK_OBJECT:
		o = json_object();
		props = json_object();
		req = json_array();
		for (i = 0; i < s->nfields; i++) {
			json_object_set_new(props, s->fields[i].key,
			    shape_json_schema(s->fields[i].shape));
			if (s->fields[i].required)
				json_array_append_new(req,
				    json_string(s->fields[i].key));
		}
		json_object_set_new(o, "type", json_string("object"));
		json_object_set_new(o, "properties", props);
		json_object_set_new(o, "required", req);
		json_object_set_new(o, "additionalProperties", json_false());
		return o;
	case SK_ARRAY:
		o = json_object();
		json_object_set_new(o, "type", json_string("array"));
		json_object_set_new(o, "items", shape_json_schema(s->items));
		json_object_set_new(o, "maxItems", json_integer(
		    (json_int_t)s->max_items));
		return o;
	case SK_BOOL:
		o = json_object();
		json_object_set_new(o, "type", json_string("boolean"));
		return o;
	case SK_TRUE:
		o = json_object();
		json_object_set_new(o, "const", json_true());
		return o;
	case SK_INT:
		o = json_object();
		json_object_set_new(o, "type", json_string("integer"));
		json_object_set_new(o, "minimum", json_integer(s->min));
		json_object_set_new(o, "maximum", json_integer(s->max));
		return o;
	case SK_ENUM:
		o = json_object();
		req = json_array();
		for (i = 0; s->values[i] != NULL; i++)
			json_array_append_new(req, json_string(s->values[i]));
		json_object_set_new(o, "type", json_string("string"));
		json_object_set_new(o, "enum", req);
		return o;
	case SK_ID:
		ASSERT(str_fmt(re, sizeof(re), "^%s[0-9a-f]{32}$", s->prefix) ==
		    STR_OK);
		return pattern(re);
	case SK_NAME:
		return pattern("^[a-z][a-z0-9-]{0,31}$");
	case SK_PROFILE:
		return pattern("^[a-z0-9][a-z0-9_-]{0,63}$");
	case SK_INPUT_NAME:
		return pattern("^[a-z][a-z0-9_]{0,31}$");
	case SK_VERSION:
		return pattern("^(0|[1-9][0-9]{0,5})\\.(0|[1-9][0-9]{0,5})\\."
		    "(0|[1-9][0-9]{0,5})$");
	case SK_TEXT:
		ASSERT(str_fmt(re, sizeof(re), "^[ -~]{1,%lld}$", s->max) ==
		    STR_OK);
		return pattern(re);
	case SK_BIT:
		o = json_object();
		req = json_array();
		json_array_append_new(req, json_integer(0));
		json_array_append_new(req, json_integer(1));
		json_array_append_new(req, json_null());
		json_object_set_new(o, "enum", req);
		return o;
	}
	fatal("shape kind %d has no schema", (int)s->kind);
}

json_t *
mcp_tools_list(void)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < NTOOLS; i++) {
		const struct mcp_tool *t = &tools[i];
		json_t *o = json_object(), *ann = json_object();
		json_t *in = jsonx_parse(t->input, strlen(t->input),
		    sizeof(in_plan) * 2, 16);

		ASSERT(in != NULL);
		json_object_set_new(o, "name", json_string(t->name));
		json_object_set_new(o, "title", json_string(t->title));
		json_object_set_new(o, "description", json_string(t->description));
		json_object_set_new(o, "inputSchema", in);
		if (proto_method(t->method)->pending != NULL) {
			/* plan and run in hub mode: the answers, or pending.
			 * Each branch is exact; the union of their keys is
			 * all a result may have. */
			json_t *one = json_array(), *schema = json_object();
			json_t *a = shape_json_schema(proto_method(t->method)->result);
			json_t *b = shape_json_schema(proto_method(t->method)->pending);
			json_t *props = json_deep_copy(json_object_get(a,
			    "properties"));
			json_object_update(props, json_object_get(b, "properties"));
			json_array_append_new(one, a);
			json_array_append_new(one, b);
			json_object_set_new(schema, "type", json_string("object"));
			json_object_set_new(schema, "properties", props);
			json_object_set_new(schema, "additionalProperties",
			    json_false());
			json_object_set_new(schema, "oneOf", one);
			json_object_set_new(o, "outputSchema", schema);
		} else {
			json_object_set_new(o, "outputSchema",
			    shape_json_schema(proto_method(t->method)->result));
		}
		json_object_set_new(ann, "title", json_string(t->title));
		json_object_set_new(ann, "readOnlyHint", json_boolean(t->read_only));
		json_object_set_new(ann, "destructiveHint", json_false());
		json_object_set_new(ann, "idempotentHint",
		    json_boolean(t->read_only));
		json_object_set_new(ann, "openWorldHint", json_false());
		json_object_set_new(o, "annotations", ann);
		json_array_append_new(list, o);
	}
	return list;
}

/* ---- arguments ---- */

/* Only the listed keys, each a string when present. */
static int
string_args(const json_t *args, const char *const *keys, const char **out)
{
	const char *k;
	json_t *v;
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		out[i] = NULL;
	json_object_foreach((json_t *)args, k, v) {
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(k, keys[i]) == 0)
				break;
		if (keys[i] == NULL)
			return -1;
		if (strcmp(k, "plugins") == 0)
			continue;	/* the plan's one non-string */
		if (!json_is_string(v) ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return -1;
		out[i] = json_string_value(v);
	}
	return 0;
}

enum mcp_args
mcp_tool_params(const char *name, const json_t *args, enum lf_method *m,
    json_t **params, const char **why)
{
	static const char *const k_status[] = { "profile", NULL };
	static const char *const k_none[] = { NULL };
	static const char *const k_plan[] = { "profile", "key", "handle",
	    "plugins", NULL };
	static const char *const k_run[] = { "plan", NULL };
	static const char *const k_release[] = { "handle", NULL };
	static const char *const k_change[] = { "text", NULL };
	const struct mcp_tool *t = NULL;
	const char *v[5];
	json_t *empty = NULL, *plugins;
	enum mcp_args ret = MCP_ARGS_INVALID;
	size_t i;

	*params = NULL;
	*why = "the arguments do not fit the tool's inputSchema";
	for (i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			t = &tools[i];
	if (t == NULL) {
		*why = "no such tool";
		return MCP_ARGS_UNKNOWN_TOOL;
	}
	*m = t->method;
	if (args == NULL)
		args = empty = json_object();
	if (!json_is_object(args))
		goto out;
	switch (t->method) {
	case M_STATUS:
		if (string_args(args, k_status, v) != 0)
			goto out;
		*params = params_status(v[0], why);
		if (*params == NULL && *why != NULL)
			goto out;
		break;
	case M_SOURCES:
	case M_FILE_PLUGINS:
		if (string_args(args, k_none, v) != 0)
			goto out;
		break;
	case M_FILE_PLAN:
		if (string_args(args, k_plan, v) != 0)
			goto out;
		plugins = params_plugins_json(json_object_get(args, "plugins"),
		    why);
		if (plugins == NULL)
			goto out;
		*params = params_plan(v[0], v[1], v[2], plugins, why);
		if (*params == NULL)
			goto out;
		break;
	case M_FILE_RUN:
		if (string_args(args, k_run, v) != 0 || v[0] == NULL ||
		    (*params = params_run(v[0], why)) == NULL)
			goto out;
		break;
	case M_FILE_RELEASE:
		if (string_args(args, k_release, v) != 0 || v[0] == NULL ||
		    (*params = params_release(v[0], why)) == NULL)
			goto out;
		break;
	case M_CHANGE_REQUEST:
		if (string_args(args, k_change, v) != 0 || v[0] == NULL ||
		    (*params = params_change(v[0], strlen(v[0]), why)) == NULL)
			goto out;
		break;
	default:
		goto out;
	}
	ret = MCP_ARGS_OK;
out:
	json_decref(empty);
	return ret;
}

/* ---- results ---- */

static json_t *
text_block(const json_t *doc)
{
	json_t *content = json_array(), *b = json_object();
	char *s = jsonx_dump_line(doc);

	json_object_set_new(b, "type", json_string("text"));
	json_object_set_new(b, "text", json_string(s));
	free(s);
	json_array_append_new(content, b);
	return content;
}

json_t *
mcp_tool_result(enum cl_outcome o, enum lf_err e, const json_t *result)
{
	json_t *r = json_object(), *err;

	if (o == CL_RESULT) {
		json_object_set_new(r, "content", text_block(result));
		json_object_set_new(r, "structuredContent", json_deep_copy(result));
		json_object_set_new(r, "isError", json_false());
		return r;
	}
	/* No structuredContent: it would have to fit the outputSchema. */
	err = outcome_error_json(o, e);
	json_object_set_new(r, "content", text_block(err));
	json_object_set_new(r, "isError", json_true());
	json_decref(err);
	return r;
}
