/* Unit tests for src/protocol: key cleaning (a table of cases, hostile ones
 * first), the shape language, the closed table's consistency, and the
 * response checker the client uses (every rule that ties a response to its
 * request). Every key is cleaned from an exact-size heap copy, so ASan sees
 * a read past its length. cmocka, TAP output. */
#include "protocol/check.h"
#include "protocol/key.h"
#include "protocol/response.h"
#include "protocol/shape.h"
#include "protocol/table.h"
#include "lib/jsonx.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

/* ---- key cleaning ---- */

struct key_case {
	const char *raw;
	size_t len;		/* 0: strlen(raw) */
	enum key_status want;
	const char *out;	/* when KEY_OK */
};

#define K(r, w, o) { r, 0, w, o }
#define KN(r, w, o) { r, sizeof(r) - 1, w, o }	/* with embedded NULs */

static const struct key_case key_cases[] = {
	/* plain and cleaned */
	K("2024/a.pdf", KEY_OK, "2024/a.pdf"),
	K("2024/./a.pdf", KEY_OK, "2024/a.pdf"),
	K("2024//a.pdf", KEY_OK, "2024/a.pdf"),
	K("2024/x/../a.pdf", KEY_OK, "2024/a.pdf"),
	K("./2024/a.pdf", KEY_OK, "2024/a.pdf"),
	K("2024/a.pdf/", KEY_OK, "2024/a.pdf"),
	K("2024/a.pdf/.", KEY_OK, "2024/a.pdf"),
	K("a/b/../../c", KEY_OK, "c"),
	K("a/b/c/../../../d/e", KEY_OK, "d/e"),
	K(".../a", KEY_OK, ".../a"),
	K("..a/b..", KEY_OK, "..a/b.."),
	K("a/.hidden", KEY_OK, "a/.hidden"),
	/* percent-decoded once */
	K("2024/%61.pdf", KEY_OK, "2024/a.pdf"),
	K("invoices/./%61.pdf", KEY_OK, "invoices/a.pdf"),
	K("2024%2fa.pdf", KEY_OK, "2024/a.pdf"),
	K("2024%2Fa.pdf", KEY_OK, "2024/a.pdf"),
	K("%252e%252e/a", KEY_OK, "%2e%2e/a"),	/* once, not twice */
	K("%25", KEY_OK, "%"),
	K("a%20b", KEY_OK, "a b"),
	/* escaping the root, in every spelling */
	K("..", KEY_ESCAPES_ROOT, NULL),
	K("../a", KEY_ESCAPES_ROOT, NULL),
	K("a/../../b", KEY_ESCAPES_ROOT, NULL),
	K("2024/../../etc/passwd", KEY_ESCAPES_ROOT, NULL),
	K("%2e%2e/a", KEY_ESCAPES_ROOT, NULL),
	K("%2E%2E%2Fa", KEY_ESCAPES_ROOT, NULL),
	K(".%2e/a", KEY_ESCAPES_ROOT, NULL),
	K("a/%2e%2e/%2e%2e/b", KEY_ESCAPES_ROOT, NULL),
	K("a//..//..//b", KEY_ESCAPES_ROOT, NULL),
	K("./../a", KEY_ESCAPES_ROOT, NULL),
	/* absolute */
	K("/etc/passwd", KEY_ABSOLUTE, NULL),
	K("/", KEY_ABSOLUTE, NULL),
	K("%2fetc/passwd", KEY_ABSOLUTE, NULL),
	K("//srv/x", KEY_ABSOLUTE, NULL),
	/* forbidden bytes, raw or decoded */
	K("a\\b", KEY_FORBIDDEN_BYTE, NULL),
	K("..\\..\\windows", KEY_FORBIDDEN_BYTE, NULL),
	K("a%5cb", KEY_FORBIDDEN_BYTE, NULL),
	K("a%00b", KEY_FORBIDDEN_BYTE, NULL),
	KN("a\0b", KEY_FORBIDDEN_BYTE, NULL),
	KN("2024/a.pdf\0../../x", KEY_FORBIDDEN_BYTE, NULL),
	K("a\x1b[2Jb", KEY_FORBIDDEN_BYTE, NULL),
	K("a%1b[31mred", KEY_FORBIDDEN_BYTE, NULL),
	K("a\nb", KEY_FORBIDDEN_BYTE, NULL),
	K("a%0d%0ab", KEY_FORBIDDEN_BYTE, NULL),
	K("a\tb", KEY_FORBIDDEN_BYTE, NULL),
	K("a%7fb", KEY_FORBIDDEN_BYTE, NULL),
	K("a\x7f" "b", KEY_FORBIDDEN_BYTE, NULL),
	/* not UTF-8, or C1 controls */
	K("a%ffb", KEY_BAD_UTF8, NULL),
	K("a\xff" "b", KEY_BAD_UTF8, NULL),
	K("%c0%ae%c0%ae/a", KEY_BAD_UTF8, NULL),	/* overlong "." */
	K("\xc0\xaf", KEY_BAD_UTF8, NULL),		/* overlong "/" */
	K("\xe0\x80\xaf", KEY_BAD_UTF8, NULL),
	K("%ed%a0%80", KEY_BAD_UTF8, NULL),		/* surrogate */
	K("\xf4\x90\x80\x80", KEY_BAD_UTF8, NULL),	/* above U+10FFFF */
	K("\xc2\x9b" "31m", KEY_BAD_UTF8, NULL),	/* C1 CSI */
	K("%c2%85", KEY_BAD_UTF8, NULL),		/* C1 NEL */
	K("a\xe2\x82", KEY_BAD_UTF8, NULL),		/* truncated */
	/* UTF-8 that is valid passes (the card escapes it) */
	K("2024/\xe2\x80\xae" "fdp.exe", KEY_OK, "2024/\xe2\x80\xae" "fdp.exe"),
	K("2024/r\xc3\xa9sum\xc3\xa9.pdf", KEY_OK,
	    "2024/r\xc3\xa9sum\xc3\xa9.pdf"),
	K("2024/%e2%80%8b", KEY_OK, "2024/\xe2\x80\x8b"),
	/* bad escapes */
	K("%", KEY_BAD_ESCAPE, NULL),
	K("a%", KEY_BAD_ESCAPE, NULL),
	K("a%4", KEY_BAD_ESCAPE, NULL),
	K("a%zz", KEY_BAD_ESCAPE, NULL),
	K("a%%41", KEY_BAD_ESCAPE, NULL),
	K("a%+1", KEY_BAD_ESCAPE, NULL),
	K("%-1", KEY_BAD_ESCAPE, NULL),
	/* nothing left */
	K("", KEY_EMPTY, NULL),
	K(".", KEY_EMPTY, NULL),
	K("./", KEY_EMPTY, NULL),
	K("a/..", KEY_EMPTY, NULL),
	K("a/b/../..", KEY_EMPTY, NULL),
	K("%2e", KEY_EMPTY, NULL),
};

static void
check_key(const struct key_case *kc, const char *prefix)
{
	size_t len = kc->len ? kc->len : strlen(kc->raw);
	char *copy = malloc(len == 0 ? 1 : len);
	char out[PROTO_MAX_KEY + 1];
	enum key_status got;

	assert_non_null(copy);
	memcpy(copy, kc->raw, len);
	memset(out, 'Z', sizeof(out));
	got = prefix ? key_clean_in_prefix(copy, len, prefix, out, sizeof(out))
	    : key_clean(copy, len, out, sizeof(out));
	free(copy);
	if (got != kc->want) {
		char esc[256];
		size_t i, o = 0;
		for (i = 0; i < len && o + 5 < sizeof(esc); i++)
			o += (size_t)snprintf(esc + o, sizeof(esc) - o,
			    (unsigned char)kc->raw[i] >= 0x20 &&
			    (unsigned char)kc->raw[i] < 0x7f ? "%c" : "\\x%02x",
			    (unsigned char)kc->raw[i]);
		fail_msg("key \"%s\": got %s, want %s", esc, key_status_name(got),
		    key_status_name(kc->want));
	}
	if (kc->want == KEY_OK)
		assert_string_equal(out, kc->out);
}

static void
test_key_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(key_cases) / sizeof(key_cases[0]); i++)
		check_key(&key_cases[i], NULL);
}

static void
test_key_prefix(void **state)
{
	static const struct key_case in2024[] = {
		K("2024/a.pdf", KEY_OK, "2024/a.pdf"),
		K("2024/sub/../a.pdf", KEY_OK, "2024/a.pdf"),
		K("2024%2fa.pdf", KEY_OK, "2024/a.pdf"),
		K("./2024/a.pdf", KEY_OK, "2024/a.pdf"),
		K("2024", KEY_OUTSIDE_PREFIX, NULL),
		K("2024/", KEY_OUTSIDE_PREFIX, NULL),
		K("2024/.", KEY_OUTSIDE_PREFIX, NULL),
		K("2024/x/..", KEY_OUTSIDE_PREFIX, NULL),
		K("2024x/a.pdf", KEY_OUTSIDE_PREFIX, NULL),
		K("20245/a.pdf", KEY_OUTSIDE_PREFIX, NULL),
		K("2024/../secret/outside.txt", KEY_OUTSIDE_PREFIX, NULL),
		K("2024/%2e%2e/secret/outside.txt", KEY_OUTSIDE_PREFIX, NULL),
		K("secret/outside.txt", KEY_OUTSIDE_PREFIX, NULL),
		K("2025/a.pdf", KEY_OUTSIDE_PREFIX, NULL),
		K("../2024/a.pdf", KEY_ESCAPES_ROOT, NULL),
		K("/2024/a.pdf", KEY_ABSOLUTE, NULL),
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in2024) / sizeof(in2024[0]); i++)
		check_key(&in2024[i], "2024/");
	/* an empty prefix takes any clean key */
	check_key(&key_cases[0], "");
	{
		static const struct key_case c = K("secret/x", KEY_OK, "secret/x");
		check_key(&c, "");
	}
}

static void
test_key_lengths(void **state)
{
	char raw[PROTO_MAX_KEY + 2], out[PROTO_MAX_KEY + 1];
	char small[8];

	(void)state;
	memset(raw, 'a', sizeof(raw));
	assert_int_equal(key_clean(raw, PROTO_MAX_KEY, out, sizeof(out)), KEY_OK);
	assert_int_equal(strlen(out), PROTO_MAX_KEY);
	assert_int_equal(key_clean(raw, PROTO_MAX_KEY + 1, out, sizeof(out)),
	    KEY_TOO_LONG);
	/* the most components a key can hold (512), and ".." undoing each */
	{
		size_t i, n = 0;
		for (i = 0; i < PROTO_MAX_KEY / 2; i++) {
			raw[n++] = 'a';
			raw[n++] = '/';
		}
		assert_int_equal(key_clean(raw, n, out, sizeof(out)), KEY_OK);
		assert_int_equal(strlen(out), PROTO_MAX_KEY - 1);
		for (n = 0; n + 5 <= PROTO_MAX_KEY - 3; n += 5)
			memcpy(raw + n, "a/../", 5);
		assert_int_equal(key_clean(raw, n, out, sizeof(out)), KEY_EMPTY);
		memcpy(raw + n, "../", 3);
		assert_int_equal(key_clean(raw, n + 3, out, sizeof(out)),
		    KEY_ESCAPES_ROOT);
	}
	/* an output buffer too small is refused, never overrun */
	assert_int_equal(key_clean("abcdefgh", 8, small, sizeof(small)),
	    KEY_TOO_LONG);
	assert_int_equal(key_clean("abcdefg", 7, small, sizeof(small)), KEY_OK);
	assert_int_equal(key_clean("a", 1, small, 0), KEY_TOO_LONG);
	/* percent-encoded bytes count before decoding */
	{
		size_t i;
		for (i = 0; i + 3 <= PROTO_MAX_KEY + 3; i += 3)
			memcpy(raw + i, "%61", 3);
		assert_int_equal(key_clean(raw, 1026, out, sizeof(out)),
		    KEY_TOO_LONG);
		assert_int_equal(key_clean(raw, 1023, out, sizeof(out)), KEY_OK);
		assert_int_equal(strlen(out), 341);
	}
}

static void
test_key_status_names(void **state)
{
	int s;

	(void)state;
	for (s = KEY_OK; s <= KEY_OUTSIDE_PREFIX; s++)
		assert_string_not_equal(key_status_name((enum key_status)s),
		    "unknown");
	assert_string_equal(key_status_name((enum key_status)99), "unknown");
}

/* ---- shapes and alphabets ---- */

static void
test_alphabets(void **state)
{
	(void)state;
	assert_true(name_is_plugin("is-pdf"));
	assert_true(name_is_plugin("a"));
	assert_true(name_is_plugin("abcdefghijklmnopqrstuvwxyz012345"));
	assert_false(name_is_plugin("abcdefghijklmnopqrstuvwxyz0123456"));
	assert_false(name_is_plugin(""));
	assert_false(name_is_plugin("-x"));
	assert_false(name_is_plugin("1x"));
	assert_false(name_is_plugin("Is-pdf"));
	assert_false(name_is_plugin("is_pdf"));
	assert_false(name_is_plugin("is pdf"));
	assert_false(name_is_plugin("is-pdf\n"));
	assert_false(name_is_plugin("../x"));
	assert_true(name_is_profile("invoices"));
	assert_true(name_is_profile("2024_q1-x"));
	assert_false(name_is_profile("_x"));
	assert_false(name_is_profile("Invoices"));
	assert_false(name_is_profile("a/b"));
	assert_false(name_is_profile(""));
	assert_true(name_is_input("email"));
	assert_true(name_is_input("a_1"));
	assert_false(name_is_input("1a"));
	assert_false(name_is_input("a-b"));
	assert_false(name_is_input("A"));
	assert_true(version_is_valid("1.0.0"));
	assert_true(version_is_valid("0.0.0"));
	assert_true(version_is_valid("10.200.3000"));
	assert_true(version_is_valid("999999.999999.999999"));
	assert_false(version_is_valid("9999999.0.0"));
	assert_false(version_is_valid("01.0.0"));
	assert_false(version_is_valid("1.00.0"));
	assert_false(version_is_valid("1.0"));
	assert_false(version_is_valid("1.0.0.0"));
	assert_false(version_is_valid("1.0.0-rc1"));
	assert_false(version_is_valid("1.0.0 "));
	assert_false(version_is_valid(".1.0"));
	assert_false(version_is_valid("1..0"));
	assert_false(version_is_valid("v1.0.0"));
	assert_false(version_is_valid(""));
	assert_true(text_is_manifest("Is it a PDF?", 200));
	assert_false(text_is_manifest("", 200));
	assert_false(text_is_manifest("tab\there", 200));
	assert_false(text_is_manifest("esc\x1b[2J", 200));
	assert_false(text_is_manifest("caf\xc3\xa9", 200));
	assert_false(text_is_manifest("rlo\xe2\x80\xae", 200));
	assert_false(text_is_manifest("abc", 2));
	assert_true(text_is_manifest("ab", 2));
}

static int
fits(enum lf_method m, const char *json)
{
	char where[160];
	json_t *v = json_loads(json, 0, NULL);
	int r;

	assert_non_null(v);
	r = proto_check_result(m, v, where, sizeof(where));
	json_decref(v);
	return r == 0;
}

#define ID32 "0123456789abcdef0123456789abcdef"
#define STATUS_OK "\"console\":\"up\",\"production\":false,\"security_level\":1," \
	"\"idle_timeout_s\":3600,\"session_left_s\":100,\"plugin_protocol\":[1,2]," \
	"\"sandbox\":\"ok\",\"answer_quantum_s\":5"
#define PLUGIN_OK "\"name\":\"is-pdf\",\"version\":\"1.0.0\",\"official\":true," \
	"\"question\":\"Q?\",\"one\":\"yes\",\"zero\":\"no\",\"protocol\":1," \
	"\"inputs\":[]"

static void
test_shapes_status(void **state)
{
	(void)state;
	assert_true(fits(M_STATUS, "{" STATUS_OK "}"));
	assert_true(fits(M_STATUS, "{" STATUS_OK ",\"profile\":\"invoices\"}"));
	assert_false(fits(M_STATUS, "{" STATUS_OK ",\"size\":12}"));
	assert_false(fits(M_STATUS, "{" STATUS_OK ",\"profile\":\"In/voices\"}"));
	assert_false(fits(M_STATUS, "{\"console\":\"up\"}"));
	assert_false(fits(M_STATUS, "[]"));
	assert_false(fits(M_STATUS, "{" STATUS_OK ",\"console\":\"down\"}"));
	assert_false(fits(M_STATUS,
	    "{\"console\":\"up\",\"production\":0,\"security_level\":1,"
	    "\"idle_timeout_s\":3600,\"session_left_s\":100,\"plugin_protocol\":[1,2],"
	    "\"sandbox\":\"ok\",\"answer_quantum_s\":5}"));
	assert_false(fits(M_STATUS,
	    "{\"console\":\"up\",\"production\":false,\"security_level\":2,"
	    "\"idle_timeout_s\":3600,\"session_left_s\":100,\"plugin_protocol\":[1,2],"
	    "\"sandbox\":\"ok\",\"answer_quantum_s\":5}"));
	assert_false(fits(M_STATUS,
	    "{\"console\":\"up\",\"production\":false,\"security_level\":1,"
	    "\"idle_timeout_s\":3600,\"session_left_s\":-1,\"plugin_protocol\":[1,2],"
	    "\"sandbox\":\"ok\",\"answer_quantum_s\":5}"));
	assert_false(fits(M_STATUS,
	    "{\"console\":\"up\",\"production\":false,\"security_level\":1,"
	    "\"idle_timeout_s\":3600,\"session_left_s\":1,\"plugin_protocol\":[1,2,3],"
	    "\"sandbox\":\"ok\",\"answer_quantum_s\":5}"));
	assert_false(fits(M_STATUS,
	    "{\"console\":\"up\",\"production\":false,\"security_level\":1,"
	    "\"idle_timeout_s\":3600,\"session_left_s\":1,\"plugin_protocol\":[1,2],"
	    "\"sandbox\":\"maybe\",\"answer_quantum_s\":5}"));
	assert_false(fits(M_STATUS,
	    "{\"console\":\"up\",\"production\":false,\"security_level\":1,"
	    "\"idle_timeout_s\":3600,\"session_left_s\":1,\"plugin_protocol\":[1,2],"
	    "\"sandbox\":\"ok\",\"answer_quantum_s\":0}"));
	assert_false(fits(M_STATUS,
	    "{\"console\":\"up\",\"production\":false,\"security_level\":1,"
	    "\"idle_timeout_s\":3600.5,\"session_left_s\":1,\"plugin_protocol\":[1,2],"
	    "\"sandbox\":\"ok\",\"answer_quantum_s\":1}"));
}

static void
test_shapes_plan_and_plugins(void **state)
{
	(void)state;
	assert_true(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[{\"plugin\":\"is-pdf\",\"version\":\"1.0.0\","
	    "\"result\":1},{\"plugin\":\"x\",\"version\":\"1.0.0\",\"result\":null,"
	    "\"error\":\"plugin_error\"}],\"held_inputs\":[\"email\"]}"));
	/* ids: prefix, length, lowercase hex */
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "0\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_0123456789ABCDEF0123456789"
	    "abcdef\",\"handle\":\"f_" ID32 "\",\"answers\":[],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"f_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_1\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[],\"held_inputs\":[]}"));
	/* result: 1, 0 or null with the error; nothing else */
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[{\"plugin\":\"a\",\"version\":\"1.0.0\","
	    "\"result\":2}],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[{\"plugin\":\"a\",\"version\":\"1.0.0\","
	    "\"result\":true}],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[{\"plugin\":\"a\",\"version\":\"1.0.0\","
	    "\"result\":null}],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[{\"plugin\":\"a\",\"version\":\"1.0.0\","
	    "\"result\":1,\"error\":\"plugin_error\"}],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[{\"plugin\":\"a\",\"version\":\"1.0.0\","
	    "\"result\":null,\"error\":\"segfault at 0x0\"}],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[{\"plugin\":\"a\",\"version\":\"1.0.0\","
	    "\"result\":1,\"wall_ms\":3}],\"held_inputs\":[]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[],\"held_inputs\":[\"Email\"]}"));
	assert_false(fits(M_FILE_PLAN, "{\"plan\":\"pl_" ID32 "\",\"handle\":\"f_"
	    ID32 "\",\"answers\":[],\"held_inputs\":[],\"size\":1}"));
	/* an embedded NUL never passes as a string of the alphabet */
	{
		json_t *v = json_pack("{s:s,s:s,s:[],s:[s#]}", "plan", "pl_" ID32,
		    "handle", "f_" ID32, "answers", "held_inputs", "email\0x", 7);
		char where[160];
		assert_non_null(v);
		assert_int_not_equal(proto_check_result(M_FILE_PLAN, v, where,
		    sizeof(where)), 0);
		assert_string_equal(where, "held_inputs[0]");
		json_decref(v);
	}

	assert_true(fits(M_FILE_PLUGINS, "{\"plugins\":[{" PLUGIN_OK "}]}"));
	assert_true(fits(M_FILE_PLUGINS, "{\"plugins\":[]}"));
	/* warning exactly when unofficial */
	assert_false(fits(M_FILE_PLUGINS, "{\"plugins\":[{" PLUGIN_OK
	    ",\"warning\":\"unofficial_marketplace\"}]}"));
	assert_false(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":false,\"question\":\"Q?\","
	    "\"one\":\"y\",\"zero\":\"n\",\"protocol\":1,\"inputs\":[]}]}"));
	assert_true(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":false,\"warning\":"
	    "\"unofficial_marketplace\",\"question\":\"Q?\",\"one\":\"y\","
	    "\"zero\":\"n\",\"protocol\":1,\"inputs\":[]}]}"));
	/* protocol 1 has no inputs, protocol 2 has some */
	assert_false(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":true,\"question\":\"Q?\","
	    "\"one\":\"y\",\"zero\":\"n\",\"protocol\":2,\"inputs\":[]}]}"));
	assert_true(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":true,\"question\":\"Q?\","
	    "\"one\":\"y\",\"zero\":\"n\",\"protocol\":2,\"inputs\":[{\"name\":"
	    "\"needle\",\"kind\":\"text\",\"max_bytes\":1024}]}]}"));
	assert_false(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":true,\"question\":\"Q?\","
	    "\"one\":\"y\",\"zero\":\"n\",\"protocol\":2,\"inputs\":[{\"name\":"
	    "\"needle\",\"kind\":\"regex\",\"max_bytes\":1024}]}]}"));
	assert_false(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":true,\"question\":\"Q?\","
	    "\"one\":\"y\",\"zero\":\"n\",\"protocol\":2,\"inputs\":[{\"name\":"
	    "\"needle\",\"kind\":\"text\",\"max_bytes\":4097}]}]}"));
	/* manifest text: printable ASCII only */
	assert_false(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":true,\"question\":\"Q\\u001b[2J\","
	    "\"one\":\"y\",\"zero\":\"n\",\"protocol\":1,\"inputs\":[]}]}"));
	assert_false(fits(M_FILE_PLUGINS, "{\"plugins\":[{\"name\":\"x\","
	    "\"version\":\"1.0.0\",\"official\":true,\"question\":\"Q\\u202e\","
	    "\"one\":\"y\",\"zero\":\"n\",\"protocol\":1,\"inputs\":[]}]}"));

	assert_true(fits(M_SOURCES, "{\"sources\":[{\"profile\":\"a\","
	    "\"production\":true}]}"));
	assert_false(fits(M_SOURCES, "{\"sources\":[{\"profile\":\"a\","
	    "\"production\":true,\"path\":\"/srv\"}]}"));
	assert_false(fits(M_SOURCES, "{\"sources\":[\"a\"]}"));
	assert_true(fits(M_FILE_RELEASE, "{\"released\":true}"));
	assert_false(fits(M_FILE_RELEASE, "{\"released\":false}"));
	assert_false(fits(M_FILE_RELEASE, "{\"released\":1}"));
	assert_true(fits(M_CHANGE_REQUEST, "{\"queued\":true}"));
	assert_false(fits(M_CHANGE_REQUEST, "{\"queued\":true,\"text\":\"x\"}"));
}

static void
test_shape_array_cap(void **state)
{
	json_t *list = json_array(), *r;
	char where[160];
	int i;

	(void)state;
	for (i = 0; i < PROTO_MAX_LIST + 1; i++)
		json_array_append_new(list, json_pack("{s:s,s:b}", "profile", "a",
		    "production", 0));
	r = json_pack("{s:o}", "sources", list);
	assert_int_not_equal(proto_check_result(M_SOURCES, r, where,
	    sizeof(where)), 0);
	assert_string_equal(where, "sources");
	json_array_remove(list, 0);
	assert_int_equal(proto_check_result(M_SOURCES, r, where, sizeof(where)),
	    0);
	json_decref(r);
}

/* ---- the table ---- */

static void
test_table_errors(void **state)
{
	int a, b;

	(void)state;
	for (a = E_NONE + 1; a < E__COUNT; a++) {
		const struct proto_error *pa = proto_error((enum lf_err)a);
		assert_non_null(pa->name);
		assert_non_null(pa->hint);
		assert_memory_equal(pa->name, "E_", 2);
		assert_true(text_is_manifest(pa->hint, PROTO_MAX_MANIFEST_TEXT));
		/* JSON-RPC: -32600 for an invalid request, the server range
		 * -32099..-32000 for the rest */
		if (a == E_BAD_REQUEST)
			assert_int_equal(pa->code, -32600);
		else
			assert_true(pa->code >= -32099 && pa->code <= -32000);
		assert_int_equal(proto_error_by_name(pa->name), a);
		for (b = a + 1; b < E__COUNT; b++) {
			const struct proto_error *pb = proto_error((enum lf_err)b);
			assert_int_not_equal(pa->code, pb->code);
			assert_string_not_equal(pa->name, pb->name);
			assert_string_not_equal(pa->hint, pb->hint);
		}
	}
	assert_int_equal(proto_error_by_name("E_NONE"), E_NONE);
	assert_int_equal(proto_error_by_name("E_bad_request"), E_NONE);
	assert_int_equal(proto_error_by_name(""), E_NONE);
	/* SPEC section 5 names exactly these codes */
	{
		static const char *const spec[] = { "E_KEY_OUTSIDE_PREFIX",
		    "E_TOO_MANY_PLUGINS", "E_UNKNOWN_PROFILE",
		    "E_PLUGIN_NOT_INSTALLED", "E_PLUGIN_TAMPERED",
		    "E_PLUGIN_YANKED", "E_SANDBOX_UNAVAILABLE",
		    "E_PROC_NOT_HIDDEN", "E_HANDLE_EXPIRED", "E_FETCH_FAILED",
		    "E_APPROVAL_DENIED", "E_APPROVAL_TIMEOUT", "E_STALE",
		    "E_LITERAL_INPUT", "E_INPUT_INVALID", "E_BAD_REQUEST",
		    "E_PEER_REFUSED",
		    /* docs/ledger.md: the answer cap */
		    "E_ANSWER_CAP",
		    /* docs/hub.md: one agent's share of the ticket table */
		    "E_TOO_MANY_PENDING" };
		size_t i;
		assert_int_equal(sizeof(spec) / sizeof(spec[0]), E__COUNT - 1);
		for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++)
			assert_int_not_equal(proto_error_by_name(spec[i]), E_NONE);
	}
}

static void
test_table_methods(void **state)
{
	static const char *const spec[] = { "status", "sources", "file.plugins",
	    "file.plan", "file.run", "file.release", "change.request" };
	int m, used[E__COUNT];
	size_t i, j;

	(void)state;
	memset(used, 0, sizeof(used));
	assert_int_equal(sizeof(spec) / sizeof(spec[0]), M__COUNT);
	for (m = 0; m < M__COUNT; m++) {
		const struct proto_method *pm = proto_method((enum lf_method)m);
		assert_string_equal(pm->name, spec[m]);
		assert_int_equal(proto_method_by_name(pm->name), m);
		assert_non_null(pm->result);
		assert_int_equal(pm->result->kind, SK_OBJECT);
		assert_true(pm->nerrors >= 2);
		/* every method may be refused as a bad request or a bad peer */
		assert_true(proto_method_may_fail((enum lf_method)m, E_BAD_REQUEST));
		assert_true(proto_method_may_fail((enum lf_method)m, E_PEER_REFUSED));
		for (i = 0; i < pm->nerrors; i++) {
			assert_true(pm->errors[i] > E_NONE && pm->errors[i] < E__COUNT);
			used[pm->errors[i]] = 1;
			for (j = i + 1; j < pm->nerrors; j++)
				assert_int_not_equal(pm->errors[i], pm->errors[j]);
		}
	}
	assert_int_equal(proto_method_by_name("file.plan "), M__COUNT);
	assert_int_equal(proto_method_by_name("STATUS"), M__COUNT);
	assert_int_equal(proto_method_by_name(""), M__COUNT);
	/* file.plan answers every local-mode refusal of SPEC section 6 */
	{
		static const enum lf_err plan[] = { E_LITERAL_INPUT,
		    E_UNKNOWN_PROFILE, E_KEY_OUTSIDE_PREFIX,
		    E_PLUGIN_NOT_INSTALLED, E_PLUGIN_YANKED, E_PLUGIN_TAMPERED,
		    E_TOO_MANY_PLUGINS, E_SANDBOX_UNAVAILABLE, E_PROC_NOT_HIDDEN,
		    E_HANDLE_EXPIRED, E_INPUT_INVALID, E_APPROVAL_DENIED,
		    E_APPROVAL_TIMEOUT, E_FETCH_FAILED, E_ANSWER_CAP };
		for (i = 0; i < sizeof(plan) / sizeof(plan[0]); i++)
			assert_true(proto_method_may_fail(M_FILE_PLAN, plan[i]));
		assert_true(proto_method_may_fail(M_FILE_RELEASE,
		    E_HANDLE_EXPIRED));
		assert_true(proto_method_may_fail(M_STATUS, E_UNKNOWN_PROFILE));
		assert_false(proto_method_may_fail(M_STATUS, E_FETCH_FAILED));
		assert_false(proto_method_may_fail(M_SOURCES, E_UNKNOWN_PROFILE));
	}
	/* Every code is answerable by some method; E_STALE only by the hub's
	 * file.run. */
	for (m = E_NONE + 1; m < E__COUNT; m++)
		assert_true(used[m]);
	assert_true(proto_method_may_fail(M_FILE_RUN, E_STALE));
	assert_false(proto_method_may_fail(M_FILE_PLAN, E_STALE));
	/* a hub run past the handle's answers left (plan_steps.c's plan_bounds) */
	assert_true(proto_method_may_fail(M_FILE_RUN, E_TOO_MANY_PLUGINS));
	/* the share of the ticket table: hub mode's plan and renewal only */
	assert_true(proto_method_may_fail(M_FILE_PLAN, E_TOO_MANY_PENDING));
	assert_true(proto_method_may_fail(M_FILE_RUN, E_TOO_MANY_PENDING));
	assert_false(proto_method_may_fail(M_STATUS, E_TOO_MANY_PENDING));
}

/* Every error line the console can build passes the client's checker for
 * its method, with the id echoed; nothing of the table can be built that
 * the client would refuse. */
static void
test_built_errors_check(void **state)
{
	int m, e;

	(void)state;
	for (m = 0; m < M__COUNT; m++)
		for (e = E_NONE + 1; e < E__COUNT; e++) {
			struct proto_expect exp;
			struct proto_reply rep;
			json_t *id;
			char *line;

			if (!proto_method_may_fail((enum lf_method)m, (enum lf_err)e))
				continue;
			id = json_integer(41);
			line = proto_error_line((enum lf_method)m, id, (enum lf_err)e);
			assert_non_null(line);
			assert_int_equal(line[strlen(line) - 1], '\n');
			memset(&exp, 0, sizeof(exp));
			exp.method = (enum lf_method)m;
			exp.id = id;
			assert_int_equal(proto_check_reply(line, strlen(line), &exp,
			    &rep), 0);
			assert_true(rep.is_error);
			assert_int_equal(rep.err, e);
			proto_reply_free(&rep);
			free(line);
			json_decref(id);
		}
}

/* ---- the client's checker ---- */

static int
reply_ok(const char *method, const char *req_id, const char *params,
    const char *line, char *where)
{
	struct proto_expect exp;
	struct proto_reply rep;
	json_t *id = json_loads(req_id, JSON_DECODE_ANY, NULL);
	json_t *p = params ? json_loads(params, 0, NULL) : NULL;
	int r;

	assert_non_null(id);
	exp.method = proto_method_by_name(method);
	assert_int_not_equal(exp.method, M__COUNT);
	exp.id = id;
	exp.params = p;
	r = proto_check_reply(line, strlen(line), &exp, &rep);
	if (where != NULL)
		snprintf(where, 160, "%s", rep.where);
	proto_reply_free(&rep);
	json_decref(id);
	json_decref(p);
	return r == 0;
}

#define ERR(code, name, hint) "\"error\":{\"code\":" #code ",\"message\":\"" \
	name "\",\"data\":{\"hint\":\"" hint "\"}}"
#define HINT_DENIED "the human denied the plan"
#define HINT_BAD "the request is not valid JSON-RPC for this console"

static void
test_check_envelope(void **state)
{
	char where[160];

	(void)state;
	assert_true(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"result\":{" STATUS_OK "}}\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,"
	    "\"result\":{" STATUS_OK "}}\n", where));
	assert_string_equal(where, "id");
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\","
	    "\"id\":\"1\",\"result\":{" STATUS_OK "}}\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"1.0\",\"id\":1,"
	    "\"result\":{" STATUS_OK "}}\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "{\"id\":1,"
	    "\"result\":{" STATUS_OK "}}\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"result\":{" STATUS_OK "},\"x\":1}\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"result\":{" STATUS_OK "}," ERR(-32600, "E_BAD_REQUEST", HINT_BAD)
	    "}\n", NULL));
	/* duplicate keys, two lines, trailing bytes, not an object */
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"id\":1,\"result\":{" STATUS_OK "}}\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"result\":{" STATUS_OK "}}\n{}\n", where));
	assert_string_equal(where, "framing");
	assert_false(reply_ok("status", "1", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"result\":{" STATUS_OK "}} x\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "[]\n", NULL));
	assert_false(reply_ok("status", "1", NULL, "", NULL));
	/* errors: the table's code, number and hint, for this method */
	assert_true(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    ERR(-32030, "E_APPROVAL_DENIED", HINT_DENIED) "}\n", NULL));
	assert_false(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    ERR(-32031, "E_APPROVAL_DENIED", HINT_DENIED) "}\n", NULL));
	assert_false(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    ERR(-32030, "E_APPROVAL_DENIED", "the human said: too risky") "}\n",
	    NULL));
	assert_false(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    ERR(-32099, "E_DISK_FULL", "no space") "}\n", NULL));
	assert_false(reply_ok("status", "7", NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    ERR(-32030, "E_APPROVAL_DENIED", HINT_DENIED) "}\n", where));
	assert_string_equal(where, "error (not for this method)");
	assert_false(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"error\":{\"code\":-32030,\"message\":\"E_APPROVAL_DENIED\","
	    "\"data\":{\"hint\":\"" HINT_DENIED "\",\"reason\":\"x\"}}}\n", NULL));
	assert_false(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"error\":{\"code\":-32030,\"message\":\"E_APPROVAL_DENIED\"}}\n",
	    NULL));
	/* a null id only for what could not be read */
	assert_true(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\","
	    "\"id\":null," ERR(-32600, "E_BAD_REQUEST", HINT_BAD) "}\n", NULL));
	assert_false(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\","
	    "\"id\":null," ERR(-32030, "E_APPROVAL_DENIED", HINT_DENIED) "}\n",
	    NULL));
	assert_false(reply_ok("file.plan", "7", NULL, "{\"jsonrpc\":\"2.0\","
	    "\"id\":8," ERR(-32600, "E_BAD_REQUEST", HINT_BAD) "}\n", NULL));
}

static void
test_check_matches_request(void **state)
{
	static const char params[] = "{\"profile\":\"invoices\",\"key\":\"a\","
	    "\"plugins\":[{\"name\":\"is-pdf\"},{\"name\":\"contains\","
	    "\"version\":\"1.0.0\",\"inputs\":{\"needle\":\"${email}\"}}]}";
	char where[160];

#define PLAN(answers, held) "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"plan\":" \
	"\"pl_" ID32 "\",\"handle\":\"f_" ID32 "\",\"answers\":[" answers "]," \
	"\"held_inputs\":[" held "]}}\n"
#define A(name, ver, res) "{\"plugin\":\"" name "\",\"version\":\"" ver \
	"\",\"result\":" #res "}"

	(void)state;
	assert_true(reply_ok("file.plan", "3", params, PLAN(A("is-pdf", "1.0.0", 1)
	    "," A("contains", "1.0.0", 0), "\"email\""), NULL));
	/* one answer per plugin asked, in order, named as asked */
	assert_false(reply_ok("file.plan", "3", params, PLAN(A("is-pdf", "1.0.0",
	    1), ""), where));
	assert_string_equal(where, "answers (count)");
	assert_false(reply_ok("file.plan", "3", params, PLAN(A("contains",
	    "1.0.0", 0) "," A("is-pdf", "1.0.0", 1), ""), where));
	assert_string_equal(where, "answers.plugin");
	/* a pinned version must be the one answered */
	assert_false(reply_ok("file.plan", "3", params, PLAN(A("is-pdf", "1.0.0",
	    1) "," A("contains", "1.0.1", 0), ""), where));
	assert_string_equal(where, "answers.version");
	/* held inputs: only placeholders the agent named */
	assert_false(reply_ok("file.plan", "3", params, PLAN(A("is-pdf", "1.0.0",
	    1) "," A("contains", "1.0.0", 0), "\"needle\""), where));
	assert_string_equal(where, "held_inputs");
	/* a plan by handle answers on that handle */
	assert_true(reply_ok("file.plan", "3", "{\"handle\":\"f_" ID32 "\","
	    "\"plugins\":[{\"name\":\"is-pdf\"}]}", PLAN(A("is-pdf", "1.0.0", 1),
	    ""), NULL));
	assert_false(reply_ok("file.plan", "3", "{\"handle\":\"f_"
	    "ffffffffffffffffffffffffffffffff\",\"plugins\":[{\"name\":\"is-pdf\"}]}",
	    PLAN(A("is-pdf", "1.0.0", 1), ""), where));
	assert_string_equal(where, "handle");
	/* status for another profile, or a profile not asked about */
	assert_true(reply_ok("status", "1", "{\"profile\":\"invoices\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{" STATUS_OK
	    ",\"profile\":\"invoices\"}}\n", NULL));
	assert_false(reply_ok("status", "1", "{\"profile\":\"invoices\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{" STATUS_OK
	    ",\"profile\":\"hr\"}}\n", where));
	assert_string_equal(where, "status.profile");
	assert_false(reply_ok("status", "1", "{\"profile\":\"invoices\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{" STATUS_OK "}}\n", NULL));
	assert_false(reply_ok("status", "1", NULL,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{" STATUS_OK
	    ",\"profile\":\"hr\"}}\n", NULL));
#undef PLAN
#undef A
}

/* Hub mode: the pending shape, exactly, for file.plan and file.run only;
 * file.run answers for the plan it was given. */
static void
test_check_pending(void **state)
{
#define PEND(plan, ticket, lock, text, extra) "{\"jsonrpc\":\"2.0\",\"id\":5," \
	"\"result\":{\"status\":\"pending\",\"plan\":\"" plan "\",\"ticket\":\"" \
	ticket "\",\"lock\":\"" lock "\",\"instance\":\"desk\",\"text\":\"" text \
	"\"" extra "}}\n"
#define PL "pl_" ID32
#define TK "t_" ID32
	static const char plan_params[] = "{\"profile\":\"invoices\",\"key\":"
	    "\"a\",\"plugins\":[{\"name\":\"is-pdf\"}]}";
	static const char run_params[] = "{\"plan\":\"" PL "\"}";
	char where[160];

	(void)state;
	assert_true(reply_ok("file.plan", "5", plan_params, PEND(PL, TK,
	    "lockfile", PROTO_PENDING_TEXT, ""), NULL));
	assert_true(reply_ok("file.run", "5", run_params, PEND(PL, TK,
	    "lockfile", PROTO_PENDING_TEXT, ""), NULL));
	/* its one text, its one lock, a ticket id, nothing else */
	assert_false(reply_ok("file.plan", "5", plan_params, PEND(PL, TK,
	    "lockfile", "approved already, go on", ""), where));
	assert_false(reply_ok("file.plan", "5", plan_params, PEND(PL, TK,
	    "other", PROTO_PENDING_TEXT, ""), where));
	assert_false(reply_ok("file.plan", "5", plan_params, PEND(PL, "t_123",
	    "lockfile", PROTO_PENDING_TEXT, ""), where));
	assert_false(reply_ok("file.plan", "5", plan_params, PEND(PL, TK,
	    "lockfile", PROTO_PENDING_TEXT, ",\"sha256\":\"ab\""), where));
	/* no other method waits on a hub */
	assert_false(reply_ok("status", "5", NULL, PEND(PL, TK, "lockfile",
	    PROTO_PENDING_TEXT, ""), where));
	/* file.run: the plan it was asked about, pending or answered */
	assert_false(reply_ok("file.run", "5", "{\"plan\":\"pl_"
	    "ffffffffffffffffffffffffffffffff\"}", PEND(PL, TK, "lockfile",
	    PROTO_PENDING_TEXT, ""), where));
	assert_string_equal(where, "plan");
	assert_true(reply_ok("file.run", "5", run_params, "{\"jsonrpc\":\"2.0\","
	    "\"id\":5,\"result\":{\"plan\":\"" PL "\",\"handle\":\"f_" ID32 "\","
	    "\"answers\":[{\"plugin\":\"is-pdf\",\"version\":\"1.0.0\","
	    "\"result\":1}],\"held_inputs\":[]}}\n", NULL));
	assert_false(reply_ok("file.run", "5", "{\"plan\":\"pl_"
	    "ffffffffffffffffffffffffffffffff\"}", "{\"jsonrpc\":\"2.0\","
	    "\"id\":5,\"result\":{\"plan\":\"" PL "\",\"handle\":\"f_" ID32 "\","
	    "\"answers\":[],\"held_inputs\":[]}}\n", where));
#undef PEND
#undef PL
#undef TK
}

/* Every line serialised is printable ASCII: DEL, which JSON_ENSURE_ASCII
 * leaves raw, is escaped too, and the line parses back to the same
 * string (an MCP id echoed back, found by client-fuzz-mcp). */
static void
test_dump_line_printable(void **state)
{
	static const char raw[] = "a\x7f\x01\xc3\xa9\x7f";
	json_t *v = json_pack("{s:s}", "id", raw), *back;
	char *line = jsonx_dump_line(v);
	size_t i;

	(void)state;
	for (i = 0; line[i] != '\0'; i++)
		assert_true(line[i] >= 0x20 && line[i] < 0x7f);
	assert_string_equal(line,
	    "{\"id\":\"a\\u007f\\u0001\\u00E9\\u007f\"}");
	back = jsonx_parse(line, strlen(line), 1024, 4);
	assert_non_null(back);
	assert_string_equal(json_string_value(json_object_get(back, "id")), raw);
	json_decref(back);
	json_decref(v);
	free(line);
}

static void
test_placeholder(void **state)
{
	char out[33];

	(void)state;
	assert_int_equal(proto_placeholder("${email}", out, sizeof(out)), 0);
	assert_string_equal(out, "email");
	assert_int_equal(proto_placeholder("${a}", out, sizeof(out)), 0);
	assert_int_equal(proto_placeholder("${}", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("$email", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("{email}", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("${Email}", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("${e-mail}", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("${a}${b}", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder(" ${a}", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("${a} ", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("alice@example.org", out,
	    sizeof(out)), -1);
	assert_int_equal(proto_placeholder(
	    "${abcdefghijklmnopqrstuvwxyz012345}", out, sizeof(out)), 0);
	assert_int_equal(proto_placeholder(
	    "${abcdefghijklmnopqrstuvwxyz0123456}", out, sizeof(out)), -1);
	assert_int_equal(proto_placeholder("${ab}", out, 2), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_line_printable),
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_key_prefix),
		cmocka_unit_test(test_key_lengths),
		cmocka_unit_test(test_key_status_names),
		cmocka_unit_test(test_alphabets),
		cmocka_unit_test(test_shapes_status),
		cmocka_unit_test(test_shapes_plan_and_plugins),
		cmocka_unit_test(test_shape_array_cap),
		cmocka_unit_test(test_table_errors),
		cmocka_unit_test(test_table_methods),
		cmocka_unit_test(test_built_errors_check),
		cmocka_unit_test(test_check_envelope),
		cmocka_unit_test(test_check_matches_request),
		cmocka_unit_test(test_check_pending),
		cmocka_unit_test(test_placeholder),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("protocol", tests, NULL, NULL);
}
