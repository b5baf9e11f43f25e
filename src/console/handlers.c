/* The small request handlers: status, sources, file.plugins, file.release,
 * change.request. Each builds its response from the closed table. */
#include "console/handlers.h"
#include "console/policy.h"
#include "console/scrub.h"
#include "console/workspace.h"
#include "protocol/response.h"
#include "lib/clock.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *
handle_status(const struct handler_env *m, const struct request *req)
{
	json_t *id = request_id_json(req), *r = json_object(), *protos;
	const struct policy *pol = m->plan->pol;
	const struct profile *pr = NULL;
	const char *why;
	long long left = (m->session_end_ms - now_ms()) / 1000;
	int production = 0, p;
	size_t i;
	char *line;

	if (req->has_profile) {
		pr = policy_served_profile(pol, req->profile);
		if (pr == NULL) {
			line = proto_error_line(M_STATUS, id, E_UNKNOWN_PROFILE);
			json_decref(r);
			json_decref(id);
			return line;
		}
		production = pr->production;
	} else {
		for (i = 0; i < pol->nprofiles; i++)
			if (pol->profiles[i].src != NULL)
				production |= pol->profiles[i].production;
	}
	protos = json_array();
	for (p = LF_PLUGIN_PROTOCOL_MIN; p <= LF_PLUGIN_PROTOCOL_MAX; p++)
		json_array_append_new(protos, json_integer(p));
	json_object_set_new(r, "console", json_string("up"));
	json_object_set_new(r, "production", json_boolean(production));
	json_object_set_new(r, "security_level",
	    json_integer(pol->security_level));
	json_object_set_new(r, "idle_timeout_s",
	    json_integer(pol->idle_timeout_s));
	json_object_set_new(r, "session_left_s", json_integer(left < 0 ? 0 : left));
	json_object_set_new(r, "plugin_protocol", protos);
	json_object_set_new(r, "sandbox", json_string(m->plan->sandbox->ready(
	    m->plan->sandbox_ctx, &why) ? "ok" : "unavailable"));
	json_object_set_new(r, "answer_quantum_s",
	    json_integer(pol->answer_quantum_s));
	if (pr != NULL)
		json_object_set_new(r, "profile", json_string(pr->name));
	line = proto_result_line(M_STATUS, id, r);
	json_decref(id);
	return line;
}

char *
handle_sources(const struct handler_env *m, const struct request *req)
{
	const struct policy *pol = m->plan->pol;
	json_t *id = request_id_json(req), *r = json_object();
	json_t *list = json_array();
	size_t i;
	char *line;

	for (i = 0; i < pol->nprofiles; i++) {
		json_t *o;
		if (pol->profiles[i].src == NULL)
			continue;	/* unavailable since start: not offered */
		o = json_object();
		json_object_set_new(o, "profile",
		    json_string(pol->profiles[i].name));
		json_object_set_new(o, "production",
		    json_boolean(pol->profiles[i].production));
		json_array_append_new(list, o);
	}
	json_object_set_new(r, "sources", list);
	line = proto_result_line(M_SOURCES, id, r);
	json_decref(id);
	return line;
}

static json_t *
plugin_entry(const struct opened_plugin *op)
{
	const struct manifest *m = &op->m;
	json_t *o = json_object(), *inputs = json_array();
	size_t i;

	for (i = 0; i < m->ninputs; i++) {
		json_t *in = json_object();
		json_object_set_new(in, "name", json_string(m->inputs[i].name));
		json_object_set_new(in, "kind",
		    json_string(input_kind_name(m->inputs[i].kind)));
		json_object_set_new(in, "max_bytes",
		    json_integer(m->inputs[i].max_bytes));
		json_array_append_new(inputs, in);
	}
	json_object_set_new(o, "name", json_string(m->name));
	json_object_set_new(o, "version", json_string(m->version));
	json_object_set_new(o, "official", json_boolean(op->entry.official));
	if (!op->entry.official)
		json_object_set_new(o, "warning",
		    json_string("unofficial_marketplace"));
	json_object_set_new(o, "question", json_string(m->question));
	json_object_set_new(o, "one", json_string(m->one));
	json_object_set_new(o, "zero", json_string(m->zero));
	json_object_set_new(o, "protocol", json_integer(m->protocol));
	json_object_set_new(o, "inputs", inputs);
	return o;
}

char *
handle_plugins(const struct handler_env *m, const struct request *req)
{
	json_t *id = request_id_json(req), *r = json_object();
	json_t *list = json_array();
	const char *why;
	size_t i;
	char *line;

	if (store_reload(m->plan->store, &why) != 0)
		logit("plugins.lock: %s", why);
	for (i = 0; i < m->plan->store->db.n; i++) {
		struct opened_plugin op;
		const struct lock_entry *e = &m->plan->store->db.e[i];
		/* Only what can run is listed: yanked or tampered plugins are
		 * left out (the console window says which). */
		if (store_check_plugin(m->plan->store, e->name, NULL, &op,
		    &why) != STORE_OK) {
			term_printf(m->term, "  plugin %s %s not listed: %s\n",
			    e->name, e->version, why);
			continue;
		}
		close(op.binfd);
		json_array_append_new(list, plugin_entry(&op));
	}
	json_object_set_new(r, "plugins", list);
	line = proto_result_line(M_FILE_PLUGINS, id, r);
	json_decref(id);
	return line;
}

char *
handle_release(const struct handler_env *m, const struct request *req,
    const struct peer *peer)
{
	json_t *id = request_id_json(req), *rec = json_object();
	long long start = m->plan->clock->now_ms(m->plan->clock_ctx);
	struct ws_handle *h;
	char *line;

	json_object_set_new(rec, "method", json_string("file.release"));
	json_object_set_new(rec, "peer_uid", json_integer(peer->uid));
	json_object_set_new(rec, "handle", json_string(req->handle));
	ws_expire(m->plan->ws, start);
	h = ws_find(m->plan->ws, req->handle, peer->uid);
	if (h == NULL) {
		json_object_set_new(rec, "outcome", json_string("E_HANDLE_EXPIRED"));
		line = proto_error_line(M_FILE_RELEASE, id, E_HANDLE_EXPIRED);
	} else {
		json_object_set_new(rec, "outcome", json_string("released"));
		json_object_set_new(rec, "profile", json_string(h->profile->name));
		json_object_set_new(rec, "key", json_string(h->key));
		ws_drop(m->plan->ws, h);
		json_t *r = json_object();
		json_object_set_new(r, "released", json_true());
		line = proto_result_line(M_FILE_RELEASE, id, r);
	}
	m->plan->audit->write(m->plan->audit_ctx, rec);
	/* Deleting a larger file takes longer: the answer, refusal included,
	 * waits for the quantum. */
	plan_hold_quantum(m->plan, start);
	json_decref(id);
	return line;
}

char *
handle_change(const struct handler_env *m, const struct request *req,
    const struct peer *peer)
{
	json_t *id = request_id_json(req), *rec = json_object(), *r;
	char *line;

	/* Only queued for the human: shown escaped, kept in the audit. Nothing
	 * installs, trusts or loosens through the socket. */
	term_printf(m->term, "\n--- change request from uid %u (agent text, "
	    "escaped) ---\n  ", (unsigned)peer->uid);
	term_untrusted(m->term, req->text, req->text_len, PROTO_MAX_TEXT);
	term_printf(m->term, "\n");
	json_object_set_new(rec, "method", json_string("change.request"));
	json_object_set_new(rec, "peer_uid", json_integer(peer->uid));
	json_object_set_new(rec, "text", json_stringn(req->text, req->text_len));
	/* Answered at once: durable off the serving thread (docs/console.md,
	 * "The audit's durability"). */
	m->plan->audit->note(m->plan->audit_ctx, rec);
	r = json_object();
	json_object_set_new(r, "queued", json_true());
	line = proto_result_line(M_CHANGE_REQUEST, id, r);
	json_decref(id);
	return line;
}
