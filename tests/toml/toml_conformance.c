/* Conformance of src/lib/toml.c against toml-test (TAP, one line a case).
 *
 *   toml-conformance TOML_TEST_DIR      (the directory holding valid/,
 *                                        invalid/ and files-toml-1.0.0)
 *
 * The cases listed in files-toml-1.0.0: every invalid/ one must be refused;
 * every valid/ one must decode exactly as its .json says, or, only when
 * that .json holds a float or a date/time, be refused with unsupported=1.
 * The other files (TOML 1.1 cases): an invalid/ one must still be refused
 * (1.1 only adds syntax), a valid/ one may be refused (it may use 1.1
 * syntax) but must decode exactly if it is accepted. Each case runs under
 * an alarm, so a hang shows as a broken plan. */
#include "lib/fd.h"
#include "lib/toml.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#define MAX_FILE	(4 * 1024 * 1024)
#define CASE_SECONDS	10

static const char *dir;
static json_t *all_files;	/* every .toml under dir, relative names */

static char *
slurp(const char *rel, size_t *len)
{
	char path[4096];
	char *data;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if ((data = malloc(MAX_FILE)) == NULL) {
		close(fd);
		return NULL;
	}
	n = read_full(fd, data, MAX_FILE);
	close(fd);
	if (n < 0 || n == MAX_FILE) {
		free(data);
		return NULL;
	}
	*len = (size_t)n;
	return data;
}

/* toml-test's tagged JSON to what toml_parse returns. Floats and
 * date-times become null and set *unsup. NULL on a malformed .json. */
static json_t *
untag(const json_t *v, int *unsup)
{
	const char *k, *type, *val;
	json_t *out, *e, *t, *x;
	size_t i;

	if (json_is_array(v)) {
		out = json_array();
		json_array_foreach(v, i, e) {
			if ((x = untag(e, unsup)) == NULL) {
				json_decref(out);
				return NULL;
			}
			json_array_append_new(out, x);
		}
		return out;
	}
	if (!json_is_object(v))
		return NULL;
	t = json_object_get(v, "type");
	x = json_object_get(v, "value");
	if (json_object_size(v) == 2 && json_is_string(t) && json_is_string(x)) {
		type = json_string_value(t);
		val = json_string_value(x);
		if (strcmp(type, "string") == 0)
			return json_stringn(val, json_string_length(x));
		if (strcmp(type, "bool") == 0)
			return strcmp(val, "true") == 0 ? json_true() :
			    strcmp(val, "false") == 0 ? json_false() : NULL;
		if (strcmp(type, "integer") == 0) {
			char *end;
			long long n;

			errno = 0;
			n = strtoll(val, &end, 10);
			if (errno != 0 || *end != '\0' || end == val)
				return NULL;
			return json_integer(n);
		}
		if (strcmp(type, "float") == 0 ||
		    strcmp(type, "datetime") == 0 ||
		    strcmp(type, "datetime-local") == 0 ||
		    strcmp(type, "date-local") == 0 ||
		    strcmp(type, "time-local") == 0) {
			*unsup = 1;
			return json_null();
		}
		return NULL;
	}
	out = json_object();
	json_object_foreach((json_t *)v, k, e) {
		if ((x = untag(e, unsup)) == NULL) {
			json_decref(out);
			return NULL;
		}
		json_object_setn_new(out, k, json_object_iter_key_len(
		    json_object_key_to_iter(k)), x);
	}
	return out;
}

/* jansson cannot load a key holding U+0000 (toml-test has one), though it
 * can build one. Both sides therefore compare with U+0000 replaced by
 * U+10FFFD, which no case uses: in the .json text (its \u0000 escapes, not
 * an escaped backslash before "u0000") and in the parsed document. */
#define SENTINEL_ESC	"\\udbff\\udffd"
#define SENTINEL_UTF8	"\xf4\x8f\xbf\xbd"

static char *
json_text_without_nul(const char *in, size_t len, size_t *outlen)
{
	char *out = malloc(len * 3 + 1), *o = out;
	size_t i = 0;

	if (out == NULL)
		return NULL;
	while (i < len) {
		if (in[i] == '\\' && len - i >= 6 &&
		    memcmp(in + i, "\\u0000", 6) == 0) {
			memcpy(o, SENTINEL_ESC, 12);
			o += 12;
			i += 6;
		} else if (in[i] == '\\' && i + 1 < len) {
			*o++ = in[i++];
			*o++ = in[i++];
		} else
			*o++ = in[i++];
	}
	*outlen = (size_t)(o - out);
	return out;
}

static char *
bytes_without_nul(const char *s, size_t len, size_t *outlen)
{
	char *out = malloc(len * 4 + 1), *o = out;
	size_t i;

	if (out == NULL)
		return NULL;
	for (i = 0; i < len; i++) {
		if (s[i] == '\0') {
			memcpy(o, SENTINEL_UTF8, 4);
			o += 4;
		} else
			*o++ = s[i];
	}
	*outlen = (size_t)(o - out);
	return out;
}

static json_t *
doc_without_nul(const json_t *v)
{
	json_t *out = NULL, *e;
	const char *k;
	char *b;
	size_t i, bl;

	if (json_is_string(v)) {
		b = bytes_without_nul(json_string_value(v),
		    json_string_length(v), &bl);
		out = json_stringn(b, bl);
		free(b);
	} else if (json_is_array(v)) {
		out = json_array();
		json_array_foreach(v, i, e)
			json_array_append_new(out, doc_without_nul(e));
	} else if (json_is_object(v)) {
		out = json_object();
		json_object_foreach((json_t *)v, k, e) {
			b = bytes_without_nul(k, json_object_iter_key_len(
			    json_object_key_to_iter(k)), &bl);
			json_object_setn_new(out, b, bl, doc_without_nul(e));
			free(b);
		}
	} else
		out = json_incref((json_t *)v);
	return out;
}

struct tally {
	int decoded, unsupported, invalid_rejected, invalid_as_unsup;
	int extra_accepted, extra_rejected, failed;
};

/* One case; listed says whether files-toml-1.0.0 names it. */
static void
run_case(const char *name, int listed, struct tally *t)
{
	struct toml_error err;
	json_t *got, *exp = NULL, *want = NULL, *plain;
	char *text, *raw = NULL, *jtext = NULL, jname[4096];
	size_t len, jlen;
	int valid = strncmp(name, "valid/", 6) == 0, unsup = 0, ok;

	if ((text = slurp(name, &len)) == NULL) {
		tap_ok(0, "%s cannot be read", name);
		t->failed++;
		return;
	}
	alarm(CASE_SECONDS);
	got = toml_parse(text, len, &err);
	alarm(0);
	if (got == NULL && (err.msg == NULL || err.line < 1)) {
		tap_ok(0, "%s refused without a message and a line", name);
		t->failed++;
		goto out;
	}
	if (!valid) {
		ok = got == NULL;
		if (ok && listed) {
			t->invalid_rejected++;
			t->invalid_as_unsup += err.unsupported;
		} else if (ok)
			t->extra_rejected++;
		else
			t->failed++;
		tap_ok(ok, "%s %s", name, ok ? (err.unsupported ? "rejected "
		    "(as unsupported)" : "rejected") : "ACCEPTED");
		goto out;
	}
	snprintf(jname, sizeof(jname), "%.*s.json", (int)strlen(name) - 5,
	    name);
	if ((raw = slurp(jname, &jlen)) == NULL ||
	    (jtext = json_text_without_nul(raw, jlen, &jlen)) == NULL ||
	    (exp = json_loadb(jtext, jlen, 0, NULL)) == NULL ||
	    (want = untag(exp, &unsup)) == NULL) {
		tap_ok(0, "%s expected .json missing or malformed", name);
		t->failed++;
		goto out;
	}
	if (got != NULL) {
		plain = doc_without_nul(got);
		ok = !unsup && json_equal(plain, want);
		json_decref(plain);
		if (ok && listed)
			t->decoded++;
		else if (ok)
			t->extra_accepted++;
		else
			t->failed++;
		tap_ok(ok, "%s %s", name, ok ? "decoded" : "decoded WRONGLY");
	} else if (!listed) {
		/* A 1.1 case: refusing its syntax is right for 1.0. */
		t->extra_rejected++;
		tap_ok(1, "%s refused (TOML 1.1 case)", name);
	} else if (err.unsupported && unsup) {
		t->unsupported++;
		tap_ok(1, "%s refused as unsupported (float/date-time)", name);
	} else {
		t->failed++;
		tap_diag("%s: line %d: %s%s", name, err.line, err.msg,
		    err.unsupported ? " (unsupported)" : "");
		tap_ok(0, "%s %s", name, err.unsupported ? "refused as "
		    "unsupported WITHOUT a float or date-time" : "REFUSED");
	}
out:
	json_decref(got);
	json_decref(exp);
	json_decref(want);
	free(jtext);
	free(raw);
	free(text);
}

static int
collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t dl = strlen(dir), pl = strlen(path);

	(void)st;
	(void)ftw;
	if (type == FTW_F && pl > dl + 6 && strcmp(path + pl - 5, ".toml") == 0)
		json_object_set_new(all_files, path + dl + 1, json_true());
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
main(int argc, char **argv)
{
	struct tally t = { 0 };
	const char **extra;
	json_t *listed;
	char *list, *line, *nl, lname[4096];
	const char *k;
	json_t *v;
	size_t len, nextra = 0, i;
	int plan;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TOML_TEST_DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	all_files = json_object();
	listed = json_array();
	if (nftw(dir, collect, 16, FTW_PHYS) != 0)
		tap_fail_setup("cannot walk %s", dir);
	snprintf(lname, sizeof(lname), "files-toml-1.0.0");
	if ((list = slurp(lname, &len)) == NULL)
		tap_fail_setup("cannot read %s/%s", dir, lname);
	for (line = list; line < list + len; line = nl + 1) {
		size_t ll;

		/* slurp leaves room after the data: list[len] is ours. */
		nl = memchr(line, '\n', (size_t)(list + len - line));
		if (nl == NULL)
			nl = list + len;
		*nl = '\0';
		ll = strlen(line);
		if (ll > 5 && strcmp(line + ll - 5, ".toml") == 0) {
			json_array_append_new(listed, json_string(line));
			json_object_del(all_files, line);
		}
	}
	extra = calloc(json_object_size(all_files) + 1, sizeof(*extra));
	json_object_foreach(all_files, k, v)
		extra[nextra++] = k;
	qsort(extra, nextra, sizeof(*extra), cmp_str);
	plan = (int)(json_array_size(listed) + nextra);
	tap_plan(plan);
	json_array_foreach(listed, i, v)
		run_case(json_string_value(v), 1, &t);
	for (i = 0; i < nextra; i++)
		run_case(extra[i], 0, &t);
	tap_diag("TOML 1.0.0 valid cases: %d decoded exactly, %d refused as "
	    "unsupported (float/date-time)", t.decoded, t.unsupported);
	tap_diag("TOML 1.0.0 invalid cases: %d rejected (%d of them as "
	    "unsupported)", t.invalid_rejected, t.invalid_as_unsup);
	tap_diag("other (TOML 1.1) cases: %d rejected, %d accepted and "
	    "decoded exactly", t.extra_rejected, t.extra_accepted);
	tap_diag("failures: %d", t.failed);
	free(extra);
	free(list);
	json_decref(listed);
	json_decref(all_files);
	return tap_done();
}
