/* libFuzzer target for the marketplace index parser (src/store/index.c):
 * the index is parsed before its signature is checked (its version names
 * the tag to check it under), so it must be total. Checks beyond "no crash,
 * no leak, no overread": an accepted index has every count under its cap,
 * every name and version valid, the repository valid, and lookups agree. */
#include "store/index.h"
#include "protocol/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_store_index: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mindex ix;
	const char *why = NULL;
	char tag[TAG_MAX];
	size_t i;

	if (index_parse((const char *)data, size, &ix, &why) != 0) {
		CHECK(why != NULL && ix.e == NULL && ix.n == 0);
		return 0;
	}
	CHECK(why == NULL);
	CHECK(ix.version >= 1 && ix.version <= INDEX_MAX_VERSION);
	CHECK(ix.expires >= 1 && repo_is_valid(ix.repo));
	CHECK(ix.n <= INDEX_MAX_ENTRIES);
	CHECK(index_tag(ix.version, tag, sizeof(tag)) == 0);
	for (i = 0; i < ix.n; i++) {
		const struct index_entry *e = &ix.e[i], *l;
		CHECK(name_is_plugin(e->name) && strcmp(e->name, "index") != 0);
		CHECK(version_is_valid(e->version));
		CHECK(index_find(&ix, e->name, e->version) == e);
		CHECK(plugin_tag(e->name, e->version, tag, sizeof(tag)) == 0);
		l = index_latest(&ix, e->name);
		CHECK(l == NULL || !l->yanked);
		CHECK(l == NULL || e->yanked ||
		    version_cmp(l->version, e->version) >= 0);
	}
	index_free(&ix);
	return 0;
}
