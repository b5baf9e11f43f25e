/* Unit tests for the request parser (src/protocol/request.c) and for
 * request_validate(), the console's check of what the sandboxed parser
 * worker hands it: every parse must come out valid, and a struct a lying
 * worker corrupted must be refused. Every line is parsed from an
 * exact-size heap copy (ASan sees a read past its length). cmocka, TAP. */
#include "protocol/request.h"
#include "protocol/table.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct request req;	/* ~45 KiB: not on the stack */
/* What the console would send with the line (parser_worker.c). */
static const uint8_t NONCE[REQUEST_NONCE_LEN] = "lockfile-nonce!";

static const struct request *
parse_n(const char *s, size_t n)
{
	char *copy = malloc(n == 0 ? 1 : n);

	assert_non_null(copy);
	memcpy(copy, s, n);
	request_parse(copy, n, NONCE, &req);
	free(copy);
	/* whatever the parser produced, the console must accept it */
	assert_int_equal(request_validate(&req, NONCE), 0);
	return &req;
}

static const struct request *
parse(const char *s)
{
	return parse_n(s, strlen(s));
}

#define ENV(method) "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" method "\""
#define H32 "0123456789abcdef0123456789abcdef"

static void
bad(const char *s)
{
	const struct request *r = parse(s);

	if (r->error != E_BAD_REQUEST)
		fail_msg("accepted: %s", s);
}

static void
good(const char *s)
{
	const struct request *r = parse(s);

	if (r->error != E_NONE)
		fail_msg("refused: %s", s);
}

static void
test_envelope(void **state)
{
	const struct request *r;

	(void)state;
	r = parse(ENV("status") "}");
	assert_int_equal(r->error, E_NONE);
	assert_int_equal(r->method, M_STATUS);
	assert_int_equal(r->id_kind, RID_INT);
	assert_int_equal(r->id_int, 1);
	good(ENV("status") ",\"params\":{}}");
	good(ENV("sources") "}");
	good(ENV("file.plugins") ",\"params\":{}}");
	good("  " ENV("status") "}  ");
	bad(ENV("status") "} x");
	bad(ENV("status") "}" ENV("status") "}");
	bad(ENV("status") ",\"x\":1}");
	bad(ENV("unknown") "}");
	bad(ENV("STATUS") "}");
	bad(ENV("status ") "}");
	bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}");
	bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":null}");
	bad("{\"jsonrpc\":\"2.0\",\"id\":1}");
	bad("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"status\"}");
	bad("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"status\"}");
	bad("{\"id\":1,\"method\":\"status\"}");
	bad(ENV("status") ",\"params\":[]}");
	bad(ENV("status") ",\"params\":null}");
	bad(ENV("status") ",\"params\":\"x\"}");
	bad("[" ENV("status") "}]");
	bad("\"status\"");
	bad("");
	bad("{}");
	bad("null");
	/* duplicate keys, at the top and inside */
	bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\",\"method\":"
	    "\"sources\"}");
	bad(ENV("status") ",\"params\":{\"profile\":\"a\",\"profile\":\"b\"}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"name\":\"y\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"contains\",\"inputs\":{\"needle\":\"${a}\","
	    "\"needle\":\"${b}\"}}]}}");
	/* not UTF-8, NUL bytes */
	bad(ENV("change.request") ",\"params\":{\"text\":\"\xff\"}}");
	bad(ENV("change.request") ",\"params\":{\"text\":\"\xc0\xaf\"}}");
	parse_n(ENV("status") "}\0", sizeof(ENV("status") "}"));
	assert_int_equal(req.error, E_BAD_REQUEST);
	bad(ENV("change.request") ",\"params\":{\"text\":\"a\\u0000b\"}}");
}

static void
test_ids(void **state)
{
	const struct request *r;

	(void)state;
	r = parse("{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"status\"}");
	assert_int_equal(r->error, E_NONE);
	assert_int_equal(r->id_kind, RID_STR);
	assert_string_equal(r->id_str, "abc");
	/* a null id is refused (answered with id null, as an unreadable one) */
	r = parse("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"status\"}");
	assert_int_equal(r->error, E_BAD_REQUEST);
	assert_int_equal(r->id_kind, RID_NULL);
	r = parse("{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"method\":"
	    "\"status\"}");
	assert_int_equal(r->error, E_NONE);
	assert_true(r->id_int == INT64_MIN);
	/* an id of 64 printable bytes is kept, 65 is not */
	good("{\"jsonrpc\":\"2.0\",\"id\":\"" H32 H32 "\",\"method\":\"status\"}");
	r = parse("{\"jsonrpc\":\"2.0\",\"id\":\"" H32 H32 "x\",\"method\":"
	    "\"status\"}");
	assert_int_equal(r->error, E_BAD_REQUEST);
	assert_int_equal(r->id_kind, RID_NULL);
	/* the id is read first: a bad request is answered on it */
	r = parse("{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"nope\"}");
	assert_int_equal(r->error, E_BAD_REQUEST);
	assert_int_equal(r->id_kind, RID_INT);
	assert_int_equal(r->id_int, 77);
	/* unreadable ids: answered with id null */
	static const char *const ids[] = { "1.5", "1e3", "true", "[1]", "{}",
	    "\"a\\u001b[2J\"", "\"tab\\there\"", "\"caf\\u00e9\"",
	    "\"\\u202e\"", "99999999999999999999" };
	size_t i;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		char line[256];
		snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"status\"}", ids[i]);
		r = parse(line);
		if (r->error != E_BAD_REQUEST || r->id_kind != RID_NULL)
			fail_msg("id %s accepted", ids[i]);
	}
	/* a notification (no id) is not served */
	r = parse("{\"jsonrpc\":\"2.0\",\"method\":\"status\"}");
	assert_int_equal(r->error, E_BAD_REQUEST);
	assert_int_equal(r->id_kind, RID_NULL);
}

static void
test_params_per_method(void **state)
{
	const struct request *r;

	(void)state;
	r = parse(ENV("status") ",\"params\":{\"profile\":\"invoices\"}}");
	assert_int_equal(r->error, E_NONE);
	assert_true(r->has_profile);
	assert_string_equal(r->profile, "invoices");
	bad(ENV("status") ",\"params\":{\"profile\":\"../x\"}}");
	bad(ENV("status") ",\"params\":{\"profile\":\"\"}}");
	bad(ENV("status") ",\"params\":{\"profile\":7}}");
	bad(ENV("status") ",\"params\":{\"prof\":\"a\"}}");
	bad(ENV("sources") ",\"params\":{\"profile\":\"a\"}}");
	bad(ENV("file.plugins") ",\"params\":{\"all\":true}}");

	r = parse(ENV("file.release") ",\"params\":{\"handle\":\"f_" H32 "\"}}");
	assert_int_equal(r->error, E_NONE);
	assert_true(r->has_handle);
	bad(ENV("file.release") "}");
	bad(ENV("file.release") ",\"params\":{}}");
	bad(ENV("file.release") ",\"params\":{\"handle\":\"f_" H32 "0\"}}");
	bad(ENV("file.release") ",\"params\":{\"handle\":\"pl_" H32 "\"}}");
	bad(ENV("file.release") ",\"params\":{\"handle\":\"f_"
	    "0123456789ABCDEF0123456789abcdef\"}}");
	bad(ENV("file.release") ",\"params\":{\"handle\":\"f_" H32 "\",\"x\":1}}");

	r = parse(ENV("file.run") ",\"params\":{\"plan\":\"pl_" H32 "\"}}");
	assert_int_equal(r->error, E_NONE);
	assert_true(r->has_plan);
	bad(ENV("file.run") ",\"params\":{\"plan\":\"t_" H32 "\"}}");
	bad(ENV("file.run") "}");

	r = parse(ENV("change.request") ",\"params\":{\"text\":\"please add "
	    "\\u001b[31m red\"}}");
	assert_int_equal(r->error, E_NONE);
	assert_int_equal(r->text_len, strlen("please add \x1b[31m red"));
	bad(ENV("change.request") ",\"params\":{\"text\":\"\"}}");
	bad(ENV("change.request") ",\"params\":{\"text\":1}}");
	bad(ENV("change.request") "}");
	{
		static char line[PROTO_MAX_TEXT + 200];
		int n = snprintf(line, sizeof(line), ENV("change.request")
		    ",\"params\":{\"text\":\"");
		memset(line + n, 'x', PROTO_MAX_TEXT);
		strcpy(line + n + PROTO_MAX_TEXT, "\"}}");
		good(line);
		memset(line + n, 'x', PROTO_MAX_TEXT + 1);
		strcpy(line + n + PROTO_MAX_TEXT + 1, "\"}}");
		bad(line);
	}
}

static void
test_plan_params(void **state)
{
	const struct request *r;

	(void)state;
	r = parse(ENV("file.plan") ",\"params\":{\"profile\":\"invoices\","
	    "\"key\":\"2024/a.pdf\",\"plugins\":[{\"name\":\"is-pdf\"},{\"name\":"
	    "\"contains\",\"version\":\"1.0.0\",\"inputs\":{\"needle\":"
	    "\"${email}\"}}]}}");
	assert_int_equal(r->error, E_NONE);
	assert_int_equal(r->method, M_FILE_PLAN);
	assert_true(r->has_profile && r->has_key && !r->has_handle);
	assert_string_equal(r->key, "2024/a.pdf");
	assert_int_equal(r->key_len, 10);
	assert_int_equal(r->nplugins, 2);
	assert_string_equal(r->plugins[0].name, "is-pdf");
	assert_string_equal(r->plugins[0].version, "");
	assert_string_equal(r->plugins[1].version, "1.0.0");
	assert_int_equal(r->plugins[1].ninputs, 1);
	assert_string_equal(r->plugins[1].inputs[0].name, "needle");
	assert_string_equal(r->plugins[1].inputs[0].placeholder, "email");

	r = parse(ENV("file.plan") ",\"params\":{\"handle\":\"f_" H32 "\","
	    "\"plugins\":[{\"name\":\"is-utf8\"}]}}");
	assert_int_equal(r->error, E_NONE);
	assert_true(r->has_handle && !r->has_profile && !r->has_key);

	/* handle or profile + key, never both, never neither */
	bad(ENV("file.plan") ",\"params\":{\"handle\":\"f_" H32 "\",\"profile\":"
	    "\"a\",\"plugins\":[{\"name\":\"x\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"handle\":\"f_" H32 "\",\"key\":"
	    "\"a\",\"plugins\":[{\"name\":\"x\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"plugins\":[{\"name\":\"x\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"plugins\":"
	    "[{\"name\":\"x\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"key\":\"a\",\"plugins\":"
	    "[{\"name\":\"x\"}]}}");
	bad(ENV("file.plan") "}");
	/* keys: non-empty strings without NUL, at most 1024 bytes */
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"\","
	    "\"plugins\":[{\"name\":\"x\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"a\\u0000b\","
	    "\"plugins\":[{\"name\":\"x\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":[\"a\"],"
	    "\"plugins\":[{\"name\":\"x\"}]}}");
	{
		static char line[4096];
		char key[PROTO_MAX_KEY + 2];
		memset(key, 'k', sizeof(key));
		key[PROTO_MAX_KEY] = '\0';
		snprintf(line, sizeof(line), ENV("file.plan") ",\"params\":{"
		    "\"profile\":\"a\",\"key\":\"%s\",\"plugins\":[{\"name\":\"x\"}]}}",
		    key);
		good(line);
		key[PROTO_MAX_KEY] = 'k';
		key[PROTO_MAX_KEY + 1] = '\0';
		snprintf(line, sizeof(line), ENV("file.plan") ",\"params\":{"
		    "\"profile\":\"a\",\"key\":\"%s\",\"plugins\":[{\"name\":\"x\"}]}}",
		    key);
		bad(line);
	}
	/* the raw key is kept as typed: cleaning is the console's */
	r = parse(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":"
	    "\"../%2e%2e/\\u001b[2J\\u202e\",\"plugins\":[{\"name\":\"x\"}]}}");
	assert_int_equal(r->error, E_NONE);
	assert_string_equal(r->key, "../%2e%2e/\x1b[2J\xe2\x80\xae");
	/* plugins */
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":{\"name\":\"x\"}}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[\"is-pdf\"]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"Is-pdf\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"version\":\"1.0\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"path\":\"/bin/sh\"}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"inputs\":[\"${a}\"]}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"inputs\":{\"Needle\":\"${a}\"}}]}}");
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\"}],\"max\":99}}");
	/* nine inputs on one plugin: more than any manifest can declare */
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"inputs\":{\"a\":\"${a}\",\"b\":\"${a}\","
	    "\"c\":\"${a}\",\"d\":\"${a}\",\"e\":\"${a}\",\"f\":\"${a}\","
	    "\"g\":\"${a}\",\"h\":\"${a}\",\"i\":\"${a}\"}}]}}");
}

/* A literal input is refused without a byte of it kept anywhere. */
static void
test_literal_inputs(void **state)
{
	static const char *const lits[] = { "\"alice@example.org\"",
	    "\"${email\"", "\"${}\"", "\"${Email}\"", "\"$email\"",
	    "\"${a}${b}\"", "\" ${email}\"", "42", "true", "null", "[\"${a}\"]",
	    "{\"v\":\"${a}\"}" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		char line[512];
		const struct request *r;
		snprintf(line, sizeof(line), ENV("file.plan") ",\"params\":{"
		    "\"profile\":\"a\",\"key\":\"k\",\"plugins\":[{\"name\":"
		    "\"contains\",\"inputs\":{\"needle\":%s}},{\"name\":\"is-pdf\"}]}}",
		    lits[i]);
		r = parse(line);
		if (r->error != E_LITERAL_INPUT)
			fail_msg("literal %s: error %u", lits[i], r->error);
		assert_int_equal(r->method, M_FILE_PLAN);
		assert_int_equal(r->plugins[0].ninputs, 0);
		assert_null(memmem(&req, sizeof(req), "alice", 5));
		assert_null(memmem(&req, sizeof(req), "example", 7));
	}
	/* literal beside a placeholder: still refused, the placeholder kept */
	{
		const struct request *r = parse(ENV("file.plan") ",\"params\":{"
		    "\"profile\":\"a\",\"key\":\"k\",\"plugins\":[{\"name\":\"x\","
		    "\"inputs\":{\"a\":\"${ok}\",\"b\":\"SECRETLITERAL\"}}]}}");
		assert_int_equal(r->error, E_LITERAL_INPUT);
		assert_null(memmem(&req, sizeof(req), "SECRETLITERAL", 13));
	}
	/* a literal on a request that is bad otherwise is a bad request */
	bad(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"inputs\":{\"a\":\"lit\"}}],\"y\":1}}");
}

static void
test_too_many_plugins(void **state)
{
	static char line[16384];
	const struct request *r;
	int n, i;

	(void)state;
	n = snprintf(line, sizeof(line), ENV("file.plan") ",\"params\":{"
	    "\"profile\":\"a\",\"key\":\"k\",\"plugins\":[");
	for (i = 0; i < PROTO_MAX_PLUGINS + 1; i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
		    "%s{\"name\":\"p%d\"}", i ? "," : "", i);
	snprintf(line + n, sizeof(line) - (size_t)n, "]}}");
	r = parse(line);
	assert_int_equal(r->error, E_NONE);
	assert_true(r->too_many_plugins);
	assert_int_equal(r->nplugins, PROTO_MAX_PLUGINS);
	/* exactly the maximum is not too many */
	n = snprintf(line, sizeof(line), ENV("file.plan") ",\"params\":{"
	    "\"profile\":\"a\",\"key\":\"k\",\"plugins\":[");
	for (i = 0; i < PROTO_MAX_PLUGINS; i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
		    "%s{\"name\":\"p%d\"}", i ? "," : "", i);
	snprintf(line + n, sizeof(line) - (size_t)n, "]}}");
	r = parse(line);
	assert_int_equal(r->error, E_NONE);
	assert_false(r->too_many_plugins);
}

static void
test_size_and_depth(void **state)
{
	static char line[PROTO_MAX_LINE + 16];
	const char *base = ENV("status") "}";
	size_t blen = strlen(base);

	(void)state;
	/* whitespace padding up to exactly the cap (which counts the newline
	 * the console strips) is fine, one more is not */
	memset(line, ' ', sizeof(line));
	memcpy(line, base, blen);
	parse_n(line, PROTO_MAX_LINE - 1);
	assert_int_equal(req.error, E_NONE);
	parse_n(line, PROTO_MAX_LINE);
	assert_int_equal(req.error, E_BAD_REQUEST);
	/* nesting: the deepest real request is 4 levels; 7 are refused
	 * before jansson sees them, and so is a deep bomb */
	good(ENV("file.plan") ",\"params\":{\"profile\":\"a\",\"key\":\"k\","
	    "\"plugins\":[{\"name\":\"x\",\"inputs\":{\"a\":\"${a}\"}}]}}");
	bad(ENV("change.request") ",\"params\":{\"text\":\"x\",\"y\":[[[[[[]]]]]]}}");
	{
		size_t i, n = 0;
		n += (size_t)snprintf(line, sizeof(line), ENV("status")
		    ",\"params\":");
		for (i = 0; i < 30000; i++)
			line[n++] = '[';
		line[n] = '\0';
		bad(line);
	}
	/* brackets inside strings do not count as depth */
	good(ENV("change.request") ",\"params\":{\"text\":\"[[[[[[[[[[{{{{{{\"}}");
}

/* ---- request_validate: what a lying worker could send ---- */

static void
valid_plan(struct request *r)
{
	const char *line = ENV("file.plan") ",\"params\":{\"profile\":\"invoices\","
	    "\"key\":\"2024/a.pdf\",\"plugins\":[{\"name\":\"is-pdf\"},{\"name\":"
	    "\"contains\",\"inputs\":{\"needle\":\"${email}\"}}]}}";

	request_parse(line, strlen(line), NONCE, r);
	assert_int_equal(r->error, E_NONE);
	assert_int_equal(request_validate(r, NONCE), 0);
}

static void
test_validate_corruptions(void **state)
{
	struct request *r = malloc(sizeof(*r));

	(void)state;
	assert_non_null(r);
#define REFUSED(mutation) do { valid_plan(r); mutation; \
	if (request_validate(r, NONCE) == 0) fail_msg("accepted: %s", \
	    #mutation); } while (0)
	REFUSED(r->magic = 0);
	/* a struct not bound to this line: another line's (an earlier one,
	 * another connection's), or no nonce at all */
	REFUSED(r->nonce[0] ^= 1);
	REFUSED(r->nonce[REQUEST_NONCE_LEN - 1] ^= 0x80);
	REFUSED(memset(r->nonce, 0, sizeof(r->nonce)));
	REFUSED(r->error = E_FETCH_FAILED);
	REFUSED(r->error = E__COUNT + 5);
	REFUSED(r->id_kind = 3);
	REFUSED(memset(r->id_str, 'a', sizeof(r->id_str)));
	REFUSED((r->id_kind = RID_STR, strcpy(r->id_str, "a\x1b[2J")));
	REFUSED(r->method = M__COUNT);
	REFUSED(r->method = 0xffffffffu);
	REFUSED(memset(r->profile, 'a', sizeof(r->profile)));
	REFUSED(strcpy(r->profile, "../etc"));
	REFUSED(strcpy(r->profile, ""));
	REFUSED(memset(r->key, 'a', sizeof(r->key)));
	REFUSED(r->key_len = 3);
	REFUSED(r->key_len = 0xffffffffu);
	REFUSED((r->key[0] = '\0', r->key_len = 0));
	REFUSED((r->has_handle = 1, strcpy(r->handle, "f_xyz")));
	REFUSED(memset(r->handle, 'a', sizeof(r->handle)));
	REFUSED((r->has_plan = 1, strcpy(r->plan, "pl_" H32 "0")));
	REFUSED(memset(r->plan, 'a', sizeof(r->plan)));
	REFUSED((r->has_text = 1, strcpy(r->text, "abc"), r->text_len = 4));
	REFUSED(memset(r->text, 'a', sizeof(r->text)));
	REFUSED(r->nplugins = PROTO_MAX_PLUGINS + 1);
	REFUSED(r->nplugins = 0xffffffffu);
	REFUSED(r->nplugins = 0);
	REFUSED(memset(r->plugins[0].name, 'a', sizeof(r->plugins[0].name)));
	REFUSED(strcpy(r->plugins[0].name, "/bin/sh"));
	REFUSED(strcpy(r->plugins[0].name, ""));
	REFUSED(strcpy(r->plugins[0].version, "1.0"));
	REFUSED(memset(r->plugins[0].version, '1',
	    sizeof(r->plugins[0].version)));
	REFUSED(r->plugins[1].ninputs = PROTO_MAX_INPUTS + 1);
	REFUSED(r->plugins[1].ninputs = 255);
	REFUSED(strcpy(r->plugins[1].inputs[0].name, "Needle"));
	REFUSED(strcpy(r->plugins[1].inputs[0].placeholder, "alice@example.org"));
	REFUSED(memset(r->plugins[1].inputs[0].placeholder, 'a',
	    sizeof(r->plugins[1].inputs[0].placeholder)));
	/* an input past ninputs left unchecked must not matter: one inside is
	 * checked even if it was "empty" */
	REFUSED((r->plugins[0].ninputs = 1));
	/* per-method requirements */
	REFUSED((r->has_handle = 1, strcpy(r->handle, "f_" H32)));
	REFUSED((r->has_profile = 0));
	REFUSED((r->has_key = 0));
	REFUSED((r->method = M_FILE_RELEASE, r->has_handle = 0));
	REFUSED((r->method = M_FILE_RUN, r->has_plan = 0));
	REFUSED((r->method = M_CHANGE_REQUEST, r->has_text = 0));
	/* a literal-input refusal belongs to file.plan only */
	REFUSED((r->method = M_FILE_RELEASE, r->error = E_LITERAL_INPUT,
	    r->has_handle = 1, strcpy(r->handle, "f_" H32)));
	REFUSED((r->method = M_STATUS, r->error = E_LITERAL_INPUT));
#undef REFUSED
	/* the untouched struct is fine, and a bad request needs only its id */
	valid_plan(r);
	assert_int_equal(request_validate(r, NONCE), 0);
	memset(r, 0x41, sizeof(*r));
	r->magic = REQUEST_MAGIC;
	memcpy(r->nonce, NONCE, sizeof(r->nonce));
	r->error = E_BAD_REQUEST;
	r->id_kind = RID_NULL;
	r->id_str[0] = '\0';
	assert_int_equal(request_validate(r, NONCE), 0);
	r->nonce[3] ^= 1;		/* even a bad request is this line's */
	assert_int_not_equal(request_validate(r, NONCE), 0);
	r->nonce[3] ^= 1;
	r->id_kind = RID_STR;
	memset(r->id_str, 0x41, sizeof(r->id_str));
	assert_int_not_equal(request_validate(r, NONCE), 0);
	free(r);
}

static void
test_id_json(void **state)
{
	json_t *v;

	(void)state;
	parse("{\"jsonrpc\":\"2.0\",\"id\":\"x-1\",\"method\":\"status\"}");
	v = request_id_json(&req);
	assert_true(json_is_string(v));
	assert_string_equal(json_string_value(v), "x-1");
	json_decref(v);
	parse("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"status\"}");
	v = request_id_json(&req);
	assert_true(json_is_integer(v) && json_integer_value(v) == 5);
	json_decref(v);
	parse("garbage");
	v = request_id_json(&req);
	assert_true(json_is_null(v));
	json_decref(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_envelope),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_params_per_method),
		cmocka_unit_test(test_plan_params),
		cmocka_unit_test(test_literal_inputs),
		cmocka_unit_test(test_too_many_plugins),
		cmocka_unit_test(test_size_and_depth),
		cmocka_unit_test(test_validate_corruptions),
		cmocka_unit_test(test_id_json),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("protocol-request", tests, NULL, NULL);
}
