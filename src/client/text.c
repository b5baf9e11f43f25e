/* The CLI's human-readable output (see text.h). docs/client.md shows every
 * line this file can print; tests/client/whitelist.py knows each of them. */
#include "client/text.h"
#include "lib/escape.h"

#include <string.h>

/* A checked string, escaped once more on the way out. */
static void
put(FILE *f, const json_t *v)
{
	char out[PROTO_MAX_MANIFEST_TEXT * 4 + 8];
	const char *s = json_is_string(v) ? json_string_value(v) : "";

	escape_text(s, strlen(s), out, sizeof(out));
	fputs(out, f);
}

static long long
num(const json_t *obj, const char *key)
{
	return (long long)json_integer_value(json_object_get(obj, key));
}

static const char *
yesno(const json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key)) ? "yes" : "no";
}

static void
status(FILE *f, const json_t *r)
{
	const json_t *protos = json_object_get(r, "plugin_protocol"), *v;
	size_t i;

	fprintf(f, "console: up\n");
	if (json_object_get(r, "profile") != NULL) {
		fprintf(f, "profile: ");
		put(f, json_object_get(r, "profile"));
		fputc('\n', f);
	}
	fprintf(f, "production: %s\n", yesno(r, "production"));
	fprintf(f, "security level: %lld\n", num(r, "security_level"));
	fprintf(f, "idle timeout: %lld s\n", num(r, "idle_timeout_s"));
	fprintf(f, "session left: %lld s\n", num(r, "session_left_s"));
	fprintf(f, "plugin protocols:");
	json_array_foreach(protos, i, v) {
		fprintf(f, "%s %lld", i ? "," : "",
		    (long long)json_integer_value(v));
	}
	fputc('\n', f);
	fprintf(f, "sandbox: %s\n", json_is_string(json_object_get(r, "sandbox"))
	    && strcmp(json_string_value(json_object_get(r, "sandbox")), "ok") == 0
	    ? "ok" : "unavailable");
	fprintf(f, "answer quantum: %lld s\n", num(r, "answer_quantum_s"));
}

static void
sources(FILE *f, const json_t *r)
{
	const json_t *list = json_object_get(r, "sources"), *v;
	size_t i;

	if (json_array_size(list) == 0)
		fprintf(f, "no profiles\n");
	json_array_foreach(list, i, v) {
		fprintf(f, "profile ");
		put(f, json_object_get(v, "profile"));
		fprintf(f, "%s\n", json_is_true(json_object_get(v, "production")) ?
		    " (production)" : "");
	}
}

static void
plugins(FILE *f, const json_t *r)
{
	const json_t *list = json_object_get(r, "plugins"), *p, *in;
	size_t i, j;

	if (json_array_size(list) == 0)
		fprintf(f, "no plugins\n");
	json_array_foreach(list, i, p) {
		fprintf(f, "plugin ");
		put(f, json_object_get(p, "name"));
		fputc(' ', f);
		put(f, json_object_get(p, "version"));
		fprintf(f, " %s\n", json_is_true(json_object_get(p, "official")) ?
		    "(official)" : "(unofficial_marketplace)");
		fprintf(f, "  question: ");
		put(f, json_object_get(p, "question"));
		fprintf(f, "\n  1 means: ");
		put(f, json_object_get(p, "one"));
		fprintf(f, "\n  0 means: ");
		put(f, json_object_get(p, "zero"));
		fprintf(f, "\n  protocol: %lld\n", num(p, "protocol"));
		json_array_foreach(json_object_get(p, "inputs"), j, in) {
			fprintf(f, "  input ");
			put(f, json_object_get(in, "name"));
			fprintf(f, ": ");
			put(f, json_object_get(in, "kind"));
			fprintf(f, ", at most %lld bytes\n", num(in, "max_bytes"));
		}
	}
}

static void
plan(FILE *f, const json_t *r)
{
	const json_t *a, *held = json_object_get(r, "held_inputs");
	size_t i;

	fprintf(f, "plan: ");
	put(f, json_object_get(r, "plan"));
	if (json_object_get(r, "status") != NULL) {
		/* hub mode: the pending shape, its fixed text */
		fprintf(f, "\npending: ticket ");
		put(f, json_object_get(r, "ticket"));
		fprintf(f, " (lock lockfile, instance ");
		put(f, json_object_get(r, "instance"));
		fprintf(f, ")\n%s\n", PROTO_PENDING_TEXT);
		return;
	}
	fprintf(f, "\nhandle: ");
	put(f, json_object_get(r, "handle"));
	fputc('\n', f);
	json_array_foreach(json_object_get(r, "answers"), i, a) {
		const json_t *res = json_object_get(a, "result");
		fprintf(f, "answer ");
		put(f, json_object_get(a, "plugin"));
		fputc(' ', f);
		put(f, json_object_get(a, "version"));
		if (json_is_integer(res))
			fprintf(f, ": %d\n", json_integer_value(res) == 1 ? 1 : 0);
		else
			fprintf(f, ": no answer (plugin_error)\n");
	}
	if (json_array_size(held) > 0) {
		fprintf(f, "held inputs:");
		json_array_foreach(held, i, a) {
			fprintf(f, "%s ", i ? "," : "");
			put(f, a);
		}
		fputc('\n', f);
	}
}

void
text_result(FILE *f, enum lf_method m, const json_t *result)
{
	switch (m) {
	case M_STATUS:
		status(f, result);
		break;
	case M_SOURCES:
		sources(f, result);
		break;
	case M_FILE_PLUGINS:
		plugins(f, result);
		break;
	case M_FILE_PLAN:
	case M_FILE_RUN:
		plan(f, result);
		break;
	case M_FILE_RELEASE:
		fprintf(f, "released\n");
		break;
	case M_CHANGE_REQUEST:
		fprintf(f, "queued for the human\n");
		break;
	default:
		break;
	}
}

void
text_failure(FILE *f, enum cl_outcome o, enum lf_err e)
{
	/* static texts only: the table's code and hint, or the client's */
	fprintf(f, "lockfile: %s: %s\n",
	    o == CL_REFUSED ? outcome_code(o, e) : outcome_words(o),
	    outcome_hint(o, e));
}
