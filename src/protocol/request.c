/* The request parser (see request.h). Runs on agent bytes: strict about
 * everything, copies only what fits the fixed form, never a literal input. */
#include "protocol/request.h"
#include "protocol/check.h"
#include "protocol/shape.h"
#include "lib/crypto.h"
#include "lib/escape.h"
#include "lib/jsonx.h"

#include <string.h>

#define REQ_MAX_DEPTH 6

static int
copy_str(char *dst, size_t dstlen, const json_t *v)
{
	size_t n;

	if (!json_is_string(v))
		return -1;
	n = json_string_length(v);
	if (n >= dstlen || strlen(json_string_value(v)) != n)
		return -1;
	memcpy(dst, json_string_value(v), n + 1);
	return 0;
}

static int
parse_id(const json_t *id, struct request *req)
{
	/* Notifications are not served; a null id (JSON-RPC discourages it)
	 * could not be told from the answer to an unreadable request. */
	if (id == NULL || json_is_null(id))
		return -1;
	if (json_is_integer(id)) {
		req->id_kind = RID_INT;
		req->id_int = json_integer_value(id);
		return 0;
	}
	if (json_is_string(id) && copy_str(req->id_str, sizeof(req->id_str),
	    id) == 0 && text_is_plain(req->id_str, strlen(req->id_str))) {
		req->id_kind = RID_STR;
		return 0;
	}
	return -1;
}

static int
parse_plugins(const json_t *arr, struct request *req)
{
	static const char *const pkeys[] = { "name", "version", "inputs", NULL };
	size_t i;
	json_t *p;
	int literal = 0;

	if (!json_is_array(arr) || json_array_size(arr) == 0)
		return -1;
	if (json_array_size(arr) > PROTO_MAX_PLUGINS)
		req->too_many_plugins = 1;
	json_array_foreach(arr, i, p) {
		struct req_plugin tmp;
		const char *k;
		json_t *val, *inputs;

		memset(&tmp, 0, sizeof(tmp));
		if (!json_is_object(p) || jsonx_only_keys(p, pkeys) != 0)
			return -1;
		if (copy_str(tmp.name, sizeof(tmp.name),
		    json_object_get(p, "name")) != 0 ||
		    !name_is_plugin(tmp.name))
			return -1;
		if (json_object_get(p, "version") != NULL &&
		    (copy_str(tmp.version, sizeof(tmp.version),
		    json_object_get(p, "version")) != 0 ||
		    !version_is_valid(tmp.version)))
			return -1;
		inputs = json_object_get(p, "inputs");
		if (inputs != NULL) {
			if (!json_is_object(inputs) ||
			    json_object_size(inputs) > PROTO_MAX_INPUTS)
				return -1;
			json_object_foreach(inputs, k, val) {
				struct req_input *in = &tmp.inputs[tmp.ninputs];
				if (strlen(k) >= sizeof(in->name) ||
				    !name_is_input(k))
					return -1;
				/* Anything but "${name}" is a literal: remember that
				 * one was sent, keep nothing of it. */
				if (!json_is_string(val) ||
				    proto_placeholder(json_string_value(val),
				    in->placeholder, sizeof(in->placeholder)) != 0) {
					literal = 1;
					memset(in, 0, sizeof(*in));
					continue;
				}
				memcpy(in->name, k, strlen(k) + 1);
				tmp.ninputs++;
			}
		}
		if (i < PROTO_MAX_PLUGINS)
			req->plugins[req->nplugins++] = tmp;
		explicit_bzero(&tmp, sizeof(tmp));
	}
	return literal ? 1 : 0;
}

static int
parse_params(enum lf_method m, const json_t *params, struct request *req)
{
	static const char *const k_none[] = { NULL };
	static const char *const k_status[] = { "profile", NULL };
	static const char *const k_plan[] = { "profile", "key", "handle",
	    "plugins", NULL };
	static const char *const k_run[] = { "plan", NULL };
	static const char *const k_release[] = { "handle", NULL };
	static const char *const k_change[] = { "text", NULL };
	const json_t *v;
	int r;

	if (params == NULL) {
		/* Methods with required params need them. */
		return (m == M_STATUS || m == M_SOURCES || m == M_FILE_PLUGINS)
		    ? 0 : -1;
	}
	if (!json_is_object(params))
		return -1;
	switch (m) {
	case M_STATUS:
		if (jsonx_only_keys(params, k_status) != 0)
			return -1;
		if ((v = json_object_get(params, "profile")) != NULL) {
			if (copy_str(req->profile, sizeof(req->profile), v) != 0 ||
			    !name_is_profile(req->profile))
				return -1;
			req->has_profile = 1;
		}
		return 0;
	case M_SOURCES:
	case M_FILE_PLUGINS:
		return jsonx_only_keys(params, k_none);
	case M_FILE_PLAN:
		if (jsonx_only_keys(params, k_plan) != 0)
			return -1;
		if ((v = json_object_get(params, "handle")) != NULL) {
			if (json_object_get(params, "profile") != NULL ||
			    json_object_get(params, "key") != NULL)
				return -1;
			if (copy_str(req->handle, sizeof(req->handle), v) != 0 ||
			    !id_is_valid(req->handle, PROTO_PREFIX_HANDLE))
				return -1;
			req->has_handle = 1;
		} else {
			if (copy_str(req->profile, sizeof(req->profile),
			    json_object_get(params, "profile")) != 0 ||
			    !name_is_profile(req->profile))
				return -1;
			req->has_profile = 1;
			if (copy_str(req->key, sizeof(req->key),
			    json_object_get(params, "key")) != 0 ||
			    req->key[0] == '\0')
				return -1;
			req->key_len = (uint32_t)strlen(req->key);
			req->has_key = 1;
		}
		r = parse_plugins(json_object_get(params, "plugins"), req);
		if (r < 0)
			return -1;
		if (r > 0)
			req->error = E_LITERAL_INPUT;
		return 0;
	case M_FILE_RUN:
		if (jsonx_only_keys(params, k_run) != 0 ||
		    copy_str(req->plan, sizeof(req->plan),
		    json_object_get(params, "plan")) != 0 ||
		    !id_is_valid(req->plan, PROTO_PREFIX_PLAN))
			return -1;
		req->has_plan = 1;
		return 0;
	case M_FILE_RELEASE:
		if (jsonx_only_keys(params, k_release) != 0 ||
		    copy_str(req->handle, sizeof(req->handle),
		    json_object_get(params, "handle")) != 0 ||
		    !id_is_valid(req->handle, PROTO_PREFIX_HANDLE))
			return -1;
		req->has_handle = 1;
		return 0;
	case M_CHANGE_REQUEST:
		if (jsonx_only_keys(params, k_change) != 0 ||
		    copy_str(req->text, sizeof(req->text),
		    json_object_get(params, "text")) != 0 ||
		    req->text[0] == '\0')
			return -1;
		req->text_len = (uint32_t)strlen(req->text);
		req->has_text = 1;
		return 0;
	default:
		return -1;
	}
}

void
request_parse(const char *line, size_t len,
    const uint8_t nonce[REQUEST_NONCE_LEN], struct request *req)
{
	static const char *const top[] = { "jsonrpc", "id", "method", "params",
	    NULL };
	json_t *doc = NULL, *ver, *method;
	enum lf_method m;

	memset(req, 0, sizeof(*req));
	req->magic = REQUEST_MAGIC;
	memcpy(req->nonce, nonce, REQUEST_NONCE_LEN);
	req->error = E_BAD_REQUEST;
	req->method = M__COUNT;
	req->id_kind = RID_NULL;

	/* The line without its newline: PROTO_MAX_LINE counts the newline. */
	doc = jsonx_parse(line, len, PROTO_MAX_LINE - 1, REQ_MAX_DEPTH);
	if (doc == NULL || !json_is_object(doc))
		goto out;
	/* Read the id first, so that even a bad request is answered on it. */
	if (parse_id(json_object_get(doc, "id"), req) != 0) {
		req->id_kind = RID_NULL;
		goto out;
	}
	ver = json_object_get(doc, "jsonrpc");
	method = json_object_get(doc, "method");
	if (jsonx_only_keys(doc, top) != 0 || !json_is_string(ver) ||
	    strcmp(json_string_value(ver), "2.0") != 0 ||
	    !json_is_string(method))
		goto out;
	m = proto_method_by_name(json_string_value(method));
	if (m == M__COUNT)
		goto out;
	req->method = (uint32_t)m;
	req->error = E_NONE;
	if (parse_params(m, json_object_get(doc, "params"), req) != 0) {
		req->error = E_BAD_REQUEST;
		goto out;
	}
out:
	json_decref(doc);
}
