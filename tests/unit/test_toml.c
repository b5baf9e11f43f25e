/* Unit tests for src/lib/toml.c beyond toml-test: the limits, integer and
 * escape edges, where "unsupported" is and is not reported, error lines,
 * raw-byte hostility, redefinition rules toml-test does not cover, and
 * that no input is read past its length (every parse runs on an exact-size
 * heap copy, so ASan sees an overread). cmocka, TAP output. */
#include "lib/toml.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

static json_t *
parse_n(const char *s, size_t n, struct toml_error *e)
{
	char *copy = malloc(n == 0 ? 1 : n);
	json_t *v;

	assert_non_null(copy);
	memcpy(copy, s, n);
	v = toml_parse(copy, n, e);
	free(copy);
	return v;
}

static json_t *
parse(const char *s, struct toml_error *e)
{
	return parse_n(s, strlen(s), e);
}

static void
check_decodes_n(const char *doc, size_t n, const char *json)
{
	struct toml_error e;
	json_t *got = parse_n(doc, n, &e), *want = json_loads(json, 0, NULL);

	if (got == NULL)
		fail_msg("refused (line %d, %s): %s", e.line, e.msg, doc);
	assert_non_null(want);
	if (!json_equal(got, want)) {
		char *s = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);

		fail_msg("decoded %s, want %s", s, json);
	}
	assert_int_equal(e.line, 0);
	assert_null(e.msg);
	json_decref(got);
	json_decref(want);
}

static void
check_decodes(const char *doc, const char *json)
{
	check_decodes_n(doc, strlen(doc), json);
}

/* Refused as invalid (not unsupported) at the given line (0: any). */
static void
check_invalid_n(const char *doc, size_t n, int line)
{
	struct toml_error e;
	json_t *got = parse_n(doc, n, &e);

	if (got != NULL) {
		json_decref(got);
		fail_msg("accepted: %.200s", doc);
	}
	assert_non_null(e.msg);
	if (e.unsupported)
		fail_msg("reported unsupported (%s): %.200s", e.msg, doc);
	if (line != 0 && e.line != line)
		fail_msg("error at line %d, want %d (%s): %.200s", e.line,
		    line, e.msg, doc);
}

static void
check_invalid(const char *doc, int line)
{
	check_invalid_n(doc, strlen(doc), line);
}

static void
check_unsupported(const char *doc, int line)
{
	struct toml_error e;
	json_t *got = parse(doc, &e);

	if (got != NULL) {
		json_decref(got);
		fail_msg("accepted: %s", doc);
	}
	if (!e.unsupported)
		fail_msg("not reported unsupported (%s): %s", e.msg, doc);
	assert_int_equal(e.line, line);
}

/* A growing string for building large documents. */
struct sb {
	char *s;
	size_t len, cap;
};

static void
sb_add(struct sb *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
sb_str(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void
sb_rep(struct sb *b, const char *s, size_t times)
{
	while (times-- > 0)
		sb_str(b, s);
}

/* ---- the policy shape ---- */

static void
test_policy_example(void **state)
{
	(void)state;
	check_decodes(
	    "security_level = 1            # 0 = clear results\n"
	    "answer_quantum_s = 5\n"
	    "max_workspace_bytes = 1073741824\n"
	    "work_dir = \"~/.local/state/lockfile/work\"\n"
	    "allowed_uids = [1000]\n"
	    "\n"
	    "[profiles.invoices]\n"
	    "production = true\n"
	    "source = \"local\"\n"
	    "path = \"/srv/lockfile/invoices\"\n"
	    "prefix = \"2024/\"\n",
	    "{\"security_level\": 1, \"answer_quantum_s\": 5,"
	    " \"max_workspace_bytes\": 1073741824,"
	    " \"work_dir\": \"~/.local/state/lockfile/work\","
	    " \"allowed_uids\": [1000],"
	    " \"profiles\": {\"invoices\": {\"production\": true,"
	    " \"source\": \"local\", \"path\": \"/srv/lockfile/invoices\","
	    " \"prefix\": \"2024/\"}}}");
}

static void
test_api_edges(void **state)
{
	struct toml_error e;
	json_t *v;

	(void)state;
	v = toml_parse(NULL, 0, &e);
	assert_non_null(v);
	assert_true(json_is_object(v) && json_object_size(v) == 0);
	json_decref(v);
	assert_null(toml_parse(NULL, 1, &e));
	assert_non_null(e.msg);
	v = toml_parse("a=1", 3, NULL);
	assert_non_null(v);
	json_decref(v);
	assert_null(toml_parse("a=", 2, NULL));
	/* Only len bytes count: the NUL and what follows are not read. */
	v = toml_parse("a=1\0garbage", 3, &e);
	assert_non_null(v);
	json_decref(v);
	check_decodes("", "{}");
	check_decodes("\n\n# only a comment\n", "{}");
}

/* ---- limits ---- */

static void
test_limit_input_size(void **state)
{
	struct sb b = { 0 };
	struct toml_error e;
	json_t *v;

	(void)state;
	sb_str(&b, "a = 1\n#");
	sb_rep(&b, "x", TOML_MAX_INPUT - b.len);
	assert_int_equal(b.len, TOML_MAX_INPUT);
	v = parse_n(b.s, b.len, &e);
	assert_non_null(v);
	json_decref(v);
	sb_str(&b, "x");
	check_invalid_n(b.s, b.len, 1);
	free(b.s);
}

static void
check_depth_pair(const char *open, const char *inner, const char *close,
    const char *prefix, int ok_levels)
{
	struct sb b = { 0 };

	sb_str(&b, prefix);
	sb_rep(&b, open, (size_t)ok_levels - 1);
	sb_str(&b, inner);
	sb_rep(&b, close, (size_t)ok_levels - 1);
	sb_str(&b, "\n");
	{
		struct toml_error e;
		json_t *v = parse_n(b.s, b.len, &e);

		if (v == NULL)
			fail_msg("%d levels refused: %s", ok_levels, e.msg);
		json_decref(v);
	}
	b.len = 0;
	sb_str(&b, prefix);
	sb_rep(&b, open, (size_t)ok_levels);
	sb_str(&b, inner);
	sb_rep(&b, close, (size_t)ok_levels);
	sb_str(&b, "\n");
	check_invalid_n(b.s, b.len, 1);
	free(b.s);
}

static void
test_limit_depth_values(void **state)
{
	(void)state;
	/* a = [[...[]...]]: 32 arrays below the root are fine, 33 not. */
	check_depth_pair("[", "[]", "]", "a = ", TOML_MAX_DEPTH);
	/* a = {b = {b = ... {}}}: 32 inline tables, then 33. */
	check_depth_pair("{b = ", "{}", "}", "a = ", TOML_MAX_DEPTH);
	/* Mixed, and arrays of inline tables. */
	check_depth_pair("[{b = ", "[[]]", "}]", "a = ", TOML_MAX_DEPTH / 2);
}

static int
accepts(const char *doc)
{
	json_t *v = parse(doc, NULL);

	json_decref(v);
	return v != NULL;
}

static void
test_limit_depth_structure(void **state)
{
	struct sb b = { 0 };
	char *deep31;

	(void)state;
	/* Headers: 32 parts fine, 33 refused. */
	sb_str(&b, "[a");
	sb_rep(&b, ".a", TOML_MAX_DEPTH - 1);
	sb_str(&b, "]\n");
	assert_true(accepts(b.s));
	b.len = 0;
	sb_str(&b, "[a");
	sb_rep(&b, ".a", TOML_MAX_DEPTH);
	sb_str(&b, "]\n");
	check_invalid(b.s, 1);

	/* Dotted keys: 33 parts make 32 tables (fine), 34 make 33. */
	b.len = 0;
	sb_str(&b, "a");
	sb_rep(&b, ".a", TOML_MAX_DEPTH);
	sb_str(&b, " = 1\n");
	assert_true(accepts(b.s));
	b.len = 0;
	sb_str(&b, "a");
	sb_rep(&b, ".a", TOML_MAX_DEPTH + 1);
	sb_str(&b, " = 1\n");
	check_invalid(b.s, 1);

	/* [[a.a...]]: the array and its table both count. */
	b.len = 0;
	sb_str(&b, "[[a");
	sb_rep(&b, ".a", TOML_MAX_DEPTH - 2);
	sb_str(&b, "]]\n");
	assert_true(accepts(b.s));
	b.len = 0;
	sb_str(&b, "[[a");
	sb_rep(&b, ".a", TOML_MAX_DEPTH - 1);
	sb_str(&b, "]]\n");
	check_invalid(b.s, 1);

	/* A section at depth 31 holds one more level, not two. */
	b.len = 0;
	sb_str(&b, "[a");
	sb_rep(&b, ".a", TOML_MAX_DEPTH - 2);
	sb_str(&b, "]\n");
	deep31 = strdup(b.s);
	sb_str(&b, "x = []\ny.z = 1\nw = {}\n");
	assert_true(accepts(b.s));
	b.len = 0;
	sb_str(&b, deep31);
	sb_str(&b, "x = [[]]\n");
	check_invalid(b.s, 2);
	b.len = 0;
	sb_str(&b, deep31);
	sb_str(&b, "y.z.w = 1\n");
	check_invalid(b.s, 2);
	b.len = 0;
	sb_str(&b, deep31);
	sb_str(&b, "w = {v = {}}\n");
	check_invalid(b.s, 2);
	free(deep31);
	free(b.s);
}

static void
test_limit_strings(void **state)
{
	static const char *forms[][2] = {
		{ "\"", "\"" }, { "'", "'" }, { "\"\"\"", "\"\"\"" },
		{ "'''", "'''" },
	};
	struct sb b = { 0 };
	json_t *v;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		b.len = 0;
		sb_str(&b, "s = ");
		sb_str(&b, forms[i][0]);
		sb_rep(&b, "x", TOML_MAX_STRING);
		sb_str(&b, forms[i][1]);
		v = parse_n(b.s, b.len, NULL);
		assert_non_null(v);
		assert_int_equal(json_string_length(json_object_get(v, "s")),
		    TOML_MAX_STRING);
		json_decref(v);
		b.len = 0;
		sb_str(&b, "s = ");
		sb_str(&b, forms[i][0]);
		sb_rep(&b, "x", TOML_MAX_STRING + 1);
		sb_str(&b, forms[i][1]);
		check_invalid_n(b.s, b.len, 1);
	}
	/* The limit is on decoded bytes: 32768 two-byte escapes fit. */
	b.len = 0;
	sb_str(&b, "s = \"");
	sb_rep(&b, "\\u00e9", TOML_MAX_STRING / 2);
	sb_str(&b, "\"");
	assert_true(accepts(b.s));
	b.s[b.len - 1] = '\0';
	b.len--;
	sb_str(&b, "x\"");
	check_invalid_n(b.s, b.len, 1);
	/* Keys, bare and quoted. */
	b.len = 0;
	sb_rep(&b, "k", TOML_MAX_STRING);
	sb_str(&b, " = 1");
	assert_true(accepts(b.s));
	b.len = 0;
	sb_rep(&b, "k", TOML_MAX_STRING + 1);
	sb_str(&b, " = 1");
	check_invalid_n(b.s, b.len, 1);
	b.len = 0;
	sb_str(&b, "[\"");
	sb_rep(&b, "k", TOML_MAX_STRING + 1);
	sb_str(&b, "\"]");
	check_invalid_n(b.s, b.len, 1);
	free(b.s);
}

static void
test_limit_keys(void **state)
{
	struct sb b = { 0 };
	char line[64];
	int i;

	(void)state;
	for (i = 0; i < TOML_MAX_KEYS; i++) {
		snprintf(line, sizeof(line), "k%d = %d\n", i, i);
		sb_str(&b, line);
	}
	assert_true(accepts(b.s));
	sb_str(&b, "one_more = 1\n");
	check_invalid(b.s, TOML_MAX_KEYS + 1);
	/* Tables count as keys too: [t] is one, its 9999 keys the rest. */
	b.len = 0;
	sb_str(&b, "[t]\n");
	for (i = 0; i < TOML_MAX_KEYS - 1; i++) {
		snprintf(line, sizeof(line), "k%d = %d\n", i, i);
		sb_str(&b, line);
	}
	assert_true(accepts(b.s));
	sb_str(&b, "x = {}\n");
	check_invalid(b.s, TOML_MAX_KEYS + 1);
	/* Keys are counted across all tables, inline ones included. */
	b.len = 0;
	for (i = 0; i < TOML_MAX_KEYS / 2; i++) {
		snprintf(line, sizeof(line), "t%d = {k = 1}\n", i);
		sb_str(&b, line);
	}
	assert_true(accepts(b.s));
	sb_str(&b, "x = 1\n");
	check_invalid(b.s, TOML_MAX_KEYS / 2 + 1);
	/* Elements of an array of tables are not keys. */
	b.len = 0;
	sb_rep(&b, "[[a]]\nk = 1\n", TOML_MAX_KEYS - 1);
	assert_true(accepts(b.s));
	free(b.s);
}

/* ---- integers ---- */

static void
test_integers(void **state)
{
	(void)state;
	check_decodes("a = 9223372036854775807\nb = -9223372036854775808\n"
	    "c = 0x7fffffffffffffff\nd = 0o777\ne = 0b1010\n"
	    "f = 0xDEAD_beef\ng = 1_000\nh = -0\ni = +99\nj = 0\n"
	    "k = 0x0001\nl = 0b0\n",
	    "{\"a\": 9223372036854775807, \"b\": -9223372036854775808,"
	    " \"c\": 9223372036854775807, \"d\": 511, \"e\": 10,"
	    " \"f\": 3735928559, \"g\": 1000, \"h\": 0, \"i\": 99, \"j\": 0,"
	    " \"k\": 1, \"l\": 0}");
	check_invalid("a = 9223372036854775808", 1);
	check_invalid("a = -9223372036854775809", 1);
	check_invalid("a = 99999999999999999999999", 1);
	check_invalid("a = 0x8000000000000000", 1);
	check_invalid("a = 0xffffffffffffffffff", 1);
	check_invalid("a = 0o1000000000000000000000", 1);
	check_invalid("a = 1__000", 1);
	check_invalid("a = _1", 1);
	check_invalid("a = 1_", 1);
	check_invalid("a = 01", 1);
	check_invalid("a = 00", 1);
	check_invalid("a = -01", 1);
	check_invalid("a = +0x1", 1);
	check_invalid("a = -0x1", 1);
	check_invalid("a = 0X1", 1);
	check_invalid("a = 0x", 1);
	check_invalid("a = 0x_1", 1);
	check_invalid("a = 0b2", 1);
	check_invalid("a = 0o8", 1);
	check_invalid("a = 1 2", 1);
	check_invalid("a = +", 1);
	check_invalid("a = 12a", 1);
	check_invalid("a = TRUE", 1);
	check_invalid("a = truex", 1);
}

/* ---- strings ---- */

static void
test_escapes(void **state)
{
	json_t *v, *s;

	(void)state;
	v = parse("a = \"x\\u0000y\"\n", NULL);
	assert_non_null(v);
	s = json_object_get(v, "a");
	assert_int_equal(json_string_length(s), 3);
	assert_memory_equal(json_string_value(s), "x\0y", 3);
	json_decref(v);
	check_decodes("a = \"\\U0010FFFF\\uFFFF\\u00e9\\b\\t\\n\\f\\r\\\"\\\\\"",
	    "{\"a\": \"\\udbff\\udfff\\uffff\\u00e9\\b\\t\\n\\f\\r\\\"\\\\\"}");
	check_invalid("a = \"\\ud800\"", 1);
	check_invalid("a = \"\\udfff\"", 1);
	check_invalid("a = \"\\U0000d800\"", 1);
	check_invalid("a = \"\\U00110000\"", 1);
	check_invalid("a = \"\\UFFFFFFFF\"", 1);
	check_invalid("a = \"\\u00\"", 1);
	check_invalid("a = \"\\u00G0\"", 1);
	check_invalid("a = \"\\e\"", 1);
	check_invalid("a = \"\\x41\"", 1);
	check_invalid("a = \"\\ \"", 1);
	check_invalid("a = \"\\", 1);
	check_invalid("a = \"\"\"\\  x\"\"\"", 1);
	/* Line-ending backslashes, CRLF folded to LF, quotes at the end. */
	check_decodes("a = \"\"\"\nx \\  \r\n\n   y\r\nz\"\"\"\n"
	    "b = '''\r\nq'''''\nc = \"\"\"\"\"\"\"\"\n",
	    "{\"a\": \"x y\\nz\", \"b\": \"q''\", \"c\": \"\\\"\\\"\"}");
	check_invalid("a = \"\"\"x\"\"\"\"\"\"", 1);
	check_invalid("a = '''x''''''", 1);
	check_decodes("'a.b' = 1\n\"\" = 2\n'z' .x = 3",
	    "{\"a.b\": 1, \"\": 2, \"z\": {\"x\": 3}}");
	check_invalid("\"\"\"a\"\"\" = 1", 1);
	check_invalid("'''a''' = 1", 1);
}

/* ---- raw bytes ---- */

static void
test_raw_bytes(void **state)
{
	(void)state;
	check_invalid_n("a = 1 #\0\n", 9, 1);
	check_invalid_n("a = \"\0\"\n", 8, 1);
	check_invalid_n("\0", 1, 1);
	check_invalid("a = \"\x7f\"", 1);
	check_invalid("a = '\x1b[2J'", 1);
	check_invalid("# \x7f\n", 1);
	check_invalid("a = 1\rb = 2", 1);
	check_invalid("a = 1\n\n\r", 3);
	check_invalid("a = \"\xc0\x80\"", 1);	/* overlong */
	check_invalid("a = \"\xed\xa0\x80\"", 1);	/* surrogate */
	check_invalid("# \xed\xa0\x80\n", 1);	/* also in comments */
	check_invalid("# \xf8\x88\x80\x80\x80\n", 1);
	check_invalid("# \xe0\x80\xaf\n", 1);	/* overlong '/' */
	check_invalid("a = \"\xf4\x90\x80\x80\"", 1);	/* > U+10FFFF */
	check_invalid("a = \"\xff\"", 1);
	check_invalid("a = 1\n# \xe2\x82", 2);	/* truncated at the end */
	check_invalid("\xe2\x82\xac = 1", 1);	/* not a bare key */
	check_decodes("\xef\xbb\xbf" "a = \"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	    "{\"a\": \"\\u00e9 \\u20ac \\ud83d\\ude00\"}");
	check_invalid("a = 1\n\xef\xbb\xbf" "b = 2", 2);
}

static void
test_error_lines(void **state)
{
	(void)state;
	check_invalid("a = 1\r\nb = 2\r\nc = @\r\n", 3);
	check_invalid("a = 1\n\n[t]\nx = 1\n[t]\n", 5);
	check_invalid("a = [\n1,\n2\n3]\n", 4);
	check_invalid("a = \"\"\"\n\n\n", 1);	/* where it opened */
	check_invalid("a = 1\na = 2\n", 2);
	check_invalid("a\n= 1", 1);
	check_invalid("a = {b = 1,\n}", 1);
	check_invalid("a = {b = 1,}", 1);
}

/* ---- unsupported ---- */

static void
test_unsupported(void **state)
{
	(void)state;
	check_unsupported("a = 1.5\n", 1);
	check_unsupported("a = 1\nb = 1979-05-27\n", 2);
	check_unsupported("a = 1979-05-27T07:32:00Z\nb = 2.0\n", 1);
	check_unsupported("a = 1979-05-27 07:32:00.999-07:00", 1);
	check_unsupported("a = 07:32:00", 1);
	check_unsupported("a = 1979-05-27t07:32:00", 1);
	check_unsupported("a = [1, 2e10]", 1);
	check_unsupported("a = {b = nan}", 1);
	check_unsupported("a = -inf", 1);
	check_unsupported("a = 6.626e-34", 1);
	check_unsupported("a = 2000-02-29", 1);
	check_unsupported("a = 1_000.000_1", 1);
	/* A real error anywhere makes the document invalid, not
	 * unsupported: the flag means "valid TOML outside the subset". */
	check_invalid("a = 1.5\nb = \n", 2);
	check_invalid("a = 1.5\na = 2\n", 2);
	check_invalid("a = 1979-05-27 x\n", 1);
	check_invalid("a = 1.", 1);
	check_invalid("a = .5", 1);
	check_invalid("a = 1e", 1);
	check_invalid("a = 1.e5", 1);
	check_invalid("a = 01.5", 1);
	check_invalid("a = 1._5", 1);
	check_invalid("a = infinity", 1);
	check_invalid("a = NaN", 1);
	check_invalid("a = 2006-13-01", 1);
	check_invalid("a = 2001-02-29", 1);
	check_invalid("a = 1979-05-27T07:32", 1);
	check_invalid("a = 24:00:00", 1);
	check_invalid("a = 1979-05-27T07:32:00+24:00", 1);
	check_invalid("a = 07:32:00Z", 1);
}

/* ---- redefinition ---- */

static void
test_redefinition(void **state)
{
	(void)state;
	/* Dotted keys may add to an implicit parent of a header... */
	check_decodes("[a.b.c]\n[a]\nb.d = 1\n",
	    "{\"a\": {\"b\": {\"c\": {}, \"d\": 1}}}");
	/* ...which then counts as defined. */
	check_invalid("[a.b.c]\n[a]\nb.d = 1\n[a.b]\n", 4);
	check_invalid("[a]\nb.c = 1\n[a.b]\n", 3);
	check_decodes("[a]\nb.c = 1\n[a.b.d]\ne = 2\n",
	    "{\"a\": {\"b\": {\"c\": 1, \"d\": {\"e\": 2}}}}");
	check_invalid("a = {}\n[a.b]\n", 2);
	check_invalid("a = {}\n[a]\n", 2);
	check_invalid("a = {b = {}}\n[a.b]\n", 2);
	check_invalid("a = {b = 1}\na.c = 2\n", 2);
	check_invalid("a = {b = {c = 1}, b.d = 2}\n", 1);
	check_invalid("a = []\n[[a]]\n", 2);
	check_invalid("a = [{}]\n[a.b]\n", 2);
	check_invalid("a = [{}]\n[[a]]\n", 2);
	check_invalid("[[a]]\nb = 1\n[a.b]\n", 3);
	check_invalid("[[a]]\n[a]\n", 2);
	check_invalid("[a]\n[[a]]\n", 2);
	check_invalid("a.b = 1\na.b.c = 2\n", 2);
	check_invalid("a = 1\n[a]\n", 2);
	check_invalid("[a]\n[a]\n", 2);
	check_invalid("[a.b]\n[a]\nb = 1\n", 3);
	check_invalid("[a.b]\n[a]\nb.c = 1\n", 3);
	check_decodes("[[a]]\n[a.b]\nx = 1\n[[a]]\n[a.b]\nx = 2\n",
	    "{\"a\": [{\"b\": {\"x\": 1}}, {\"b\": {\"x\": 2}}]}");
	check_decodes("[[a.b]]\n[a]\nc = 1\n",
	    "{\"a\": {\"b\": [{}], \"c\": 1}}");
	check_decodes("a.b.c = 1\na.b.d = 2\na.e = 3\n",
	    "{\"a\": {\"b\": {\"c\": 1, \"d\": 2}, \"e\": 3}}");
	check_decodes("a = {b.c = 1, b.d = 2}\n",
	    "{\"a\": {\"b\": {\"c\": 1, \"d\": 2}}}");
	check_decodes("[t]\na = [ 1 , [ 'x' ] , { y = true } , ]\n",
	    "{\"t\": {\"a\": [1, [\"x\"], {\"y\": true}]}}");
}

/* ---- robustness: every prefix and every one-byte change ---- */

static const char rich[] =
    "\xef\xbb\xbf# policy\r\n"
    "a = 1\nb.c = 'x'\n\"q\\u00e9\" = \"\"\"\nline\\\n  more\"\"\"\n"
    "d = [1, [2, {e = 0x1f}], '''lit''', ] # c\n"
    "f = {g.h = -9_223_372_036_854_775_808, i = false}\n"
    "[t.u]\nv = 1979-05-27T07:32:00Z\nw = 1.5e3\n"
    "[[aot]]\nx = 0b101\n[[aot]]\n[aot.y]\nz = \"\\U0001F600\"\n";

static void
check_total(const char *doc, size_t n)
{
	struct toml_error e;
	json_t *v = parse_n(doc, n, &e);
	size_t i;
	int lines = 1;

	for (i = 0; i < n; i++)
		lines += doc[i] == '\n';
	if (v != NULL) {
		assert_true(json_is_object(v));
		assert_null(e.msg);
		json_decref(v);
		return;
	}
	assert_non_null(e.msg);
	assert_in_range(e.line, 1, lines);
	assert_in_range(e.unsupported, 0, 1);
}

static void
test_prefixes_and_mutations(void **state)
{
	static const char subst[] = { '\0', '"', '\'', '\\', '[', ']', '{',
	    '}', '\n', '\r', '.', '=', ',', '#', ' ', (char)0x80, (char)0xff };
	size_t n = sizeof(rich) - 1, i, j;
	char *m = malloc(n);

	(void)state;
	assert_non_null(m);
	for (i = 0; i <= n; i++)
		check_total(rich, i);
	for (i = 0; i < n; i++) {
		for (j = 0; j < sizeof(subst); j++) {
			memcpy(m, rich, n);
			m[i] = subst[j];
			check_total(m, n);
		}
	}
	free(m);
}

/* ---- allocation failures: every jansson allocation fails in turn ---- */

static long alloc_count, alloc_fail_at;

static void *
failing_malloc(size_t n)
{
	if (alloc_fail_at > 0 && ++alloc_count == alloc_fail_at)
		return NULL;
	return malloc(n);
}

static void
test_allocation_failures(void **state)
{
	static const char doc[] =
	    "a = 1\nb.c = 'x'\n\"q\\u00e9\" = \"\"\"\nline\"\"\"\n"
	    "d = [1, [2, {e = 0x1f}], '''lit''']\n"
	    "f = {g.h = -1, i = false}\n[t.u]\nv = 'w'\n"
	    "[[aot]]\nx = 0b101\n[[aot]]\n[aot.y]\nz = \"\\U0001F600\"\n";
	struct toml_error e;
	json_t *v;
	long n;

	(void)state;
	json_set_alloc_funcs(failing_malloc, free);
	for (n = 1; n < 100000; n++) {
		alloc_count = 0;
		alloc_fail_at = n;
		v = toml_parse(doc, sizeof(doc) - 1, &e);
		if (alloc_count < n) {
			/* Every allocation succeeded: the document is whole. */
			alloc_fail_at = 0;
			assert_non_null(v);
			json_decref(v);
			break;
		}
		alloc_fail_at = 0;
		if (v != NULL) {
			json_decref(v);
			json_set_alloc_funcs(malloc, free);
			fail_msg("allocation %ld failed, yet a result came back", n);
		}
		assert_non_null(e.msg);
	}
	json_set_alloc_funcs(malloc, free);
	assert_true(n > 20);	/* the loop did exercise failures */
}

/* Big but legal documents finish (no quadratic blow-up worth a hang). */
static void
test_large_documents(void **state)
{
	struct sb b = { 0 };
	json_t *v;

	(void)state;
	sb_str(&b, "a = [");
	while (b.len < TOML_MAX_INPUT - 8)
		sb_str(&b, "{},");
	sb_str(&b, "]");
	v = parse_n(b.s, b.len, NULL);
	assert_non_null(v);
	assert_true(json_array_size(json_object_get(v, "a")) > 300000);
	json_decref(v);
	b.len = 0;
	while (b.len < TOML_MAX_INPUT - 16)
		sb_str(&b, "[[a]]\n");
	v = parse_n(b.s, b.len, NULL);
	assert_non_null(v);
	json_decref(v);
	free(b.s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_example),
		cmocka_unit_test(test_api_edges),
		cmocka_unit_test(test_limit_input_size),
		cmocka_unit_test(test_limit_depth_values),
		cmocka_unit_test(test_limit_depth_structure),
		cmocka_unit_test(test_limit_strings),
		cmocka_unit_test(test_limit_keys),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_raw_bytes),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_redefinition),
		cmocka_unit_test(test_prefixes_and_mutations),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_large_documents),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("toml", tests, NULL, NULL);
}
