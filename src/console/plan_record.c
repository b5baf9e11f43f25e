/* The pending plan's record (plan_record.h, docs/hub.md): made with its
 * ticket, read back by file.run and by a renewal after a restart. */
#include "console/plan_record.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

static json_t *
hex_of(const uint8_t *d, size_t n)
{
	char hex[2 * 64 + 1];

	ASSERT(n <= 64);
	hex_encode(d, n, hex);
	return json_string(hex);
}

static int
unhex(const json_t *v, uint8_t *out, size_t n)
{
	return json_is_string(v) && json_string_length(v) == 2 * n &&
	    hex_decode(json_string_value(v), out, n) == 0 ? 0 : -1;
}

/* The pending plan's record: what a renewal after a restart needs. */
json_t *
plan_record(const struct plan *pl, const char *planid, const char *ticket,
    enum plan_content content, const uint8_t *sha, unsigned long long size)
{
	const struct request *req = pl->req;
	json_t *r = json_object(), *plugins = json_array(), *held = json_array();
	size_t i, j;

	json_object_set_new(r, "plan", json_string(planid));
	json_object_set_new(r, "uid", json_integer(pl->peer->uid));
	json_object_set_new(r, "ticket", json_string(ticket));
	json_object_set_new(r, "policy", hex_of(pl->e->pol->fingerprint, 32));
	json_object_set_new(r, "profile", json_string(pl->pr->name));
	json_object_set_new(r, "key", json_string(pl->key));
	{
		/* what the agent typed, for the renewal's card (in hex: it
		 * need not be UTF-8) */
		char *hex = xcalloc(1, 2 * PROTO_MAX_KEY + 1);
		if (req->has_key)
			hex_encode((const uint8_t *)req->key, req->key_len, hex);
		json_object_set_new(r, "typed", json_string(hex));
		free(hex);
	}
	json_object_set_new(r, "handle", json_string(pl->h ? pl->h->id : ""));
	json_object_set_new(r, "content", json_integer(content));
	if (content == PLAN_CONTENT_FETCHED || content == PLAN_CONTENT_UNCHECKED) {
		json_object_set_new(r, "sha256", hex_of(sha, 32));
		json_object_set_new(r, "size", json_integer((json_int_t)size));
	}
	for (i = 0; i < req->nplugins; i++) {
		const struct lock_entry *pin = &pl->pin[i];
		json_t *p = json_object(), *ins = json_array();
		for (j = 0; j < req->plugins[i].ninputs; j++) {
			json_t *in = json_object();
			const char *ph = req->plugins[i].inputs[j].placeholder;
			json_object_set_new(in, "name",
			    json_string(req->plugins[i].inputs[j].name));
			json_object_set_new(in, "placeholder", json_string(ph));
			json_array_append_new(ins, in);
			if (values_find(pl->e->values, pl->peer->uid, ph) != NULL)
				json_array_append_new(held, json_string(ph));
		}
		json_object_set_new(p, "name", json_string(req->plugins[i].name));
		json_object_set_new(p, "version",
		    json_string(req->plugins[i].version));
		json_object_set_new(p, "inputs", ins);
		json_object_set_new(p, "pin_version", json_string(pin->version));
		json_object_set_new(p, "manifest_sha256",
		    hex_of(pin->manifest_sha256, 32));
		json_object_set_new(p, "binary_sha256",
		    hex_of(pin->binary_sha256, 32));
		json_object_set_new(p, "marketplace", json_string(pin->marketplace));
		json_object_set_new(p, "official", json_boolean(pin->official));
		json_array_append_new(plugins, p);
	}
	json_object_set_new(r, "plugins", plugins);
	json_object_set_new(r, "held", held);
	return r;
}

const char *
plan_rstr(const json_t *r, const char *k, size_t max)
{
	const json_t *v = json_object_get(r, k);

	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

/* Rebuild a plan from its record, checked as if it came from outside (it
 * is the console's own file, in its 0700 home, but a mistake must not
 * run). 0, or -1 when the record does not hold. */
int
plan_restore(struct plan *pl, const json_t *r, const char *planid,
    enum plan_content *content, uint8_t sha[32], unsigned long long *size)
{
	struct request *rq = xcalloc(1, sizeof(*rq));
	const json_t *plugins = json_object_get(r, "plugins"), *p;
	const char *s, *prof, *key, *handle;
	uint8_t fp[32];
	size_t i, j;

	pl->own_req = rq;
	pl->req = rq;
	if ((s = plan_rstr(r, "plan", 40)) == NULL || strcmp(s, planid) != 0 ||
	    !json_is_integer(json_object_get(r, "uid")) ||
	    json_integer_value(json_object_get(r, "uid")) != pl->peer->uid ||
	    unhex(json_object_get(r, "policy"), fp, 32) != 0 ||
	    (prof = plan_rstr(r, "profile", 64)) == NULL ||
	    (key = plan_rstr(r, "key", PROTO_MAX_KEY)) == NULL ||
	    (handle = plan_rstr(r, "handle", 40)) == NULL ||
	    !json_is_integer(json_object_get(r, "content")) ||
	    !json_is_array(plugins) || json_array_size(plugins) == 0 ||
	    json_array_size(plugins) > PROTO_MAX_PLUGINS)
		return -1;
	/* The policy this plan was made under: a decision made on another
	 * one never counts (docs/hub.md, the check chain). */
	if (sodium_memcmp(fp, pl->e->pol->fingerprint, 32) != 0)
		return -1;
	*content = (enum plan_content)json_integer_value(json_object_get(r,
	    "content"));
	if (*content > PLAN_CONTENT_LATER)
		return -1;
	if (*content == PLAN_CONTENT_FETCHED ||
	    *content == PLAN_CONTENT_UNCHECKED) {
		const json_t *sz = json_object_get(r, "size");
		if (unhex(json_object_get(r, "sha256"), sha, 32) != 0 ||
		    !json_is_integer(sz) || json_integer_value(sz) < 0)
			return -1;
		*size = (unsigned long long)json_integer_value(sz);
	}
	rq->magic = REQUEST_MAGIC;
	rq->method = M_FILE_PLAN;
	if (handle[0] != '\0') {
		if (!id_is_valid(handle, PROTO_PREFIX_HANDLE) ||
		    str_fmt(rq->handle, sizeof(rq->handle), "%s", handle) != STR_OK)
			return -1;
		rq->has_handle = 1;
	} else {
		const char *typed = plan_rstr(r, "typed", 2 * PROTO_MAX_KEY);
		size_t tl = typed ? strlen(typed) / 2 : 0;
		if (str_fmt(rq->profile, sizeof(rq->profile), "%s", prof) !=
		    STR_OK || typed == NULL || tl == 0 || strlen(typed) % 2 ||
		    hex_decode(typed, (uint8_t *)rq->key, tl) != 0 ||
		    memchr(rq->key, '\0', tl) != NULL)
			return -1;
		rq->key_len = (uint32_t)tl;
		rq->has_profile = rq->has_key = 1;
	}
	json_array_foreach(plugins, i, p) {
		struct req_plugin *rp = &rq->plugins[i];
		const json_t *ins = json_object_get(p, "inputs"), *in;
		if ((s = plan_rstr(p, "name", 32)) == NULL || !name_is_plugin(s) ||
		    str_fmt(rp->name, sizeof(rp->name), "%s", s) != STR_OK ||
		    (s = plan_rstr(p, "version", 20)) == NULL ||
		    (s[0] != '\0' && !version_is_valid(s)) ||
		    str_fmt(rp->version, sizeof(rp->version), "%s", s) != STR_OK ||
		    !json_is_array(ins) || json_array_size(ins) > PROTO_MAX_INPUTS)
			return -1;
		json_array_foreach(ins, j, in) {
			const char *n = plan_rstr(in, "name", 32), *ph = plan_rstr(in,
			    "placeholder", 32);
			if (n == NULL || ph == NULL || !name_is_input(n) ||
			    !name_is_input(ph) ||
			    str_fmt(rp->inputs[j].name, sizeof(rp->inputs[j].name),
			    "%s", n) != STR_OK ||
			    str_fmt(rp->inputs[j].placeholder,
			    sizeof(rp->inputs[j].placeholder), "%s", ph) != STR_OK)
				return -1;
		}
		rp->ninputs = (uint8_t)json_array_size(ins);
		/* the pins the ticket showed */
		if ((s = plan_rstr(p, "pin_version", 20)) == NULL ||
		    str_fmt(pl->pin[i].name, sizeof(pl->pin[i].name), "%s",
		    rp->name) != STR_OK ||
		    str_fmt(pl->pin[i].version, sizeof(pl->pin[i].version), "%s",
		    s) != STR_OK ||
		    unhex(json_object_get(p, "manifest_sha256"),
		    pl->pin[i].manifest_sha256, 32) != 0 ||
		    unhex(json_object_get(p, "binary_sha256"),
		    pl->pin[i].binary_sha256, 32) != 0 ||
		    (s = plan_rstr(p, "marketplace", 64)) == NULL ||
		    str_fmt(pl->pin[i].marketplace, sizeof(pl->pin[i].marketplace),
		    "%s", s) != STR_OK)
			return -1;
		pl->pin[i].official = json_is_true(json_object_get(p, "official"));
	}
	rq->nplugins = (uint32_t)json_array_size(plugins);
	return 0;
}

void
plan_record_content(json_t *r, enum plan_content content, const uint8_t *sha,
    unsigned long long size)
{
	json_object_set_new(r, "content", json_integer(content));
	if (content == PLAN_CONTENT_FETCHED) {
		json_object_set_new(r, "sha256", hex_of(sha, 32));
		json_object_set_new(r, "size", json_integer((json_int_t)size));
	}
}
