/* libFuzzer target for a pending hub plan's record (src/console/
 * plan_record.c, plan_restore; docs/hub.md, "The console's side"). The
 * bytes are the record as the hub side hands it back once its seal is
 * open (hub_store: jsonx_parse with the same limits), restored for agent
 * uid 1000 under a policy whose fingerprint is 32 zero bytes (the
 * corpus's records name those), for the plan id the record itself names
 * when it is a string (so the mutations reach past that check).
 *
 * Beyond "no crash, no leak, no overread": an accepted record gives a
 * request of 1 to PROTO_MAX_PLUGINS plugins, each of valid names and at
 * most PROTO_MAX_INPUTS inputs, by a valid handle or by a profile and a
 * non-empty key without a NUL, and a content state in range. */
#include "console/plan_record.h"
#include "lib/crypto.h"
#include "lib/jsonx.h"
#include "protocol/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_plan_record: check failed: %s\n", #cond); \
	abort(); } } while (0)

#define REC_MAX		(1024 * 1024)	/* hub_load's PLAN_REC_MAX */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_request(const struct request *rq)
{
	size_t i, j;

	CHECK(rq->nplugins >= 1 && rq->nplugins <= PROTO_MAX_PLUGINS);
	if (rq->has_handle) {
		CHECK(!rq->has_key && id_is_valid(rq->handle,
		    PROTO_PREFIX_HANDLE));
	} else {
		CHECK(rq->has_key && rq->has_profile);
		CHECK(rq->key_len > 0 && rq->key_len <= PROTO_MAX_KEY);
		CHECK(memchr(rq->key, '\0', rq->key_len) == NULL);
	}
	for (i = 0; i < rq->nplugins; i++) {
		const struct req_plugin *rp = &rq->plugins[i];
		CHECK(name_is_plugin(rp->name));
		CHECK(rp->ninputs <= PROTO_MAX_INPUTS);
		for (j = 0; j < rp->ninputs; j++)
			CHECK(name_is_input(rp->inputs[j].name) &&
			    name_is_input(rp->inputs[j].placeholder));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct policy pol;		/* fingerprint: 32 zero bytes */
	struct plan_env e;
	struct peer peer;
	struct plan *pl = calloc(1, sizeof(*pl));
	enum plan_content content = PLAN_CONTENT_FETCHED;
	unsigned long long sz = 0;
	uint8_t sha[32];
	char planid[PLAN_ID_TEXT] = "pl_00000000000000000000000000000000";
	const json_t *p;
	json_t *r;

	CHECK(pl != NULL);
	memset(&e, 0, sizeof(e));
	memset(&peer, 0, sizeof(peer));
	e.pol = &pol;
	peer.uid = 1000;
	pl->e = &e;
	pl->peer = &peer;
	r = jsonx_parse((const char *)data, size, REC_MAX, 8);
	if (r != NULL) {
		p = json_object_get(r, "plan");
		if (json_is_string(p) && json_string_length(p) < sizeof(planid))
			memcpy(planid, json_string_value(p),
			    json_string_length(p) + 1);
		if (plan_restore(pl, r, planid, &content, sha, &sz) == 0) {
			check_request(pl->own_req);
			CHECK(content <= PLAN_CONTENT_LATER);
		}
		json_decref(r);
	}
	free(pl->own_req);
	free(pl);
	return 0;
}
