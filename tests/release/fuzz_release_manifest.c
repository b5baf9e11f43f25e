/* libFuzzer target for the release manifest parser (src/update/manifest.c):
 * the manifest is parsed before its signature is checked (its tag names
 * the identity to check it under), so it must be total. Checks beyond "no
 * crash, no leak, no overread": an accepted manifest has a valid
 * repository, tag and version that agree, every artifact name valid for
 * its kind and unique, sizes under the cap, and lookups agree. */
#include "update/manifest.h"
#include "protocol/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_release_manifest: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct relman m;
	const char *why = NULL;
	char v[32];
	size_t i;

	if (relman_parse((const char *)data, size, &m, &why) != RELMAN_OK) {
		CHECK(why != NULL && m.n == 0);
		return 0;
	}
	CHECK(why == NULL);
	CHECK(repo_is_valid(m.repo));
	CHECK(release_tag_valid(m.tag, v, sizeof(v)) && strcmp(v, m.version) == 0);
	CHECK(version_is_valid(m.version));
	CHECK(strlen(m.commit) == 40);
	CHECK(m.n >= 1 && m.n <= RELMAN_MAX_ARTIFACTS);
	for (i = 0; i < m.n; i++) {
		const struct relart *a = &m.a[i];
		CHECK(relart_name_valid(a->name, a->kind));
		CHECK(a->size <= RELMAN_MAX_SIZE);
		CHECK(relman_find(&m, a->name) == a);
		CHECK(strcmp(relart_kind_name(a->kind), "?") != 0);
	}
	return 0;
}
