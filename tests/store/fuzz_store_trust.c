/* libFuzzer target for trust.toml parsing (src/store/trust.c). Root owns
 * the file, but a parser is total anyway. Checks: an accepted
 * configuration has a valid release repository and, for every marketplace,
 * a valid name, repository and a URL of an allowed form. */
#include "store/trust.h"
#include "protocol/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_store_trust: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trust t;
	char why[512];
	size_t i;

	memset(&t, 0, sizeof(t));
	why[0] = '\0';
	if (trust_parse((const char *)data, size, &t, why, sizeof(why)) != 0) {
		CHECK(why[0] != '\0' && t.nmarkets == 0);
		return 0;
	}
	CHECK(repo_is_valid(t.release_repo));
	CHECK(t.nmarkets <= LOCKDB_MAX_MARKETS);
	for (i = 0; i < t.nmarkets; i++) {
		const struct market_conf *m = &t.m[i];
		CHECK(name_is_profile(m->name) && repo_is_valid(m->repo));
		CHECK(strncmp(m->url, "https://", 8) == 0 ||
		    strncmp(m->url, "file:///", 8) == 0 || m->url[0] == '/');
		CHECK(strstr(m->url, "..") == NULL);
		CHECK(trust_market(&t, m->name) == m);
	}
	return 0;
}
