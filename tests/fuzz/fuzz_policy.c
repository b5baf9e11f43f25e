/* libFuzzer target for the policy (src/console/policy.c, policy_parse: the
 * TOML the human approves, with every profile checked by its source kind's
 * validate). The human writes it, but the parser is total anyway, and its
 * reasons reach the console's terminal. Beyond "no crash, no leak, no
 * overread": a refusal leaves one line of printable ASCII; an accepted
 * policy has every value in its documented range (docs/policy.md), a clean
 * absolute work_dir, no root among the allowed uids, every profile named
 * in its alphabet with a known kind and findable by name, no local
 * profile whose path is, holds or sits inside the home or work_dir, and
 * the fingerprint of exactly the bytes given. */
#include "console/policy.h"
#include "protocol/shape.h"
#include "protocol/table.h"
#include "lib/crypto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_policy: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HOME "/home/lockfile"

/* a and b the same directory, or one inside the other (lexically). */
static int
nested(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
	const char *l = la < lb ? b : a;

	while (n > 1 && (la < lb ? a : b)[n - 1] == '/')
		n--;
	return strncmp(a, b, n) == 0 && (l[n] == '\0' || l[n] == '/' ||
	    n == 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct policy p;
	uint8_t fp[SHA256_LEN];
	char why[256];
	size_t i, n;

	if (size > POLICY_MAX_BYTES)
		return 0;	/* policy_read_file refuses it before parsing */
	memset(why, 0, sizeof(why));
	if (policy_parse((const char *)data, size, HOME, &p, why,
	    sizeof(why)) != 0) {
		n = strlen(why);
		CHECK(n > 0);
		for (i = 0; i < n; i++)
			CHECK(why[i] >= 0x20 && why[i] < 0x7f);
		CHECK(p.nprofiles == 0);
		return 0;
	}
	CHECK(p.security_level <= 1);
	CHECK(p.answer_quantum_s >= 1 && p.answer_quantum_s <= 3600);
	CHECK(p.approval_timeout_s >= 5 && p.approval_timeout_s <= 86400);
	CHECK(p.idle_timeout_s >= 10 && p.session_timeout_s >= 10);
	CHECK(p.max_plugins_per_handle >= 1 &&
	    p.max_plugins_per_handle <= PROTO_MAX_PLUGINS);
	CHECK(p.max_workspace_bytes >= (1ULL << 20) &&
	    p.max_workspace_bytes <= (1ULL << 40));
	CHECK(p.max_answers_per_key >= 1 && p.max_answers_per_key <= 1000000);
	CHECK(p.ledger_window_s >= 60 && p.ledger_window_s <= 366 * 86400);
	CHECK(p.work_dir[0] == '/' && strstr(p.work_dir, "//") == NULL &&
	    strstr(p.work_dir, "/../") == NULL &&
	    strstr(p.work_dir, "/./") == NULL);
	n = strlen(p.work_dir);
	CHECK(!(n >= 3 && strcmp(p.work_dir + n - 3, "/..") == 0) &&
	    !(n >= 2 && strcmp(p.work_dir + n - 2, "/.") == 0));
	CHECK(p.nallowed <= POLICY_MAX_UIDS);
	for (i = 0; i < p.nallowed; i++)
		CHECK(p.allowed_uids[i] != 0);
	CHECK(p.nprofiles <= POLICY_MAX_PROFILES);
	for (i = 0; i < p.nprofiles; i++) {
		const struct profile *pr = &p.profiles[i];
		size_t plen = strlen(pr->prefix);
		CHECK(name_is_profile(pr->name));
		CHECK(pr->kind != NULL && source_kind_find(pr->kind->name) ==
		    pr->kind);
		CHECK(pr->table != NULL && pr->src == NULL);
		CHECK(policy_profile(&p, pr->name) == pr);
		CHECK(plen == 0 || (pr->prefix[plen - 1] == '/' &&
		    pr->prefix[0] != '/' && strstr(pr->prefix, "//") == NULL &&
		    strstr(pr->prefix, "./") == NULL));
		if (strcmp(pr->kind->name, "local") == 0) {
			const char *lp = json_string_value(json_object_get(
			    pr->table, "path"));
			CHECK(lp != NULL && !nested(lp, HOME) &&
			    !nested(lp, p.work_dir));
		}
	}
	sha256_mem(data, size, fp);
	CHECK(memcmp(fp, p.fingerprint, sizeof(fp)) == 0);
	policy_free(&p);
	return 0;
}
