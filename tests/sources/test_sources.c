/* Unit tests for src/sources/: the S3 request text (endpoint, bucket,
 * region grammars, key encoding, URLs, error codes and their causes), the
 * strict profile validation of every kind, the credential origins (file
 * checks, the pinned command: hash, exit status, time limit, output cap,
 * environment), secret scrubbing and the spool sink's cap. The servers are
 * in the pytest suites beside this file. cmocka, TAP output. */
#include "sources/cred.h"
#include "sources/s3url.h"
#include "sources/sink.h"
#include "sources/source.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/https.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

static char tmpdir[64];

static json_t *
J(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, JSON_REJECT_DUPLICATES, &e);

	if (v == NULL)
		fail_msg("bad test JSON: %s: %s", e.text, text);
	return v;
}

/* ---- s3url -------------------------------------------------------------- */

static void
test_endpoint(void **state)
{
	static const char *const good[] = { "https://s3.amazonaws.com",
	    "https://s3.eu-west-1.amazonaws.com/", "http://127.0.0.1:9000",
	    "http://[::1]:8080", "https://minio.internal:443", NULL };
	static const char *const bad[] = { "s3.amazonaws.com", "ftp://x.y",
	    "https://", "https://S3.example.com", "https://a..b",
	    "https://-a.b", "https://a.b:0", "https://a.b:65536",
	    "https://a.b:", "https://a.b/path", "https://user@a.b",
	    "https://a.b?x", "https://a.b:80x", "http://[::1", "http://a b",
	    "https://a.b//", "https://a.b:+80", NULL };
	struct s3_endpoint ep;
	size_t i;

	(void)state;
	for (i = 0; good[i]; i++)
		if (s3_parse_endpoint(good[i], &ep) != 0)
			fail_msg("refused %s", good[i]);
	for (i = 0; bad[i]; i++)
		if (s3_parse_endpoint(bad[i], &ep) == 0)
			fail_msg("accepted %s", bad[i]);
	assert_int_equal(s3_parse_endpoint("http://127.0.0.1:9000", &ep), 0);
	assert_int_equal(ep.https, 0);
	assert_int_equal(ep.port, 9000);
	assert_true(ep.ip_literal);
	assert_string_equal(ep.host, "127.0.0.1");
	assert_int_equal(s3_parse_endpoint("https://s3.test", &ep), 0);
	assert_int_equal(ep.port, 443);
	assert_false(ep.port_given);
	assert_false(ep.ip_literal);
	assert_int_equal(s3_parse_endpoint("http://[::1]:81", &ep), 0);
	assert_string_equal(ep.host, "[::1]");
	assert_true(ep.ip_literal);
}

static void
test_names(void **state)
{
	(void)state;
	assert_true(s3_bucket_ok("bkt"));
	assert_true(s3_bucket_ok("my.bucket-2024"));
	assert_false(s3_bucket_ok("ab"));
	assert_false(s3_bucket_ok("Bucket"));
	assert_false(s3_bucket_ok("-bkt"));
	assert_false(s3_bucket_ok("bkt-"));
	assert_false(s3_bucket_ok("a..b"));
	assert_false(s3_bucket_ok("192.168.1.1"));
	assert_false(s3_bucket_ok("a_b"));
	assert_false(s3_bucket_ok("a/b"));
	assert_true(s3_region_ok("us-east-1"));
	assert_false(s3_region_ok(""));
	assert_false(s3_region_ok("US-EAST-1"));
	assert_false(s3_region_ok("us east"));
	assert_true(s3_address_ok("127.0.0.1"));
	assert_true(s3_address_ok("::1"));
	assert_false(s3_address_ok("localhost"));
	assert_false(s3_address_ok("1.2.3.256"));
	assert_false(s3_address_ok("01.2.3.4"));
}

static void
test_encode_key(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(s3_encode_key("a/b.c-d_e~f", out, sizeof(out)), 11);
	assert_string_equal(out, "a/b.c-d_e~f");
	assert_true(s3_encode_key("a b/\xc3\xbc\xe2\x82\xac!%+=", out,
	    sizeof(out)) > 0);
	assert_string_equal(out, "a%20b/%C3%BC%E2%82%AC%21%25%2B%3D");
	/* exactly once: an already-encoded key is encoded again */
	assert_true(s3_encode_key("%20", out, sizeof(out)) > 0);
	assert_string_equal(out, "%2520");
	assert_int_equal(s3_encode_key("abc", out, 4), 3);
	assert_int_equal(s3_encode_key("abcd", out, 4), -1);
	assert_int_equal(s3_encode_key("a ", out, 4), -1);
}

static void
test_object_url(void **state)
{
	struct s3_endpoint ep;
	char url[256];

	(void)state;
	assert_int_equal(s3_parse_endpoint("http://127.0.0.1:9000", &ep), 0);
	assert_int_equal(s3_object_url(&ep, "bkt", 0, "a b/c", url,
	    sizeof(url)), 0);
	assert_string_equal(url, "http://127.0.0.1:9000/bkt/a%20b/c");
	assert_int_equal(s3_parse_endpoint("https://s3.test", &ep), 0);
	assert_int_equal(s3_object_url(&ep, "bkt", 1, "k", url, sizeof(url)), 0);
	assert_string_equal(url, "https://bkt.s3.test/k");
	assert_int_equal(s3_url_host(&ep, "bkt", 1, url, sizeof(url)), 0);
	assert_string_equal(url, "bkt.s3.test");
	assert_int_equal(s3_object_url(&ep, "bkt", 1, "k", url, 10), -1);
}

static void
test_error_code(void **state)
{
	char code[65], big[S3_ERRBODY_MAX + 64];

	(void)state;
	assert_int_equal(s3_error_code("<?xml?><Error><Code>NoSuchKey</Code>"
	    "<Message>The key</Message></Error>", 68, code, sizeof(code)), 0);
	assert_string_equal(code, "NoSuchKey");
	assert_int_equal(s3_error_code("<Code>No Such</Code>", 20, code,
	    sizeof(code)), -1);
	assert_int_equal(s3_error_code("<Code></Code>", 13, code,
	    sizeof(code)), -1);
	assert_int_equal(s3_error_code("<Code>NoSuchKey", 15, code,
	    sizeof(code)), -1);
	assert_int_equal(s3_error_code("<Code>\x1b[31m</Code>", 19, code,
	    sizeof(code)), -1);
	/* only the head is read, and the length is honoured */
	memset(big, 'x', sizeof(big));
	memcpy(big + S3_ERRBODY_MAX, "<Code>A</Code>", 14);
	assert_int_equal(s3_error_code(big, sizeof(big), code, sizeof(code)),
	    -1);
	assert_int_equal(s3_error_code("<Code>AB</Code>", 9, code,
	    sizeof(code)), -1);
	memset(big, 'A', 70);
	memcpy(big, "<Code>", 6);
	memcpy(big + 6 + 65, "</Code>", 7);
	assert_int_equal(s3_error_code(big, 78, code, sizeof(code)), -1);
}

static void
test_causes(void **state)
{
	(void)state;
	assert_int_equal(s3_cause_for(404, "NoSuchKey"), FC_MISSING);
	assert_int_equal(s3_cause_for(404, "NoSuchBucket"), FC_MISSING);
	assert_int_equal(s3_cause_for(404, ""), FC_MISSING);
	assert_int_equal(s3_cause_for(403, "AccessDenied"), FC_DENIED);
	assert_int_equal(s3_cause_for(403, "SignatureDoesNotMatch"),
	    FC_BAD_CREDENTIALS);
	assert_int_equal(s3_cause_for(403, "InvalidAccessKeyId"),
	    FC_BAD_CREDENTIALS);
	assert_int_equal(s3_cause_for(400, "AuthorizationHeaderMalformed"),
	    FC_BAD_CREDENTIALS);
	assert_int_equal(s3_cause_for(301, "PermanentRedirect"), FC_PROTOCOL);
	assert_int_equal(s3_cause_for(503, "SlowDown"), FC_PROTOCOL);
	assert_int_equal(s3_cause_for(401, NULL), FC_BAD_CREDENTIALS);
}

/* ---- validation of every kind ------------------------------------------ */

static int
valid(const char *kind, const char *table)
{
	const struct source_kind *k = source_kind_find(kind);
	const char *why = NULL;
	json_t *t = J(table);
	int r;

	assert_non_null(k);
	r = k->validate(t, &why);
	if (r != 0)
		assert_non_null(why);
	json_decref(t);
	return r == 0;
}

#define CRED_FILE "\"credentials\":{\"file\":\"~/.config/lockfile/s3\"}"
#define PIN "\"host_key_sha256\":\"SHA256:" \
	"MJjEoFfNRLxMR91YoAse6AAG0Qp7R7YM9aM7Jtcldxw\""

static void
test_validate_s3(void **state)
{
	(void)state;
	assert_true(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"us-east-1\",\"bucket\":\"bkt\"," CRED_FILE "}"));
	assert_true(valid("s3", "{\"endpoint\":\"http://127.0.0.1:9\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"url_style\":\"path\","
	    "\"access_key_id\":\"AKIA:x\",\"connect_timeout_s\":3,"
	    "\"stall_timeout_s\":2,\"timeout_s\":60," CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"us-east-1\",\"bucket\":\"bkt\"}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"us-east-1\",\"bucket\":\"bkt\",\"path\":\"/x\","
	    CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"http://127.0.0.1:9\","
	    "\"region\":\"r\",\"bucket\":\"bkt\"," CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"url_style\":\"dns\","
	    CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"timeout_s\":0," CRED_FILE
	    "}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"timeout_s\":\"5\","
	    CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"http://s3.test\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"ca_file\":\"/etc/ca.pem\","
	    CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"access_key_id\":\"a b\","
	    CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"address\":\"s3.test\","
	    CRED_FILE "}"));
	assert_false(valid("s3", "{\"endpoint\":\"https://s3.test\","
	    "\"region\":\"r\",\"bucket\":\"bkt\",\"credentials\":{}}"));
}

static void
test_validate_sftp(void **state)
{
	(void)state;
	assert_true(valid("sftp", "{\"host\":\"files.example.org\","
	    "\"user\":\"reader\",\"base_dir\":\"/srv/files\","
	    "\"host_key_type\":\"ssh-ed25519\"," PIN "," CRED_FILE "}"));
	assert_true(valid("sftp", "{\"host\":\"127.0.0.1\",\"port\":2222,"
	    "\"user\":\"r\",\"base_dir\":\"/\",\"host_key_type\":\"ssh-rsa\","
	    PIN ",\"stall_timeout_s\":5," CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"r\","
	    "\"base_dir\":\"srv\",\"host_key_type\":\"ssh-ed25519\"," PIN ","
	    CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"r\","
	    "\"base_dir\":\"/srv/../etc\",\"host_key_type\":\"ssh-ed25519\","
	    PIN "," CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"r\","
	    "\"base_dir\":\"/srv\",\"host_key_type\":\"ssh-dss\"," PIN ","
	    CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"r\","
	    "\"base_dir\":\"/srv\",\"host_key_type\":\"ssh-ed25519\","
	    "\"host_key_sha256\":\"SHA256:short\"," CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"r\","
	    "\"base_dir\":\"/srv\",\"host_key_type\":\"ssh-ed25519\","
	    "\"host_key_sha256\":\"MD5:aa\"," CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"r\","
	    "\"base_dir\":\"/srv\",\"host_key_type\":\"ssh-ed25519\"," PIN ","
	    "\"known_hosts\":\"~/.ssh/known_hosts\"," CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"-oProxy\","
	    "\"base_dir\":\"/srv\",\"host_key_type\":\"ssh-ed25519\"," PIN ","
	    CRED_FILE "}"));
	assert_false(valid("sftp", "{\"host\":\"h\",\"user\":\"r\","
	    "\"base_dir\":\"/srv\",\"host_key_type\":\"ssh-ed25519\"," PIN ","
	    "\"port\":0," CRED_FILE "}"));
	assert_false(valid("local", "{\"path\":\"/srv\",\"bucket\":\"x\"}"));
	assert_true(valid("local", "{\"path\":\"/srv\"}"));
}

static void
test_validate_credentials(void **state)
{
	static const char *const bad[] = {
		"{}",
		"{\"file\":\"/etc/secret\"}",
		"{\"file\":\"~/../x\"}",
		"{\"file\":\"~/a//b\"}",
		"{\"file\":\"~/a\",\"command\":[\"/bin/true\"],\"sha256\":\""
		    "0000000000000000000000000000000000000000000000000000000000000000\"}",
		"{\"file\":\"~/a\",\"sha256\":\"00\"}",
		"{\"command\":[\"vault\",\"kv\"],\"sha256\":\""
		    "0000000000000000000000000000000000000000000000000000000000000000\"}",
		"{\"command\":[\"/usr/bin/vault\"]}",
		"{\"command\":[\"/usr/bin/vault\"],\"sha256\":\"ABCD\"}",
		"{\"command\":[],\"sha256\":\""
		    "0000000000000000000000000000000000000000000000000000000000000000\"}",
		"{\"command\":[\"/usr/bin/vault\"],\"sha256\":\""
		    "0000000000000000000000000000000000000000000000000000000000000000\","
		    "\"env\":{\"lower\":\"x\"}}",
		"{\"command\":[\"/usr/bin/vault\"],\"sha256\":\""
		    "0000000000000000000000000000000000000000000000000000000000000000\","
		    "\"env\":{\"A\":\"x\"},\"pass_env\":[\"A\"]}",
		"{\"command\":[\"/usr/bin/vault\"],\"sha256\":\""
		    "0000000000000000000000000000000000000000000000000000000000000000\","
		    "\"timeout_s\":301}",
		"{\"file\":\"~/a\",\"max_bytes\":65537}",
		"{\"file\":\"~/a\",\"shell\":true}",
		NULL };
	const char *why;
	size_t i;
	json_t *t;

	(void)state;
	for (i = 0; bad[i]; i++) {
		t = J(bad[i]);
		if (cred_validate(t, &why) == 0)
			fail_msg("accepted %s", bad[i]);
		json_decref(t);
	}
	t = J("{\"command\":[\"/usr/bin/vault\",\"kv\",\"get\","
	    "\"-field=secret\",\"secret/x\"],\"sha256\":\""
	    "0000000000000000000000000000000000000000000000000000000000000000\","
	    "\"env\":{\"VAULT_ADDR\":\"https://v:8200\"},\"pass_env\":"
	    "[\"VAULT_TOKEN\"],\"timeout_s\":5,\"max_bytes\":4096}");
	assert_int_equal(cred_validate(t, &why), 0);
	json_decref(t);
}

/* ---- credential origins -------------------------------------------------- */

static void
write_file(const char *rel, const char *text, mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_full(fd, text, strlen(text)), 0);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

/* Load through a credentials table; returns 0 or -1, the secret in out
 * (or "") and the reason in why. */
static int
load(const char *table, char *out, size_t outlen, const char **why)
{
	struct cred *c = NULL;
	json_t *t = J(table);
	int r;

	*why = NULL;
	r = cred_open(t, tmpdir, &c, why);
	snprintf(out, outlen, "%s", c ? cred_text(c) : "");
	if (r == 0)
		assert_null(*why);
	else
		assert_non_null(*why);
	cred_close(c);
	json_decref(t);
	return r;
}

static void
test_cred_file(void **state)
{
	char out[256];
	const char *why;

	(void)state;
	write_file("ok", "id\nsecret\n", 0600);
	assert_int_equal(load("{\"file\":\"~/ok\"}", out, sizeof(out), &why), 0);
	assert_string_equal(out, "id\nsecret");
	write_file("crlf", "id\r\n", 0600);
	assert_int_equal(load("{\"file\":\"~/crlf\"}", out, sizeof(out), &why),
	    0);
	assert_string_equal(out, "id");
	write_file("open", "x\n", 0644);
	assert_int_equal(load("{\"file\":\"~/open\"}", out, sizeof(out), &why),
	    -1);
	assert_non_null(strstr(why, "0600"));
	assert_int_equal(load("{\"file\":\"~/absent\"}", out, sizeof(out),
	    &why), -1);
	assert_string_equal(why, "credentials file is missing");
	{
		char link[256], target[256];
		snprintf(link, sizeof(link), "%s/link", tmpdir);
		snprintf(target, sizeof(target), "%s/ok", tmpdir);
		(void)unlink(link);
		assert_int_equal(symlink(target, link), 0);
	}
	assert_int_equal(load("{\"file\":\"~/link\"}", out, sizeof(out), &why),
	    -1);
	write_file("empty", "", 0600);
	assert_int_equal(load("{\"file\":\"~/empty\"}", out, sizeof(out), &why),
	    -1);
	write_file("big", "0123456789abcdef0123456789", 0400);
	assert_int_equal(load("{\"file\":\"~/big\",\"max_bytes\":16}", out,
	    sizeof(out), &why), -1);
	assert_int_equal(load("{\"file\":\"~/big\",\"max_bytes\":26}", out,
	    sizeof(out), &why), 0);
}

/* A script in tmpdir and its pinned table. */
static void
command_table(const char *name, const char *body, const char *extra,
    char *table, size_t tl)
{
	char path[256], text[1024], hex[SHA256_HEX_LEN + 1];
	uint8_t h[SHA256_LEN];

	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	write_file(name, text, 0755);
	sha256_mem(text, strlen(text), h);
	hex_encode(h, SHA256_LEN, hex);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	snprintf(table, tl, "{\"command\":[\"%s\",\"kv\",\"get\"],"
	    "\"sha256\":\"%s\"%s}", path, hex, extra);
}

static void
test_cred_command(void **state)
{
	char t[2048], out[256];
	const char *why;
	long long t0;

	(void)state;
	command_table("vault", "printf 'AKID\\nsec-%s\\n' \"$2\"", "", t,
	    sizeof(t));
	assert_int_equal(load(t, out, sizeof(out), &why), 0);
	assert_string_equal(out, "AKID\nsec-get");
	/* a changed binary is refused before it runs */
	command_table("vault2", "echo one", "", t, sizeof(t));
	write_file("vault2", "#!/bin/sh\necho two\n", 0755);
	assert_int_equal(load(t, out, sizeof(out), &why), -1);
	assert_non_null(strstr(why, "pinned"));
	assert_string_equal(out, "");
	/* group-writable: refused even with the right hash */
	command_table("vault3", "echo x", "", t, sizeof(t));
	{
		char p[256];
		snprintf(p, sizeof(p), "%s/vault3", tmpdir);
		assert_int_equal(chmod(p, 0775), 0);
	}
	assert_int_equal(load(t, out, sizeof(out), &why), -1);
	assert_non_null(strstr(why, "writable"));
	command_table("fail", "echo leaked-secret; exit 3", "", t, sizeof(t));
	assert_int_equal(load(t, out, sizeof(out), &why), -1);
	assert_string_equal(why, "credential command exited with a non-zero "
	    "status");
	assert_string_equal(out, "");
	command_table("slow", "sleep 30; echo late", ",\"timeout_s\":1", t,
	    sizeof(t));
	t0 = now_ms();
	assert_int_equal(load(t, out, sizeof(out), &why), -1);
	assert_true(now_ms() - t0 < 5000);
	assert_string_equal(why, "credential command timed out");
	/* a child that closes stdout and lingers is still bounded */
	command_table("linger", "echo ok; exec >&-; sleep 30",
	    ",\"timeout_s\":1", t, sizeof(t));
	t0 = now_ms();
	assert_int_equal(load(t, out, sizeof(out), &why), -1);
	assert_true(now_ms() - t0 < 5000);
	command_table("chatty", "yes secret", ",\"max_bytes\":100", t,
	    sizeof(t));
	assert_int_equal(load(t, out, sizeof(out), &why), -1);
	assert_non_null(strstr(why, "max_bytes"));
	/* the environment is empty but for what the profile names */
	setenv("LF_TEST_PASSED", "from-console", 1);
	setenv("LF_TEST_HIDDEN", "never", 1);
	command_table("env", "printf '%s|%s|%s|%s' \"$FOO\" \"$LF_TEST_PASSED\" "
	    "\"$LF_TEST_HIDDEN\" \"$(env | grep -v -e '^FOO=' -e "
	    "'^LF_TEST_PASSED=' -e '^PWD=' -e '^SHLVL=' -e '^_=' | wc -l)\"",
	    ",\"env\":{\"FOO\":\"bar baz\",\"PATH\":\"/usr/bin:/bin\"},"
	    "\"pass_env\":[\"LF_TEST_PASSED\",\"LF_TEST_UNSET\"]", t, sizeof(t));
	assert_int_equal(load(t, out, sizeof(out), &why), 0);
	assert_string_equal(out, "bar baz|from-console||1");
	/* stdin is /dev/null, and the command's stderr goes nowhere */
	command_table("stdin", "cat; echo err >&2; echo done", "", t,
	    sizeof(t));
	assert_int_equal(load(t, out, sizeof(out), &why), 0);
	assert_string_equal(out, "done");
	command_table("nul", "printf 'a\\000b'", "", t, sizeof(t));
	assert_int_equal(load(t, out, sizeof(out), &why), -1);
	/* no shell: the arguments are argv, not a command line */
	command_table("argv", "printf '%s|%s' \"$#\" \"$1\"", "", t,
	    sizeof(t));
	{
		char *kv = strstr(t, "\"kv\"");
		char fixed[2048];
		assert_non_null(kv);
		snprintf(fixed, sizeof(fixed), "%.*s\"$(id); echo x\"%s",
		    (int)(kv - t), t, kv + 4);
		assert_int_equal(load(fixed, out, sizeof(out), &why), 0);
	}
	assert_string_equal(out, "2|$(id); echo x");
}

static void
test_scrub(void **state)
{
	char t[128];
	struct cred *c = NULL;
	const char *why, *a, *b;
	json_t *tab;

	(void)state;
	write_file("sec", "AKIDEXAMPLE\nsecretvalue\n", 0600);
	tab = J("{\"file\":\"~/sec\"}");
	assert_int_equal(cred_open(tab, tmpdir, &c, &why), 0);
	snprintf(t, sizeof(t), "auth secretvalue failed for AKIDEXAMPLE.");
	cred_scrub(c, t, sizeof(t));
	assert_string_equal(t, "auth <secret> failed for <secret>.");
	assert_int_equal(cred_split2(c, &a, &b), 0);
	assert_string_equal(a, "AKIDEXAMPLE");
	assert_string_equal(b, "secretvalue");
	assert_int_equal(cred_split2(c, &a, &b), -1);	/* once */
	/* still scrubbed once split */
	snprintf(t, sizeof(t), "x secretvalue AKIDEXAMPLE y");
	cred_scrub(c, t, sizeof(t));
	assert_string_equal(t, "x <secret> <secret> y");
	cred_close(c);
	json_decref(tab);
	/* a word inside its own tag does not loop */
	snprintf(t, sizeof(t), "secret secret");
	text_scrub_word("secret", t, sizeof(t));
	assert_string_equal(t, "<secret> <secret>");
	/* no room for the tag: the text is cut there */
	snprintf(t, 12, "x abcd y");
	text_scrub_word("abcd", t, 12);
	assert_string_equal(t, "x ");
}

/* ---- the sink ----------------------------------------------------------- */

static off_t
file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void
test_sink(void **state)
{
	char path[128];
	struct sink s;
	struct fetch_result res;
	uint8_t want[SHA256_LEN];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/spool", tmpdir);
	/* exactly the cap */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	sink_init(&s, fd, 10);
	assert_int_equal(sink_put(&s, "hello", 5), FC_OK);
	assert_int_equal(sink_put(&s, "world", 5), FC_OK);
	memset(&res, 0, sizeof(res));
	assert_int_equal(sink_finish(&s, &res), FC_OK);
	sink_free(&s);
	close(fd);
	sha256_mem("helloworld", 10, want);
	assert_memory_equal(res.sha256, want, SHA256_LEN);
	assert_int_equal(res.size, 10);
	assert_int_equal(file_size(path), 10);
	/* one byte over: refused, sticky, nothing past the cap written */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	sink_init(&s, fd, 10);
	assert_int_equal(sink_put(&s, "hello", 5), FC_OK);
	assert_int_equal(sink_put(&s, "world!", 6), FC_TOO_BIG);
	assert_int_equal(sink_put(&s, "x", 1), FC_TOO_BIG);
	assert_int_equal(sink_finish(&s, &res), FC_TOO_BIG);
	sink_free(&s);
	close(fd);
	assert_true(file_size(path) <= 10);
	/* a write error */
	fd = open(path, O_RDONLY);
	sink_init(&s, fd, 100);
	assert_int_equal(sink_put(&s, "x", 1), FC_OK);	/* still buffered */
	assert_int_equal(sink_finish(&s, &res), FC_IO);
	assert_int_not_equal(s.write_errno, 0);
	sink_free(&s);
	close(fd);
}

/* Many slots, odd sizes, both ways of filling: the digest and the file
 * are exactly the bytes given, in order. */
static void
test_sink_ring(void **state)
{
	const size_t total = 5 * SINK_BUF_SIZE + 12345;
	uint8_t *data = malloc(total), want[SHA256_LEN], got[SHA256_LEN];
	struct fetch_result res;
	struct sink s;
	char path[128];
	size_t off = 0, step = 1;
	int fd, rfd, round;

	(void)state;
	assert_non_null(data);
	random_bytes(data, total);
	sha256_mem(data, total, want);
	snprintf(path, sizeof(path), "%s/ring", tmpdir);
	for (round = 0; round < 2; round++) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0);
		sink_init(&s, fd, total);
		for (off = 0, step = 1; off < total; step = step * 7 % 300007 + 1) {
			size_t n = total - off < step ? total - off : step;
			if (round == 0) {
				assert_int_equal(sink_put(&s, data + off, n), FC_OK);
			} else {
				size_t room;
				uint8_t *b = sink_buffer(&s, &room);
				n = n < room ? n : room;
				memcpy(b, data + off, n);
				assert_int_equal(sink_commit(&s, n), FC_OK);
			}
			off += n;
		}
		memset(&res, 0, sizeof(res));
		assert_int_equal(sink_finish(&s, &res), FC_OK);
		sink_free(&s);
		close(fd);
		assert_int_equal(res.size, total);
		assert_memory_equal(res.sha256, want, SHA256_LEN);
		rfd = open(path, O_RDONLY);
		assert_int_equal(sha256_fd(rfd, got), 0);
		close(rfd);
		assert_memory_equal(got, want, SHA256_LEN);
	}
	/* the cap in the middle of a slot, by commit */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	sink_init(&s, fd, SINK_BUF_SIZE + 10);
	assert_int_equal(sink_put(&s, data, SINK_BUF_SIZE), FC_OK);
	{
		size_t room;
		(void)sink_buffer(&s, &room);
		assert_int_equal(room, SINK_BUF_SIZE);
		assert_int_equal(sink_commit(&s, 11), FC_TOO_BIG);
	}
	assert_int_equal(sink_finish(&s, &res), FC_TOO_BIG);
	sink_free(&s);
	close(fd);
	assert_true(file_size(path) <= SINK_BUF_SIZE + 10);
	free(data);
}

/* What a kind reads of this host, from its profile: the console's
 * confinement and the policy's overlap check ask this, never the name. */
static void
test_read_paths(void **state)
{
	struct source_read_path rp[4];
	json_t *t = json_pack("{s:s}", "path", "/srv/data");
	const struct source_kind *k;

	(void)state;
	k = source_kind_find("local");
	assert_non_null(k->read_paths);
	assert_int_equal(k->read_paths(t, rp, 4), 1);
	assert_string_equal(rp[0].key, "path");
	assert_string_equal(rp[0].path, "/srv/data");
	assert_int_equal(k->read_paths(t, rp, 0), 0);
	json_object_del(t, "path");
	assert_int_equal(k->read_paths(t, rp, 4), 0);
	json_decref(t);
	/* the network kinds read nothing here and connect somewhere */
	assert_null(source_kind_find("s3")->read_paths);
	assert_non_null(source_kind_find("s3")->tcp_ports);
	assert_null(source_kind_find("sftp")->read_paths);
	assert_non_null(source_kind_find("sftp")->tcp_ports);
}

/* The floor's own refusals (lib/https.h): no handle without a timeout or
 * a size cap. */
static void
test_https_floor(void **state)
{
	struct https_opts o = { .scheme = HTTPS_ONLY, .connect_timeout_ms = 1000,
	    .timeout_ms = 1000, .max_bytes = 10 };
	const char *why = NULL;
	CURL *h;

	(void)state;
	h = https_new("https://127.0.0.1:1/", &o, &why);
	assert_non_null(h);
	curl_easy_cleanup(h);
	o.timeout_ms = 0;
	assert_null(https_new("https://127.0.0.1:1/", &o, &why));
	assert_non_null(strstr(why, "timeout"));
	o.timeout_ms = 1000;
	o.connect_timeout_ms = 0;
	assert_null(https_new("https://127.0.0.1:1/", &o, &why));
	o.connect_timeout_ms = 1000;
	o.max_bytes = 0;
	why = NULL;
	assert_null(https_new("https://127.0.0.1:1/", &o, &why));
	assert_non_null(why);
	/* http:// is not https: refused by libcurl before any connection */
	o.max_bytes = 10;
	h = https_new("http://127.0.0.1:1/", &o, &why);
	assert_non_null(h);
	assert_int_equal(curl_easy_perform(h), CURLE_UNSUPPORTED_PROTOCOL);
	curl_easy_cleanup(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_encode_key),
		cmocka_unit_test(test_object_url),
		cmocka_unit_test(test_error_code),
		cmocka_unit_test(test_causes),
		cmocka_unit_test(test_validate_s3),
		cmocka_unit_test(test_validate_sftp),
		cmocka_unit_test(test_validate_credentials),
		cmocka_unit_test(test_cred_file),
		cmocka_unit_test(test_cred_command),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_sink),
		cmocka_unit_test(test_sink_ring),
		cmocka_unit_test(test_read_paths),
		cmocka_unit_test(test_https_floor),
	};
	char cmd[128];
	int r;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/lf-sources-XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return 1;
	cmocka_set_message_output(CM_OUTPUT_TAP);
	r = cmocka_run_group_tests_name("sources", tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		r = r ? r : 1;
	return r;
}
