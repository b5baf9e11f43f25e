/* Response checking (see check.h). */
#include "protocol/check.h"
#include "lib/jsonx.h"
#include "lib/str.h"

#include <stdio.h>
#include <string.h>

static int
bad(struct proto_reply *out, const char *where)
{
	str_msg(out->where, sizeof(out->where), "%s", where);
	return -1;
}

int
proto_placeholder(const char *s, char *out, size_t outlen)
{
	size_t n = strlen(s);

	if (n < 4 || s[0] != '$' || s[1] != '{' || s[n - 1] != '}')
		return -1;
	if (n - 3 >= outlen)
		return -1;
	memcpy(out, s + 2, n - 3);
	out[n - 3] = '\0';
	return name_is_input(out) ? 0 : -1;
}

/* Relations between fields that a shape alone cannot say. */
static int
rules(enum lf_method m, const json_t *res, char *where, size_t wl)
{
	size_t i;
	json_t *v;

	if (m == M_FILE_PLUGINS) {
		json_array_foreach(json_object_get(res, "plugins"), i, v) {
			int official = json_is_true(json_object_get(v, "official"));
			int warned = json_object_get(v, "warning") != NULL;
			int proto = (int)json_integer_value(json_object_get(v,
			    "protocol"));
			size_t nin = json_array_size(json_object_get(v, "inputs"));
			if (official == warned) {
				str_msg(where, wl, "plugins[%zu].warning", i);
				return -1;
			}
			if ((proto == 1) != (nin == 0)) {
				str_msg(where, wl, "plugins[%zu].inputs", i);
				return -1;
			}
		}
	}
	if (m == M_FILE_PLAN || m == M_FILE_RUN) {
		json_array_foreach(json_object_get(res, "answers"), i, v) {
			int isnull = json_is_null(json_object_get(v, "result"));
			int haserr = json_object_get(v, "error") != NULL;
			if (isnull != haserr) {
				str_msg(where, wl, "answers[%zu].error", i);
				return -1;
			}
		}
	}
	return 0;
}

int
proto_is_pending(enum lf_method m, const json_t *result)
{
	const struct shape *p = proto_method(m)->pending;
	char where[8];

	return p != NULL && json_object_get(result, "status") != NULL &&
	    shape_check(p, result, where, sizeof(where)) == 0;
}

int
proto_check_result(enum lf_method m, const json_t *result, char *where,
    size_t wherelen)
{
	/* A result with a status is the pending shape or nothing. */
	if (proto_method(m)->pending != NULL &&
	    json_object_get(result, "status") != NULL)
		return shape_check(proto_method(m)->pending, result, where,
		    wherelen);
	if (shape_check(proto_method(m)->result, result, where, wherelen) != 0)
		return -1;
	return rules(m, result, where, wherelen);
}

static int
placeholder_was_named(const json_t *params, const char *name)
{
	json_t *plugins = json_object_get(params, "plugins"), *p;
	size_t i;

	json_array_foreach(plugins, i, p) {
		const char *k;
		json_t *val;
		json_object_foreach(json_object_get(p, "inputs"), k, val) {
			char ph[40];
			if (json_is_string(val) &&
			    proto_placeholder(json_string_value(val), ph,
			    sizeof(ph)) == 0 && strcmp(ph, name) == 0)
				return 1;
		}
	}
	return 0;
}

/* Does the result answer the request that was sent? */
static int
matches_request(const struct proto_expect *exp, const json_t *res,
    struct proto_reply *out)
{
	const json_t *params = exp->params;
	size_t i;
	json_t *v;

	if (exp->method == M_STATUS) {
		const json_t *asked = params ? json_object_get(params, "profile")
		    : NULL;
		const json_t *got = json_object_get(res, "profile");
		if ((asked == NULL) != (got == NULL) ||
		    (asked && !json_equal(asked, got)))
			return bad(out, "status.profile");
	}
	/* file.run answers for the plan id it was given, pending or not. */
	if (exp->method == M_FILE_RUN && (params == NULL ||
	    !json_equal(json_object_get(params, "plan"),
	    json_object_get(res, "plan"))))
		return bad(out, "plan");
	if (exp->method == M_FILE_PLAN && proto_is_pending(M_FILE_PLAN, res))
		return 0;
	if (exp->method == M_FILE_PLAN) {
		json_t *want = params ? json_object_get(params, "plugins") : NULL;
		json_t *answers = json_object_get(res, "answers");
		if (json_array_size(answers) != json_array_size(want))
			return bad(out, "answers (count)");
		json_array_foreach(answers, i, v) {
			json_t *w = json_array_get(want, i);
			json_t *wv = json_object_get(w, "version");
			if (!json_equal(json_object_get(v, "plugin"),
			    json_object_get(w, "name")))
				return bad(out, "answers.plugin");
			if (wv != NULL &&
			    !json_equal(wv, json_object_get(v, "version")))
				return bad(out, "answers.version");
		}
		json_array_foreach(json_object_get(res, "held_inputs"), i, v) {
			if (!placeholder_was_named(params, json_string_value(v)))
				return bad(out, "held_inputs");
		}
		if (params && json_object_get(params, "handle") != NULL &&
		    !json_equal(json_object_get(params, "handle"),
		    json_object_get(res, "handle")))
			return bad(out, "handle");
	}
	return 0;
}

static int
check_error(const struct proto_expect *exp, const json_t *err,
    struct proto_reply *out)
{
	const json_t *code = json_object_get(err, "code");
	const json_t *msg = json_object_get(err, "message");
	const json_t *data = json_object_get(err, "data");
	const json_t *hint = data ? json_object_get(data, "hint") : NULL;
	const struct proto_error *pe;
	enum lf_err e;

	if (!json_is_object(err) || json_object_size(err) != 3 ||
	    !json_is_integer(code) || !json_is_string(msg) ||
	    !json_is_object(data) || json_object_size(data) != 1 ||
	    !json_is_string(hint))
		return bad(out, "error (shape)");
	e = proto_error_by_name(json_string_value(msg));
	if (e == E_NONE)
		return bad(out, "error.message (unknown code)");
	pe = proto_error(e);
	if (json_integer_value(code) != pe->code ||
	    strcmp(json_string_value(hint), pe->hint) != 0)
		return bad(out, "error (code or hint)");
	if (!proto_method_may_fail(exp->method, e))
		return bad(out, "error (not for this method)");
	out->is_error = 1;
	out->err = e;
	return 0;
}

int
proto_check_reply(const char *line, size_t len,
    const struct proto_expect *exp, struct proto_reply *out)
{
	json_t *doc = NULL, *id, *res, *err, *ver;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (memchr(line, '\n', len) != NULL)
		return bad(out, "framing");
	doc = jsonx_parse(line, len, PROTO_MAX_LINE, 8);
	if (doc == NULL || !json_is_object(doc)) {
		bad(out, "json");
		goto out;
	}
	ver = json_object_get(doc, "jsonrpc");
	id = json_object_get(doc, "id");
	res = json_object_get(doc, "result");
	err = json_object_get(doc, "error");
	if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0 ||
	    id == NULL || json_object_size(doc) != 3 ||
	    (res == NULL) == (err == NULL)) {
		bad(out, "envelope");
		goto out;
	}
	if (err != NULL) {
		if (check_error(exp, err, out) != 0)
			goto out;
		/* An id the console could not read is null, but only then. */
		if (!json_equal(id, exp->id) && !(json_is_null(id) &&
		    (out->err == E_BAD_REQUEST || out->err == E_PEER_REFUSED))) {
			out->is_error = 0;
			bad(out, "id");
			goto out;
		}
		ret = 0;
		goto out;
	}
	if (!json_equal(id, exp->id)) {
		bad(out, "id");
		goto out;
	}
	if (proto_check_result(exp->method, res, out->where,
	    sizeof(out->where)) != 0)
		goto out;
	if (matches_request(exp, res, out) != 0)
		goto out;
	out->result = json_incref(res);
	ret = 0;
out:
	json_decref(doc);
	return ret;
}

void
proto_reply_free(struct proto_reply *r)
{
	json_decref(r->result);
	r->result = NULL;
}
