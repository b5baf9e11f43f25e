/* Unit tests for the release manifest parser (src/update/manifest.c):
 * exact keys, types, ranges and caps, artifact names and kinds, tags,
 * duplicate keys, trust.toml's release_url; every parse on an exact-size
 * heap copy (ASan sees an overread). cmocka, TAP output. */
#include "update/manifest.h"
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
#define C40 "0123456789abcdef0123456789abcdef01234567"
#define ART(kind, size) "{\"kind\":\"" kind "\",\"size\":" size \
	",\"sha256\":\"" H64 "\"}"
#define LAUNCHER "\"lockfile\":" ART("bin", "123")

static int
parse(const char *s, struct relman *m, const char **why)
{
	size_t n = strlen(s);
	char *copy = malloc(n ? n : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, s, n);
	r = relman_parse(copy, n, m, why);
	free(copy);
	return r;
}

static char *
doc(const char *repo, const char *tag, const char *commit, const char *extra,
    const char *arts)
{
	static char buf[1 << 17];

	snprintf(buf, sizeof(buf), "{\"schema\":1,\"repository\":\"%s\","
	    "\"tag\":\"%s\",\"commit\":\"%s\",\"source_date_epoch\":1700000000"
	    "%s,\"artifacts\":{%s}}", repo, tag, commit, extra, arts);
	return buf;
}

static void
test_good_manifest(void **state)
{
	static struct relman m;
	const struct relart *a;
	const char *why = NULL;

	assert_int_equal(parse(doc("o/r", "v1.20.3", C40, "", LAUNCHER
	    ",\"seccomp.json\":" ART("share", "7") ",\"lockfile-console.oci.tar\":"
	    ART("image", "8589934592") ",\"plugin-is-pdf\":" ART("plugin", "0")
	    ",\"lockfile.conf\":" ART("tmpfiles", "1")), &m, &why), RELMAN_OK);
	assert_null(why);
	assert_string_equal(m.repo, "o/r");
	assert_string_equal(m.tag, "v1.20.3");
	assert_string_equal(m.version, "1.20.3");
	assert_string_equal(m.commit, C40);
	assert_int_equal(m.source_date_epoch, 1700000000);
	assert_int_equal(m.n, 5);
	assert_false(relart_installed(relman_find(&m, "lockfile.conf")));
	a = relman_find(&m, "lockfile");
	assert_non_null(a);
	assert_int_equal(a->kind, RELART_BIN);
	assert_int_equal(a->size, 123);
	assert_true(relart_installed(a));
	a = relman_find(&m, "lockfile-console.oci.tar");
	assert_non_null(a);
	assert_int_equal(a->size, 8ULL << 30);
	assert_false(relart_installed(a));
	assert_true(relart_installed(relman_find(&m, "seccomp.json")));
	assert_null(relman_find(&m, "nope"));
}

static void
test_bad_manifests(void **state)
{
	static struct relman m;
	const char *why;
	const char *bad[] = {
		"",
		"[]",
		"{}",
		"{\"schema\":1}",
		/* duplicate key, trailing bytes, NUL */
		"{\"schema\":1,\"schema\":1,\"repository\":\"o/r\",\"tag\":\"v1.0.0\","
		"\"commit\":\"" C40 "\",\"source_date_epoch\":1,\"artifacts\":{"
		LAUNCHER "}}",
		NULL,
	};
	struct { const char *repo, *tag, *commit, *extra, *arts; } cases[] = {
		{ "o/r", "v1.0.0", C40, ",\"extra\":1", LAUNCHER },
		{ "or", "v1.0.0", C40, "", LAUNCHER },
		{ "o/r/x", "v1.0.0", C40, "", LAUNCHER },
		{ "../r", "v1.0.0", C40, "", LAUNCHER },
		{ "o/r", "1.0.0", C40, "", LAUNCHER },
		{ "o/r", "v1.0", C40, "", LAUNCHER },
		{ "o/r", "v01.0.0", C40, "", LAUNCHER },
		{ "o/r", "v1.0.0-rc1", C40, "", LAUNCHER },
		{ "o/r", "V1.0.0", C40, "", LAUNCHER },
		{ "o/r", "v1.0.0", "0123", "", LAUNCHER },
		{ "o/r", "v1.0.0", "0123456789ABCDEF0123456789abcdef01234567", "",
		  LAUNCHER },
		{ "o/r", "v1.0.0", C40, "", "" },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":" ART("exe", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":" ART("bin", "-1") },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":" ART("bin", "1.5") },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":" ART("bin", "\"1\"") },
		{ "o/r", "v1.0.0", C40, "", "\"x\":" ART("image", "8589934593") },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":{\"kind\":\"bin\","
		  "\"size\":1,\"sha256\":\"" H64 "\",\"more\":1}" },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":{\"kind\":\"bin\","
		  "\"size\":1}" },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":{\"kind\":\"bin\","
		  "\"size\":1,\"sha256\":\"" H64 "0\"}" },
		{ "o/r", "v1.0.0", C40, "", "\"lockfile\":{\"kind\":\"bin\","
		  "\"size\":1,\"sha256\":\"0123456789ABCDEF0123456789abcdef"
		  "0123456789abcdef0123456789abcdef\"}" },
		/* names */
		{ "o/r", "v1.0.0", C40, "", "\"lock.file\":" ART("bin", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"Lockfile\":" ART("bin", "1") },
		{ "o/r", "v1.0.0", C40, "", "\".x\":" ART("share", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"a/b\":" ART("share", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"a..b\":" ART("share", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"x.sigstore.json\":" ART("share", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"release.json\":" ART("info", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"install.sh\":" ART("info", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"a b\":" ART("share", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"\":" ART("share", "1") },
		{ "o/r", "v1.0.0", C40, "", "\"a\\u0000b\":" ART("share", "1") },
	};
	size_t i;

	for (i = 0; bad[i] != NULL; i++) {
		why = NULL;
		assert_int_equal(parse(bad[i], &m, &why), RELMAN_E_INVALID);
		assert_non_null(why);
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why = NULL;
		if (parse(doc(cases[i].repo, cases[i].tag, cases[i].commit,
		    cases[i].extra, cases[i].arts), &m, &why) != RELMAN_E_INVALID)
			fail_msg("case %zu accepted", i);
		assert_non_null(why);
		assert_int_equal(m.n, 0);
	}
}

static void
test_limits(void **state)
{
	static char arts[1 << 16];
	static struct relman m;
	const char *why;
	size_t used = 0;
	int i;

	for (i = 0; i < RELMAN_MAX_ARTIFACTS; i++)
		used += (size_t)snprintf(arts + used, sizeof(arts) - used,
		    "%s\"a%d\":" ART("info", "1"), i ? "," : "", i);
	assert_int_equal(parse(doc("o/r", "v1.0.0", C40, "", arts), &m, &why),
	    RELMAN_OK);
	assert_int_equal(m.n, RELMAN_MAX_ARTIFACTS);
	snprintf(arts + used, sizeof(arts) - used, ",\"z\":" ART("info", "1"));
	assert_int_equal(parse(doc("o/r", "v1.0.0", C40, "", arts), &m, &why),
	    RELMAN_E_INVALID);
	/* Depth: an artifact is a flat object. */
	assert_int_equal(parse(doc("o/r", "v1.0.0", C40, "", "\"x\":{\"kind\":"
	    "[\"bin\"],\"size\":1,\"sha256\":\"" H64 "\"}"), &m, &why),
	    RELMAN_E_INVALID);
}

static void
test_tags_and_names(void **state)
{
	char v[32];

	assert_true(release_tag_valid("v0.1.0", v, sizeof(v)));
	assert_string_equal(v, "0.1.0");
	assert_true(release_tag_valid("v999999.0.1", v, sizeof(v)));
	assert_false(release_tag_valid("v1000000.0.1", v, sizeof(v)));
	assert_false(release_tag_valid("v1.0.0", v, 5));
	assert_false(release_tag_valid("is-pdf/v1.0.0", v, sizeof(v)));
	assert_false(release_tag_valid("index/v3", v, sizeof(v)));
	assert_false(release_tag_valid("v", v, sizeof(v)));
	assert_true(relart_name_valid("lockhub", RELART_BIN));
	assert_false(relart_name_valid("lockhub.sh", RELART_BIN));
	assert_true(relart_name_valid("lockfile-0.1.0.tar.gz", RELART_SOURCE));
	assert_false(relart_name_valid("release.json", RELART_SHARE));
}

static void
test_trust_release_url(void **state)
{
	static struct trust t;
	char why[256];
	const char *good = "release_repository = \"o/r\"\n"
	    "release_url = \"https://example.org/o/r/releases\"\n";
	const char *bad[] = {
		"release_repository = \"o/r\"\nrelease_url = \"http://x/\"\n",
		"release_repository = \"o/r\"\nrelease_url = \"https://x/?q\"\n",
		"release_repository = \"o/r\"\nrelease_url = \"https://x/../y\"\n",
		"release_repository = \"o/r\"\nrelease_url = 3\n",
		NULL,
	};
	size_t i;

	assert_int_equal(trust_parse(good, strlen(good), &t, why, sizeof(why)),
	    0);
	assert_string_equal(t.release_url, "https://example.org/o/r/releases");
	trust_free(&t);
	assert_int_equal(trust_parse("release_repository = \"o/r\"\n", 27, &t,
	    why, sizeof(why)), 0);
	assert_string_equal(t.release_url, "");
	trust_free(&t);
	for (i = 0; bad[i] != NULL; i++)
		assert_int_not_equal(trust_parse(bad[i], strlen(bad[i]), &t, why,
		    sizeof(why)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_manifest),
		cmocka_unit_test(test_bad_manifests),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_tags_and_names),
		cmocka_unit_test(test_trust_release_url),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("release-manifest", tests, NULL,
	    NULL);
}
