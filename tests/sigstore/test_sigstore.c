/* Unit tests of the Sigstore verifier's parts: strict base64, RFC 3339,
 * proto3 int64, strict DER and PEM, Merkle proofs (against an independent RFC 6962 tree
 * builder, testsign's), checkpoints, the DSSE PAE, the SET payload, the
 * release policy and the error table. Prints TAP. */
#include "sigstore/internal.h"
#include "testsign.h"
#include "lib/crypto.h"
#include "lib/jsonx.h"
#include "lib/text.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
b64ok(const char *s, const char *want, size_t wantlen)
{
	uint8_t *out;
	size_t n;
	int r;

	if (sig_b64_decode(s, strlen(s), 64, &out, &n) != SIGSTORE_OK)
		return 0;
	r = n == wantlen && memcmp(out, want, n) == 0;
	free(out);
	return r;
}

static int
b64bad(const char *s, size_t len)
{
	uint8_t *out = NULL;
	size_t n;

	return sig_b64_decode(s, len, 64, &out, &n) != SIGSTORE_OK &&
	    out == NULL;
}

static void
test_base64(void)
{
	tap_ok(b64ok("aGVsbG8=", "hello", 5), "base64: padded text decodes");
	tap_ok(b64ok("QQ==", "A", 1), "base64: one byte with two pads");
	tap_ok(b64bad("aGVsbG8", 7), "base64: missing padding refused");
	tap_ok(b64bad("QR==", 4), "base64: non-zero trailing bits refused");
	tap_ok(b64bad("aGVs\nbG8=", 9), "base64: embedded newline refused");
	tap_ok(b64bad("aGVs bG8=", 9), "base64: embedded space refused");
	tap_ok(b64bad("a-_s", 4), "base64: URL-safe alphabet refused");
	tap_ok(b64bad("aGVsbG8=AAAA", 12), "base64: data after padding "
	    "refused");
	tap_ok(b64bad("aGVs\0G8=", 8), "base64: NUL refused");
	tap_ok(b64bad("", 0), "base64: empty refused");
	tap_ok(b64bad("A===", 4), "base64: three pads refused");
	{
		uint8_t *out;
		size_t n;
		tap_ok(sig_b64_decode("aGVsbG8=", 8, 4, &out, &n) ==
		    SIGSTORE_E_TOO_BIG, "base64: over the limit refused");
	}
}

static int
t3339(const char *s, sig_time want)
{
	sig_time t;

	return sig_parse_rfc3339(s, &t) == SIGSTORE_OK && t == want;
}

static int
t3339bad(const char *s)
{
	sig_time t;

	return sig_parse_rfc3339(s, &t) != SIGSTORE_OK;
}

static void
test_rfc3339(void)
{
	tap_ok(t3339("1970-01-01T00:00:00Z", 0), "rfc3339: epoch");
	tap_ok(t3339("2023-07-12T15:56:36Z", 1689177396LL * SIG_NS),
	    "rfc3339: a Rekor integrated time");
	tap_ok(t3339("2022-10-31T23:59:59.999Z", 1667260799LL * SIG_NS +
	    999000000), "rfc3339: milliseconds");
	tap_ok(t3339("2022-10-31T23:59:59.999000Z", 1667260799LL * SIG_NS +
	    999000000), "rfc3339: microseconds");
	tap_ok(t3339("2024-02-29T00:00:00.000000001Z", 1709164800LL * SIG_NS + 1),
	    "rfc3339: leap day, nanoseconds");
	tap_ok(t3339bad("2023-02-29T00:00:00Z"), "rfc3339: Feb 29 of 2023 "
	    "refused");
	tap_ok(t3339bad("2023-07-12T15:56:36"), "rfc3339: no zone refused");
	tap_ok(t3339bad("2023-07-12T15:56:36+00:00"), "rfc3339: offset "
	    "refused");
	tap_ok(t3339bad("2023-07-12 15:56:36Z"), "rfc3339: space refused");
	tap_ok(t3339bad("2023-07-12T15:56:36.Z"), "rfc3339: empty fraction "
	    "refused");
	tap_ok(t3339bad("2023-07-12T15:56:36.1234567891Z"),
	    "rfc3339: ten fraction digits refused");
	tap_ok(t3339bad("2023-07-12T24:00:00Z"), "rfc3339: hour 24 refused");
	tap_ok(t3339bad("1969-12-31T23:59:59Z"), "rfc3339: before 1970 "
	    "refused");
	tap_ok(t3339bad("2023-7-12T15:56:36Z"), "rfc3339: short month refused");
	tap_ok(t3339bad("2023-07-12T15:56:36Zjunk"), "rfc3339: trailing "
	    "refused");
}

static void
test_window(void)
{
	struct sig_window w = { 10, 20 };

	tap_ok(sig_window_has(&w, 10) && sig_window_has(&w, 20) &&
	    !sig_window_has(&w, 9) && !sig_window_has(&w, 21),
	    "validity windows are closed ranges");
}

static int
i64(const char *json, int64_t *v)
{
	json_t *o = jsonx_parse(json, strlen(json), 1024, 4);
	int r = o != NULL ? jf_i64(o, "n", 0, INT64_MAX, v) : -1;

	json_decref(o);
	return r;
}

static void
test_int64(void)
{
	int64_t v = -1;

	tap_ok(i64("{\"n\":\"0\"}", &v) == 0 && v == 0, "int64: \"0\"");
	tap_ok(i64("{\"n\":\"9223372036854775807\"}", &v) == 0 && v == INT64_MAX,
	    "int64: INT64_MAX");
	tap_ok(i64("{\"n\":\"9223372036854775808\"}", &v) != 0,
	    "int64: INT64_MAX+1 refused");
	tap_ok(i64("{\"n\":\"-1\"}", &v) != 0, "int64: negative refused");
	tap_ok(i64("{\"n\":\"01\"}", &v) != 0, "int64: leading zero refused");
	tap_ok(i64("{\"n\":\"+1\"}", &v) != 0, "int64: plus sign refused");
	tap_ok(i64("{\"n\":\" 1\"}", &v) != 0, "int64: space refused");
	tap_ok(i64("{\"n\":1}", &v) != 0, "int64: a JSON number refused");
	tap_ok(i64("{\"n\":\"1e3\"}", &v) != 0, "int64: exponent refused");
}

static void
test_merkle(void)
{
	uint8_t leaves[40][32], path[8][32], root[32], lh[32];
	size_t n, m, plen, i;
	int all = 1, tampered = 1, wrong = 1;

	for (i = 0; i < 40; i++) {
		uint8_t b = (uint8_t)i;
		sig_merkle_leaf(&b, 1, leaves[i]);
	}
	for (n = 1; n <= 40; n++) {
		ts_merkle_root((const uint8_t (*)[32])leaves, n, root);
		for (m = 0; m < n; m++) {
			plen = ts_merkle_path((const uint8_t (*)[32])leaves, n, m,
			    path);
			memcpy(lh, leaves[m], 32);
			if (sig_merkle_verify(lh, m, n,
			    (const uint8_t (*)[32])path, plen, root) != 0)
				all = 0;
			if (plen > 0) {
				path[plen - 1][5] ^= 0x80;
				if (sig_merkle_verify(lh, m, n,
				    (const uint8_t (*)[32])path, plen, root) == 0)
					tampered = 0;
				path[plen - 1][5] ^= 0x80;
				if (sig_merkle_verify(lh, m, n,
				    (const uint8_t (*)[32])path, plen - 1,
				    root) == 0)
					wrong = 0;
			}
			if (m + 1 < n && sig_merkle_verify(lh, m + 1, n,
			    (const uint8_t (*)[32])path, plen, root) == 0)
				wrong = 0;
		}
	}
	tap_ok(all, "merkle: every leaf of trees of 1..40 verifies");
	tap_ok(tampered, "merkle: a flipped proof bit fails");
	tap_ok(wrong, "merkle: a wrong index or a short proof fails");
	tap_ok(sig_merkle_verify(leaves[0], 0, 0, NULL, 0, root) != 0 &&
	    sig_merkle_verify(leaves[0], 5, 5, NULL, 0, root) != 0,
	    "merkle: empty tree and index past the end fail");
}

/* A checkpoint signed with k by name, plus extra signature lines. */
static char *
make_note(EVP_PKEY *k, const char *name, const char *origin,
    const char *before, const char *after, int corrupt)
{
	struct sig_key sk;
	uint8_t root[32] = { 1, 2, 3 }, hint[4], *sig, *line;
	size_t siglen;
	char text[256], *b64, *r, *out;

	r = sig_b64_encode(root, 32);
	snprintf(text, sizeof(text), "%s\n7\n%s\n", origin, r);
	free(r);
	ts_sign(k, (uint8_t *)text, strlen(text), &sig, &siglen);
	if (corrupt)
		sig[siglen - 1] ^= 1;
	if (sig_key_from_pkey(k, &sk) != 0 ||
	    sig_note_key_hint(&sk, name, hint) != 0)
		abort();
	sig_key_free(&sk);
	line = sig_malloc(siglen + 4);
	memcpy(line, hint, 4);
	memcpy(line + 4, sig, siglen);
	b64 = sig_b64_encode(line, siglen + 4);
	out = sig_malloc(2048);
	snprintf(out, 2048, "%s\n%s\xe2\x80\x94 %s %s\n%s", text, before, name,
	    b64, after);
	free(b64);
	free(line);
	free(sig);
	return out;
}

static int
cp_check(const char *env, const struct sig_log *log)
{
	struct sig_checkpoint cp;
	int r = sig_checkpoint_parse(env, strlen(env), &cp);

	return r != 0 ? r : sig_checkpoint_verify(env, strlen(env), &cp, log);
}

static int
cp_parses(const char *env)
{
	struct sig_checkpoint cp;

	return sig_checkpoint_parse(env, strlen(env), &cp) == 0;
}

static void
test_checkpoint(void)
{
	static const char witness[] =
	    "\xe2\x80\x94 witness.example AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
	EVP_PKEY *k = ts_genkey(), *other = ts_genkey();
	struct sig_log log;
	char *n;

	memset(&log, 0, sizeof(log));
	strcpy(log.name, "log.example");
	if (sig_key_from_pkey(k, &log.key) != 0)
		abort();
	n = make_note(k, "log.example", "log.example - 12", "", "", 0);
	tap_ok(cp_check(n, &log) == 0, "checkpoint: v1 origin, log signature");
	free(n);
	n = make_note(k, "log.example", "log.example", witness, witness, 0);
	tap_ok(cp_check(n, &log) == 0, "checkpoint: witness lines ignored");
	free(n);
	n = make_note(k, "log.example", "log.example", "", "", 1);
	tap_ok(cp_check(n, &log) == SIGSTORE_E_CHECKPOINT_SIG,
	    "checkpoint: a bad signature by the log's key fails");
	free(n);
	n = make_note(other, "log.example", "log.example", "", "", 0);
	tap_ok(cp_check(n, &log) == SIGSTORE_E_CHECKPOINT_SIG,
	    "checkpoint: only another key's signature fails");
	free(n);
	n = make_note(k, "log.example", "other.example", "", "", 0);
	tap_ok(cp_check(n, &log) == SIGSTORE_E_CHECKPOINT_SIG,
	    "checkpoint: another origin fails");
	free(n);
	n = make_note(k, "log.example", "log.example - 12x", "", "", 0);
	tap_ok(cp_check(n, &log) == SIGSTORE_E_CHECKPOINT_SIG,
	    "checkpoint: a v1 origin with junk after the tree id fails");
	free(n);
	n = make_note(k, "log.examplex", "log.example", "", "", 0);
	tap_ok(cp_check(n, &log) == SIGSTORE_E_CHECKPOINT_SIG,
	    "checkpoint: a signature under another name does not count");
	free(n);
	tap_ok(!cp_parses("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"),
	    "checkpoint: no signature line refused");
	tap_ok(!cp_parses("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
	    "\xe2\x80\x94 o AAAA\n"), "checkpoint: no blank line refused");
	tap_ok(!cp_parses("o\n01\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"
	    "\xe2\x80\x94 o AAAA\n"), "checkpoint: size with leading zero");
	tap_ok(!cp_parses("o\n1\nAAAA\n\n\xe2\x80\x94 o AAAA\n"),
	    "checkpoint: root hash not 32 bytes refused");
	tap_ok(!cp_parses("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"
	    "- o AAAA\n"), "checkpoint: ASCII dash instead of em dash refused");
	tap_ok(!cp_parses("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"
	    "\xe2\x80\x94 o  AAAA\n"), "checkpoint: double space refused");
	tap_ok(!cp_parses("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"
	    "\xe2\x80\x94 o AAAA"), "checkpoint: unterminated line refused");
	tap_ok(!cp_parses("o\r\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"
	    "\xe2\x80\x94 o AAAA\n"), "checkpoint: carriage return refused");
	tap_ok(cp_parses("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
	    "Timestamp: 1\n\n\xe2\x80\x94 o AAAA\n"),
	    "checkpoint: extension line accepted");
	sig_key_free(&log.key);
	EVP_PKEY_free(k);
	EVP_PKEY_free(other);
}

static void
test_formats(void)
{
	static const char pae_want[] =
	    "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
	uint8_t *pae, id[2] = { 0xab, 0xcd };
	size_t len;
	char *set;

	sig_dsse_pae("http://example.com/HelloWorld",
	    (const uint8_t *)"hello world", 11, &pae, &len);
	tap_ok(len == strlen(pae_want) && memcmp(pae, pae_want, len) == 0,
	    "DSSE PAE matches the specification's example");
	free(pae);
	set = sig_set_payload("Ym9keQ==", 1689177396, id, 2, 27246492);
	tap_ok(set != NULL && strcmp(set, "{\"body\":\"Ym9keQ==\",\"integratedTime\":"
	    "1689177396,\"logID\":\"abcd\",\"logIndex\":27246492}") == 0,
	    "SET payload is canonical JSON with sorted keys");
	free(set);
}

static void
test_policy(void)
{
	struct sigstore_policy p;
	struct sigstore_policy_buf b;

	tap_ok(sigstore_policy_github_release(&p, &b, "o/r", "v1.2.3") == 0 &&
	    strcmp(p.san, "https://github.com/o/r/.github/workflows/"
	    "release.yml@refs/tags/v1.2.3") == 0 &&
	    strcmp(p.issuer, SIGSTORE_GITHUB_ISSUER) == 0 &&
	    strcmp(p.source_repo, "https://github.com/o/r") == 0 &&
	    strcmp(p.source_ref, "refs/tags/v1.2.3") == 0,
	    "release policy: SAN, issuer, repository and ref");
	tap_ok(sigstore_policy_github_release(&p, &b, "o/r", "is-pdf/v1.0.0") == 0,
	    "release policy: a marketplace plugin tag NAME/vX.Y.Z");
	tap_ok(sigstore_policy_github_release(&p, &b, "o", "v1") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/r/x", "v1") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/..", "v1") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/r", "") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/r", "v1@x") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/r", "v1 x") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/r", "/v1") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/r", "-v1") != 0 &&
	    sigstore_policy_github_release(&p, &b, "o/r", "v1\n") != 0 &&
	    sigstore_policy_github_release(&p, &b, NULL, "v1") != 0,
	    "release policy: names that are not plain refused");
}

static void
test_errors(void)
{
	int i, j, good = 1;

	for (i = 0; i < SIGSTORE_E__COUNT; i++) {
		if (strcmp(sigstore_strerror(i), "unknown error") == 0 ||
		    strncmp(sigstore_errname(i), i ? "E_" : "OK", 2) != 0)
			good = 0;
		for (j = 0; j < i; j++)
			if (strcmp(sigstore_errname(i), sigstore_errname(j)) == 0)
				good = 0;
	}
	tap_ok(good, "every error code has a distinct name and a text");
	tap_ok(strcmp(sigstore_errname(-1), "E_UNKNOWN") == 0 &&
	    strcmp(sigstore_errname(SIGSTORE_E__COUNT), "E_UNKNOWN") == 0,
	    "out-of-range codes are named E_UNKNOWN");
}

static int
load(const char *path, int strict)
{
	struct sigstore_root *r = NULL;
	int ret = sigstore_root_load(path, strict, &r);

	sigstore_root_free(r);
	return ret;
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) != 0 || close(fd) != 0)
		abort();
}

/* The default trusted root must be root-owned, in a root-owned directory
 * nobody else can write, and not a symlink. */
static void
test_root_file(void)
{
	static const char minimal[] = "{\"mediaType\": \"application/vnd.dev."
	    "sigstore.trustedroot+json;version=0.1\"}";
	char dir[] = "/tmp/sigstore-root-XXXXXX", f[64], l[64];

	if (geteuid() != 0 || mkdtemp(dir) == NULL) {
		tap_skip("needs root", "root file checks");
		return;
	}
	snprintf(f, sizeof(f), "%s/trusted_root.json", dir);
	snprintf(l, sizeof(l), "%s/link.json", dir);
	write_file(f, minimal, 0644);
	tap_ok(load(f, 1) == SIGSTORE_OK, "root file: root-owned 0644 loads");
	if (chmod(f, 0664) != 0)
		abort();
	tap_ok(load(f, 1) == SIGSTORE_E_IO && load(f, 0) == SIGSTORE_OK,
	    "root file: group-writable refused when it must be root's");
	if (chmod(f, 0644) != 0 || chown(f, 65534, 65534) != 0)
		abort();
	tap_ok(load(f, 1) == SIGSTORE_E_IO, "root file: owned by nobody "
	    "refused");
	if (chown(f, 0, 0) != 0 || chmod(dir, 0777) != 0)
		abort();
	tap_ok(load(f, 1) == SIGSTORE_E_IO,
	    "root file: in a world-writable directory refused");
	if (chmod(dir, 0755) != 0 || symlink(f, l) != 0)
		abort();
	tap_ok(load(l, 1) == SIGSTORE_E_IO && load(l, 0) == SIGSTORE_E_IO,
	    "root file: a symlink refused");
	tap_ok(load("trusted_root.json", 1) == SIGSTORE_E_IO,
	    "root file: a relative name without directory refused");
	write_file(f, "{\"mediaType\": \"x\"}", 0644);
	tap_ok(load(f, 1) == SIGSTORE_E_ROOT_MEDIA_TYPE,
	    "root file: another media type refused");
	unlink(l);
	unlink(f);
	rmdir(dir);
}

/* ASN1 times to nanoseconds: an RFC 3161 genTime's fraction is kept. */
static int
asn1_ns(const char *text, int generalized, sig_time *out)
{
	ASN1_TIME *t = generalized ? ASN1_GENERALIZEDTIME_new() :
	    ASN1_UTCTIME_new();
	int ret;

	if (t == NULL || ASN1_STRING_set(t, text, (int)strlen(text)) != 1) {
		ASN1_TIME_free(t);
		return -1;
	}
	ret = sig_asn1_time(t, out);
	ASN1_TIME_free(t);
	return ret;
}

static void
test_asn1_time(void)
{
	sig_time t;

	tap_ok(asn1_ns("20250101000000Z", 1, &t) == SIGSTORE_OK &&
	    t == 1735689600LL * SIG_NS, "asn1 time: GeneralizedTime, whole "
	    "seconds");
	tap_ok(asn1_ns("20250101000000.5Z", 1, &t) == SIGSTORE_OK &&
	    t == 1735689600LL * SIG_NS + 500000000,
	    "asn1 time: a GeneralizedTime fraction is kept, not floored");
	tap_ok(asn1_ns("20250101000000.123456789Z", 1, &t) == SIGSTORE_OK &&
	    t == 1735689600LL * SIG_NS + 123456789,
	    "asn1 time: nine fraction digits");
	tap_ok(asn1_ns("20250101000000.1234567891Z", 1, &t) == SIGSTORE_OK &&
	    t == 1735689600LL * SIG_NS + 123456789,
	    "asn1 time: digits past the ninth dropped");
	tap_ok(asn1_ns("250101000000Z", 0, &t) == SIGSTORE_OK &&
	    t == 1735689600LL * SIG_NS, "asn1 time: UTCTime");
}

/* Strict DER: our walker on X.690 section 10's rules, one case each (the
 * bytes in hex). */
struct der_case {
	const char *desc;
	int good;
	const char *hex;
};

static void
test_der(void)
{
	static const struct der_case cases[] = {
		{ "a SEQUENCE of INTEGER and NULL", 1,
		    "30 05 02 01 05 05 00" },
		{ "a short length in the long form", 0,
		    "30 81 03 02 01 05" },
		{ "a long length with a leading zero byte", 0,
		    "04 82 00 81 00" },
		{ "an indefinite length", 0,
		    "30 80 02 01 05 00 00" },
		{ "a length past the end", 0,
		    "30 05 02 01 05" },
		{ "trailing bytes after the value", 0,
		    "02 01 05 00" },
		{ "BOOLEAN TRUE as FF", 1,
		    "01 01 ff" },
		{ "BOOLEAN TRUE as 01", 0,
		    "01 01 01" },
		{ "BOOLEAN of two bytes", 0,
		    "01 02 00 ff" },
		{ "INTEGER 128 as 00 80", 1,
		    "02 02 00 80" },
		{ "INTEGER with a needless 00", 0,
		    "02 02 00 7f" },
		{ "INTEGER with a needless FF", 0,
		    "02 02 ff 80" },
		{ "an empty INTEGER", 0,
		    "02 00" },
		{ "BIT STRING with 7 zero unused bits", 1,
		    "03 02 07 80" },
		{ "BIT STRING with unused bits set", 0,
		    "03 02 07 81" },
		{ "BIT STRING with 8 unused bits", 0,
		    "03 02 08 00" },
		{ "an empty BIT STRING with unused bits", 0,
		    "03 01 01" },
		{ "a constructed OCTET STRING", 0,
		    "24 03 04 01 41" },
		{ "NULL with content", 0,
		    "05 01 00" },
		{ "an OID", 1,
		    "06 03 2b 06 01" },
		{ "an OID arc with a leading 80", 0,
		    "06 03 2b 80 01" },
		{ "an OID ending inside an arc", 0,
		    "06 02 2b 86" },
		{ "UTCTime in its DER form", 1,
		    "17 0d 32 35 30 31 30 31 30 30 30 30 30 30 5a" },
		{ "UTCTime with an offset", 0,
		    "17 11 32 35 30 31 30 31 30 30 30 30 30 30 2b 30 31 30 30" },
		{ "GeneralizedTime with a fraction", 1,
		    "18 11 32 30 32 35 30 31 30 31 30 30 30 30 30 30 2e 35 5a" },
		{ "GeneralizedTime with a trailing zero fraction", 0,
		    "18 12 32 30 32 35 30 31 30 31 30 30 30 30 30 30 2e 35 30 5a" },
		{ "a primitive SEQUENCE", 0,
		    "10 00" },
		{ "a SET in order", 1,
		    "31 06 02 01 01 02 01 02" },
		{ "a SET out of order", 0,
		    "31 06 02 01 02 02 01 01" },
		{ "a context tag in the high-tag form though below 31", 0,
		    "bf 03 00" },
		{ "a context tag 31 in the high-tag form", 1,
		    "bf 1f 00" },
		{ "a high tag with a leading 80", 0,
		    "bf 80 1f 00" },
		{ "an empty input", 0,
		    "" },
	};
	uint8_t der[64], deep[80];
	size_t i, n;
	char d[160];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct der_case *c = &cases[i];
		const char *h = c->hex;
		for (n = 0; h[0] != '\0' && h[1] != '\0' && n < sizeof(der);
		    h += h[2] == ' ' ? 3 : 2)
			der[n++] = (uint8_t)(hex_digit(h[0]) << 4 |
			    hex_digit(h[1]));
		snprintf(d, sizeof(d), "der: %s %s", c->desc, c->good ?
		    "accepted" : "refused");
		tap_ok((sig_der_strict(der, n) == 0) == c->good, "%s", d);
	}
	/* 33 nested SEQUENCEs: one past the depth limit */
	for (i = 0; i < 33; i++) {
		deep[2 * i] = 0x30;
		deep[2 * i + 1] = (uint8_t)(2 * (32 - i));
	}
	tap_ok(sig_der_strict(deep, 66) != 0, "der: nesting past 32 refused");
	tap_ok(sig_der_strict(deep + 2, 64) == 0, "der: nesting of 32 "
	    "accepted");
}

/* One PEM block and nothing else, read by us. */
static void
test_pem(void)
{
	EVP_PKEY *k = ts_genkey();
	X509 *ca = ts_make_ca("pem-test", k, NULL, NULL, -1, 0, time(NULL) -
	    60, time(NULL) + 3600), *c = NULL;
	char *pem = ts_cert_pem(ca), buf[8192];
	size_t n = strlen(pem);

	tap_ok(sig_cert_from_pem((uint8_t *)pem, n, &c) == SIGSTORE_OK,
	    "pem: one block verifies");
	X509_free(c);
	snprintf(buf, sizeof(buf), "junk\n%s", pem);
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_E_DER,
	    "pem: text before the block refused");
	snprintf(buf, sizeof(buf), "\n%s", pem);
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_E_DER,
	    "pem: a newline before the block refused");
	snprintf(buf, sizeof(buf), "%s%s", pem, pem);
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_E_DER,
	    "pem: two blocks refused");
	snprintf(buf, sizeof(buf), "%sjunk\n", pem);
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_E_DER,
	    "pem: text after the block refused");
	snprintf(buf, sizeof(buf), "%.*s", (int)n - 1, pem);
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_OK,
	    "pem: no final newline accepted");
	X509_free(c);
	c = NULL;
	snprintf(buf, sizeof(buf), "%s\n", pem);
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_E_DER,
	    "pem: two final newlines refused");
	snprintf(buf, sizeof(buf), "-----BEGIN CERTIFICATE-----\nProc-Type: "
	    "4,ENCRYPTED\n%s", pem + strlen("-----BEGIN CERTIFICATE-----\n"));
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_E_DER,
	    "pem: a header refused");
	snprintf(buf, sizeof(buf), "-----BEGIN X509 CERTIFICATE-----\n%s",
	    pem + strlen("-----BEGIN CERTIFICATE-----\n"));
	tap_ok(sig_cert_from_pem((uint8_t *)buf, strlen(buf), &c) == SIGSTORE_E_DER,
	    "pem: another label refused");
	free(pem);
	X509_free(ca);
	EVP_PKEY_free(k);
}

/* The file-level entry point, on a conformance happy path. */
static void
test_verify_file(void)
{
	const char *base = LF_TESTDATA "/sigstore-conformance";
	char root_path[4096], bundle[4096], art[4096];
	struct sigstore_root *root = NULL;
	struct sigstore_policy p;
	struct sigstore_result res;
	int fd;

	snprintf(root_path, sizeof(root_path), "%s/production_trusted_root.json",
	    base);
	snprintf(bundle, sizeof(bundle), "%s/test/assets/bundle-verify/"
	    "happy-path-v0.3/bundle.sigstore.json", base);
	snprintf(art, sizeof(art), "%s/test/assets/bundle-verify/a.txt", base);
	fd = open(art, O_RDONLY | O_CLOEXEC);
	tap_ok(fd >= 0 && sigstore_root_load(root_path, 0, &root) == SIGSTORE_OK,
	    "verify_file: conformance data present");
	if (fd < 0 || root == NULL)
		return;
	memset(&p, 0, sizeof(p));
	p.san = "https://github.com/sigstore-conformance/extremely-dangerous-"
	    "public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-"
	    "beacon.yml@refs/heads/main";
	p.issuer = SIGSTORE_GITHUB_ISSUER;
	tap_ok(sigstore_verify_file(root, bundle, fd, &p, &res) == SIGSTORE_OK &&
	    res.signed_at == 1710869186 && res.ntlog == 1 && res.ntimes == 1 &&
	    lseek(fd, 0, SEEK_CUR) == 0,
	    "verify_file: verifies, reports the integrated time, fd offset kept");
	p.source_ref = "refs/heads/main";
	p.source_repo = "https://github.com/sigstore-conformance/"
	    "extremely-dangerous-public-oidc-beacon";
	tap_ok(sigstore_verify_file(root, bundle, fd, &p, &res) == SIGSTORE_OK,
	    "verify_file: source repository and ref extensions match");
	/* The real Fulcio certificate's numeric ids (.1.15, .1.17). */
	tap_ok(strcmp(res.repo_id, "632596897") == 0 &&
	    strcmp(res.owner_id, "131804563") == 0,
	    "verify_file: the result names the repository and owner ids");
	p.source_repo_id = "632596897";
	p.source_owner_id = "131804563";
	tap_ok(sigstore_verify_file(root, bundle, fd, &p, &res) == SIGSTORE_OK,
	    "verify_file: the repository and owner ids match");
	p.source_repo_id = "632596898";
	tap_ok(sigstore_verify_file(root, bundle, fd, &p, &res) ==
	    SIGSTORE_E_IDENTITY_REPO_ID, "verify_file: another repository id "
	    "refused");
	p.source_repo_id = "632596897";
	p.source_owner_id = "13180456";
	tap_ok(sigstore_verify_file(root, bundle, fd, &p, &res) ==
	    SIGSTORE_E_IDENTITY_OWNER_ID, "verify_file: an owner id prefix "
	    "refused");
	p.source_repo_id = p.source_owner_id = NULL;
	p.source_ref = "refs/tags/v1";
	tap_ok(sigstore_verify_file(root, bundle, fd, &p, &res) ==
	    SIGSTORE_E_IDENTITY_REF && res.signed_at == 0,
	    "verify_file: another ref refused, no result left behind");
	p.source_ref = NULL;
	p.san = "https://github.com/sigstore-conformance/extremely-dangerous-"
	    "public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-"
	    "beacon.yml@refs/heads/mai";
	tap_ok(sigstore_verify_file(root, bundle, fd, &p, NULL) ==
	    SIGSTORE_E_IDENTITY_SAN, "verify_file: a SAN prefix is refused");
	tap_ok(sigstore_verify_file(root, root_path, fd, &p, NULL) ==
	    SIGSTORE_E_SHAPE, "verify_file: a root given as bundle is refused");
	close(fd);
	sigstore_root_free(root);
}

int
main(void)
{
	test_base64();
	test_rfc3339();
	test_window();
	test_int64();
	test_merkle();
	test_checkpoint();
	test_formats();
	test_policy();
	test_errors();
	test_asn1_time();
	test_der();
	test_pem();
	test_root_file();
	test_verify_file();
	return tap_done();
}
