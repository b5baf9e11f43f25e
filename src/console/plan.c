/* file.plan's front (docs/console.md, "A plan"), in its order:
 *
 * 1. Checks before anything is read, each answered at once
 *    (plan_precheck): a literal input, unknown profile, key outside the
 *    prefix (or an unknown handle), plugins not installed / yanked /
 *    tampered, bindings that do not match the manifests, more answers
 *    than the handle allows, more than the agent's answer cap for the key
 *    leaves (the ledger), sandbox unavailable, /proc not hidden.
 * 2. The decision: on the console's terminal (plan_local.c: the card,
 *    typed values, then the run at once) or on lockhub (plan_hub.c: a
 *    ticket and the pending answer; file.run runs it later).
 * 3. Both end in plan_tail() (plan_steps.c): the bounds again, fetch,
 *    run, the ledger, the answer at the next multiple of the quantum
 *    counted from the approval, audit.
 * The agent learns 1, 0 or plugin_error per plugin, or one E_* code. */
#include "console/plan_entry.h"
#include "protocol/response.h"
#include "lib/crypto.h"

#include <stdlib.h>

static void
record_request(struct plan *pl)
{
	const struct request *req = pl->req;
	json_t *names = json_array(), *phs = json_array();
	size_t i, j;

	json_object_set_new(pl->rec, "method", json_string("file.plan"));
	json_object_set_new(pl->rec, "peer_uid", json_integer(pl->peer->uid));
	for (i = 0; i < req->nplugins; i++) {
		json_array_append_new(names, json_string(req->plugins[i].name));
		for (j = 0; j < req->plugins[i].ninputs; j++)
			json_array_append_new(phs, json_string(
			    req->plugins[i].inputs[j].placeholder));
	}
	json_object_set_new(pl->rec, "plugins_requested", names);
	json_object_set_new(pl->rec, "placeholders", phs);
}

char *
plan_handle(const struct plan_env *e, const struct request *req,
    const struct peer *peer)
{
	return plan_handle_parked(e, req, peer, NULL);
}

char *
plan_handle_parked(const struct plan_env *e, const struct request *req,
    const struct peer *peer, long long *release_ms)
{
	struct plan *pl = plan_new(e, M_FILE_PLAN, req, peer);
	char planid[PLAN_ID_TEXT], *line;
	int recorded = 0;

	if (release_ms != NULL)
		*release_ms = 0;
	/* only the hub's holds park (plan_hub.c): a local plan's answer
	 * follows the human and a fetch, on this thread */
	pl->release_ms = e->hub != NULL ? release_ms : NULL;
	pl->req = req;
	random_id(PROTO_PREFIX_PLAN, planid, sizeof(planid));
	json_object_set_new(pl->rec, "plan", json_string(planid));
	record_request(pl);
	if ((line = plan_precheck(pl)) == NULL) {
		plan_close_plugins(pl);	/* held open again just before the run */
		/* Hub mode: the human decides on lockhub; the agent gets the
		 * pending answer and asks file.run later. */
		line = e->hub != NULL ? plan_hub_ask(pl, planid) :
		    plan_local(pl, planid, &recorded);
	}
	plan_free(pl, recorded);
	return line;
}
