/* Unit tests for the marketplace index (src/store/index.c) and trust.toml
 * (src/store/trust.c) parsers: exact keys, types, ranges and caps, the
 * reserved name, duplicate keys, version order, tags, and every parse on
 * an exact-size heap copy (ASan sees an overread). cmocka, TAP output. */
#include "store/index.h"
#include "store/trust.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ENTRY "{\"manifest_sha256\":\"" H64 "\",\"binary_sha256\":\"" H64 \
	"\",\"yanked\":false}"
#define YANKED "{\"manifest_sha256\":\"" H64 "\",\"binary_sha256\":\"" H64 \
	"\",\"yanked\":true}"

static int
parse(const char *s, struct mindex *ix, const char **why)
{
	size_t n = strlen(s);
	char *copy = malloc(n ? n : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, s, n);
	r = index_parse(copy, n, ix, why);
	free(copy);
	return r;
}

static char *
doc(const char *top, const char *plugins)
{
	static char buf[65536];

	snprintf(buf, sizeof(buf), "{\"schema\":1,\"repository\":\"o/r\","
	    "\"version\":7,\"expires\":1900000000%s,\"plugins\":{%s}}", top,
	    plugins);
	return buf;
}

static void
test_good_index(void **state)
{
	struct mindex ix;
	const char *why = NULL;
	const struct index_entry *e;

	assert_int_equal(parse(doc("", "\"is-pdf\":{\"1.0.0\":" ENTRY
	    ",\"1.10.0\":" YANKED ",\"1.2.0\":" ENTRY "},\"a\":{\"0.0.1\":"
	    ENTRY "}"), &ix, &why), 0);
	assert_null(why);
	assert_int_equal(ix.version, 7);
	assert_int_equal(ix.expires, 1900000000);
	assert_string_equal(ix.repo, "o/r");
	assert_int_equal(ix.n, 4);
	e = index_find(&ix, "is-pdf", "1.10.0");
	assert_non_null(e);
	assert_true(e->yanked);
	assert_null(index_find(&ix, "is-pdf", "1.1.0"));
	e = index_latest(&ix, "is-pdf");
	assert_non_null(e);
	assert_string_equal(e->version, "1.2.0");	/* 1.10.0 is yanked */
	assert_true(index_has(&ix, "a"));
	assert_false(index_has(&ix, "b"));
	index_free(&ix);
	assert_null(ix.e);
}

static void
test_bad_indexes(void **state)
{
	static const char *const bad[] = {
		"", "[]", "{}", "null",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":7,"
		    "\"expires\":1,\"plugins\":{},\"extra\":1}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":7,"
		    "\"plugins\":{}}",
		"{\"schema\":2,\"repository\":\"o/r\",\"version\":7,"
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o\",\"version\":7,"
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r/x\",\"version\":7,"
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"../r\",\"version\":7,"
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":0,"
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":-1,"
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":1.5,"
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":"
		    "9007199254740992,\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":\"7\","
		    "\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":7,"
		    "\"expires\":0,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":7,"
		    "\"version\":8,\"expires\":1,\"plugins\":{}}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":7,"
		    "\"expires\":1,\"plugins\":[]}",
		"{\"schema\":1,\"repository\":\"o/r\",\"version\":7,"
		    "\"expires\":1,\"plugins\":{}} x",
	};
	static const char *const badplugins[] = {
		"\"Is-PDF\":{\"1.0.0\":" ENTRY "}",
		"\"index\":{\"1.0.0\":" ENTRY "}",
		"\"a\":{}",
		"\"a\":{\"1.0\":" ENTRY "}",
		"\"a\":{\"01.0.0\":" ENTRY "}",
		"\"a\":{\"1.0.0\":{\"manifest_sha256\":\"" H64 "\","
		    "\"binary_sha256\":\"" H64 "\"}}",
		"\"a\":{\"1.0.0\":{\"manifest_sha256\":\"" H64 "\","
		    "\"binary_sha256\":\"" H64 "\",\"yanked\":0}}",
		"\"a\":{\"1.0.0\":{\"manifest_sha256\":\"" H64 "\","
		    "\"binary_sha256\":\"" H64 "\",\"yanked\":false,\"x\":1}}",
		"\"a\":{\"1.0.0\":{\"manifest_sha256\":\"ABCDEF\","
		    "\"binary_sha256\":\"" H64 "\",\"yanked\":false}}",
		"\"a\":{\"1.0.0\":" ENTRY ",\"1.0.0\":" ENTRY "}",
		"\"a\":{\"1.0.0\":" ENTRY "},\"a\":{\"1.0.1\":" ENTRY "}",
		"\"a\\u0000b\":{\"1.0.0\":" ENTRY "}",
		"\"a\":{\"1.0.0\":{\"deeper\":{\"x\":1}}}",
	};
	struct mindex ix;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		assert_int_equal(parse(bad[i], &ix, &why), -1);
		assert_non_null(why);
		assert_null(ix.e);
	}
	for (i = 0; i < sizeof(badplugins) / sizeof(badplugins[0]); i++) {
		why = NULL;
		assert_int_equal(parse(doc("", badplugins[i]), &ix, &why), -1);
		assert_non_null(why);
	}
}

static void
test_caps(void **state)
{
	size_t cap = 2 * 1024 * 1024, i, n = 0;
	char *big = malloc(cap);
	struct mindex ix;
	const char *why;

	assert_non_null(big);
	/* 129 versions of one plugin: one over INDEX_MAX_VERSIONS. */
	n += (size_t)snprintf(big + n, cap - n, "{\"schema\":1,\"repository\":"
	    "\"o/r\",\"version\":1,\"expires\":1,\"plugins\":{\"a\":{");
	for (i = 0; i <= INDEX_MAX_VERSIONS; i++)
		n += (size_t)snprintf(big + n, cap - n, "%s\"1.0.%zu\":" ENTRY,
		    i ? "," : "", i);
	n += (size_t)snprintf(big + n, cap - n, "}}}");
	assert_int_equal(parse(big, &ix, &why), -1);
	/* 257 plugins: one over INDEX_MAX_PLUGINS. */
	n = (size_t)snprintf(big, cap, "{\"schema\":1,\"repository\":\"o/r\","
	    "\"version\":1,\"expires\":1,\"plugins\":{");
	for (i = 0; i <= INDEX_MAX_PLUGINS; i++)
		n += (size_t)snprintf(big + n, cap - n, "%s\"p%zu\":{\"1.0.0\":"
		    ENTRY "}", i ? "," : "", i);
	n += (size_t)snprintf(big + n, cap - n, "}}");
	assert_int_equal(parse(big, &ix, &why), -1);
	/* Over the byte cap, even when well-formed. */
	memset(big, ' ', cap);
	memcpy(big, doc("", ""), strlen(doc("", "")));
	big[cap - 1] = '\0';
	assert_int_equal(parse(big, &ix, &why), -1);
	free(big);
}

static void
test_versions_and_tags(void **state)
{
	char tag[TAG_MAX];

	assert_true(version_cmp("1.10.0", "1.9.9") > 0);
	assert_true(version_cmp("0.0.1", "0.0.10") < 0);
	assert_true(version_cmp("2.0.0", "10.0.0") < 0);
	assert_int_equal(version_cmp("1.2.3", "1.2.3"), 0);
	assert_int_equal(index_tag(42, tag, sizeof(tag)), 0);
	assert_string_equal(tag, "index/v42");
	assert_int_equal(plugin_tag("is-pdf", "1.0.0", tag, sizeof(tag)), 0);
	assert_string_equal(tag, "is-pdf/v1.0.0");
	assert_int_equal(plugin_tag("is-pdf/x", "1.0.0", tag, sizeof(tag)), -1);
	assert_int_equal(plugin_tag("is-pdf", "1.0", tag, sizeof(tag)), -1);
	assert_int_equal(index_tag(1, tag, 5), -1);
	assert_true(repo_is_valid("lockfile-org/lockfile.marketplace"));
	assert_false(repo_is_valid("a/b/c"));
	assert_false(repo_is_valid("a/"));
	assert_false(repo_is_valid("/b"));
	assert_false(repo_is_valid("a/.b"));
	assert_false(repo_is_valid("a/b..c"));
	assert_false(repo_is_valid("a b/c"));
}

static int
tparse(const char *s, struct trust *t, char *why, size_t whylen)
{
	size_t n = strlen(s);
	char *copy = malloc(n ? n : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, s, n);
	memset(t, 0, sizeof(*t));
	r = trust_parse(copy, n, t, why, whylen);
	free(copy);
	return r;
}

static void
test_trust(void **state)
{
	static const char *const bad[] = {
		"",
		"release_repository = 1\n",
		"release_repository = \"a\"\n",
		"release_repository = \"a/b\"\nunsigned = true\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"http://h/\"\nrepository = \"o/r\"\nofficial = true\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"https:///p\"\nrepository = \"o/r\"\nofficial = true\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m/../n\"\nrepository = \"o/r\"\nofficial = true\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"relative\"\nrepository = \"o/r\"\nofficial = true\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = \"yes\"\n",
		"release_repository = \"a/b\"\n[marketplaces.X]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n"
		    "key = \"ignored?\"\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\\u0000x\"\nrepository = \"o/r\"\nofficial = true\n",
		"release_repository = \"a/b\"\nmarketplaces = 3\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n"
		    "repository_id = 0\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n"
		    "owner_id = -7\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n"
		    "repository_id = \"632596897\"\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n"
		    "owner_id = 1.5\n",
		"release_repository = \"a/b\"\nrelease_repository_id = 0\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n"
		    "index_floor = 0\n",
		"release_repository = \"a/b\"\n[marketplaces.x]\n"
		    "url = \"/m\"\nrepository = \"o/r\"\nofficial = true\n"
		    "index_floor = 9007199254740992\n",
		"release_repository = \"a/b\"\nrelease_owner_id = true\n",
	};
	struct trust t;
	char why[512];
	size_t i;

	assert_int_equal(tparse("release_repository = \"a/b\"\n"
	    "[marketplaces.official]\nurl = \"https://h.example/m/\"\n"
	    "repository = \"o/r\"\nofficial = true\n"
	    "[marketplaces.local_2]\nurl = \"file:///srv/m\"\n"
	    "repository = \"x/y\"\nofficial = false\n", &t, why,
	    sizeof(why)), 0);
	assert_string_equal(t.release_repo, "a/b");
	assert_int_equal(t.nmarkets, 2);
	assert_non_null(trust_market(&t, "official"));
	assert_true(trust_market(&t, "official")->official);
	assert_false(trust_market(&t, "local_2")->official);
	assert_string_equal(trust_market(&t, "local_2")->repo, "x/y");
	assert_null(trust_market(&t, "other"));
	/* ids unpinned: parsed, but nothing will verify (trust_verify) */
	assert_string_equal(trust_market(&t, "official")->repo_id, "");
	assert_int_equal(tparse("release_repository = \"a/b\"\n"
	    "release_repository_id = 11\nrelease_owner_id = 12\n"
	    "[marketplaces.official]\nurl = \"/m\"\n"
	    "repository = \"o/r\"\nofficial = true\n"
	    "repository_id = 632596897\nowner_id = 131804563\n", &t, why,
	    sizeof(why)), 0);
	assert_string_equal(t.release_repo_id, "11");
	assert_string_equal(t.release_owner_id, "12");
	assert_string_equal(trust_market(&t, "official")->repo_id, "632596897");
	assert_string_equal(trust_market(&t, "official")->owner_id,
	    "131804563");
	assert_int_equal(trust_market(&t, "official")->index_floor, 0);
	assert_int_equal(tparse("release_repository = \"a/b\"\n"
	    "[marketplaces.o]\nurl = \"/m\"\nrepository = \"o/r\"\n"
	    "official = true\nindex_floor = 12\n", &t, why, sizeof(why)), 0);
	assert_int_equal(trust_market(&t, "o")->index_floor, 12);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(tparse(bad[i], &t, why, sizeof(why)), -1);
		assert_true(why[0] != '\0');
		assert_int_equal(t.nmarkets, 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_index),
		cmocka_unit_test(test_bad_indexes),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_versions_and_tags),
		cmocka_unit_test(test_trust),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("store-index", tests, NULL, NULL);
}
