/* Response building (see response.h). */
#include "protocol/response.h"
#include "protocol/check.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <stdlib.h>
#include <string.h>

static char *
line_of(json_t *doc)
{
	char *s = jsonx_dump_line(doc);
	size_t n = strlen(s);
	char *line = xmalloc(n + 2);

	memcpy(line, s, n);
	line[n] = '\n';
	line[n + 1] = '\0';
	free(s);
	ASSERT(n + 1 <= PROTO_MAX_LINE);
	return line;
}

static json_t *
envelope(const json_t *id)
{
	json_t *doc = json_object();

	json_object_set_new(doc, "jsonrpc", json_string("2.0"));
	json_object_set_new(doc, "id", id ? json_deep_copy(id) : json_null());
	return doc;
}

char *
proto_result_line(enum lf_method m, const json_t *id, json_t *result)
{
	char where[160];
	json_t *doc;
	char *line;

	if (proto_check_result(m, result, where, sizeof(where)) != 0)
		fatal("response outside the closed list: %s at %s",
		    proto_method(m)->name, where);
	doc = envelope(id);
	json_object_set_new(doc, "result", result);
	line = line_of(doc);
	json_decref(doc);
	return line;
}

char *
proto_error_line(enum lf_method m, const json_t *id, enum lf_err e)
{
	const struct proto_error *pe = proto_error(e);
	json_t *doc, *err, *data;
	char *line;

	if (m == M__COUNT)
		ASSERT(e == E_BAD_REQUEST || e == E_PEER_REFUSED);
	else if (!proto_method_may_fail(m, e))
		fatal("error outside the closed list: %s for %s", pe->name,
		    proto_method(m)->name);
	doc = envelope(id);
	err = json_object();
	data = json_object();
	json_object_set_new(data, "hint", json_string(pe->hint));
	json_object_set_new(err, "code", json_integer(pe->code));
	json_object_set_new(err, "message", json_string(pe->name));
	json_object_set_new(err, "data", data);
	json_object_set_new(doc, "error", err);
	line = line_of(doc);
	json_decref(doc);
	return line;
}
