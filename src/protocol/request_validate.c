/* The console's side of the request form (see request.h): the check of a
 * struct the parser worker sent back, field by field, against this line's
 * nonce. A file of its own so the worker (src/worker/) links the parser
 * and not this, nor OpenSSL's comparison (docs/hacking.md, "Executables"). */
#include "protocol/request.h"
#include "protocol/check.h"
#include "protocol/shape.h"
#include "lib/crypto.h"
#include "lib/escape.h"

#include <string.h>

static int
terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

int
request_validate(const struct request *req,
    const uint8_t nonce[REQUEST_NONCE_LEN])
{
	uint32_t i, j;

	if (req->magic != REQUEST_MAGIC ||
	    !ct_equal(req->nonce, nonce, REQUEST_NONCE_LEN))
		return -1;
	if (req->error != E_NONE && req->error != E_BAD_REQUEST &&
	    req->error != E_LITERAL_INPUT)
		return -1;
	if (req->id_kind > RID_STR || !terminated(req->id_str,
	    sizeof(req->id_str)) || (req->id_kind == RID_STR &&
	    !text_is_plain(req->id_str, strlen(req->id_str))))
		return -1;
	if (req->error == E_BAD_REQUEST)
		return 0;	/* nothing else is used */
	if (req->method >= M__COUNT)
		return -1;
	/* The parser sets a literal-input refusal on file.plan only. */
	if (req->error == E_LITERAL_INPUT && req->method != M_FILE_PLAN)
		return -1;
	if (!terminated(req->profile, sizeof(req->profile)) ||
	    !terminated(req->key, sizeof(req->key)) ||
	    !terminated(req->handle, sizeof(req->handle)) ||
	    !terminated(req->plan, sizeof(req->plan)) ||
	    !terminated(req->text, sizeof(req->text)))
		return -1;
	if (req->has_profile && !name_is_profile(req->profile))
		return -1;
	if (req->has_key && (req->key_len == 0 ||
	    strlen(req->key) != req->key_len))
		return -1;
	if (req->has_handle && !id_is_valid(req->handle, PROTO_PREFIX_HANDLE))
		return -1;
	if (req->has_plan && !id_is_valid(req->plan, PROTO_PREFIX_PLAN))
		return -1;
	if (req->has_text && strlen(req->text) != req->text_len)
		return -1;
	if (req->nplugins > PROTO_MAX_PLUGINS)
		return -1;
	for (i = 0; i < req->nplugins; i++) {
		const struct req_plugin *p = &req->plugins[i];
		if (!terminated(p->name, sizeof(p->name)) ||
		    !name_is_plugin(p->name) ||
		    !terminated(p->version, sizeof(p->version)) ||
		    (p->version[0] && !version_is_valid(p->version)) ||
		    p->ninputs > PROTO_MAX_INPUTS)
			return -1;
		for (j = 0; j < p->ninputs; j++) {
			const struct req_input *in = &p->inputs[j];
			if (!terminated(in->name, sizeof(in->name)) ||
			    !terminated(in->placeholder, sizeof(in->placeholder)) ||
			    !name_is_input(in->name) ||
			    !name_is_input(in->placeholder))
				return -1;
		}
	}
	/* Per-method requirements, as the parser guarantees them. */
	switch (req->method) {
	case M_FILE_PLAN:
		if (req->nplugins == 0 ||
		    req->has_handle == (req->has_profile && req->has_key) ||
		    (!req->has_handle && !(req->has_profile && req->has_key)))
			return -1;
		break;
	case M_FILE_RUN:
		if (!req->has_plan)
			return -1;
		break;
	case M_FILE_RELEASE:
		if (!req->has_handle)
			return -1;
		break;
	case M_CHANGE_REQUEST:
		if (!req->has_text)
			return -1;
		break;
	default:
		break;
	}
	return 0;
}

json_t *
request_id_json(const struct request *req)
{
	switch (req->id_kind) {
	case RID_INT:
		return json_integer(req->id_int);
	case RID_STR:
		return json_string(req->id_str);
	default:
		return json_null();
	}
}
