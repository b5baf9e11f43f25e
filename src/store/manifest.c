/* Manifest parsing and checks (see manifest.h). */
#include "store/manifest.h"
#include "protocol/shape.h"
#include "lib/jsonx.h"
#include "lib/text.h"

#include <string.h>

static int
get_text(const json_t *o, const char *key, char *out, size_t outlen,
    size_t max)
{
	const json_t *v = json_object_get(o, key);
	size_t n;

	if (!json_is_string(v))
		return -1;
	n = json_string_length(v);
	if (n >= outlen || n > max || strlen(json_string_value(v)) != n)
		return -1;
	memcpy(out, json_string_value(v), n + 1);
	return 0;
}

static int
get_uint(const json_t *o, const char *key, long long min, long long max,
    long long *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return -1;
	*out = json_integer_value(v);
	return 0;
}

const char *
input_kind_name(enum input_kind k)
{
	return k == INPUT_EMAIL ? "email" : "text";
}

int
manifest_parse(const char *data, size_t len, struct manifest *m,
    const char **why)
{
	static const char *const top[] = { "schema", "name", "version",
	    "protocol", "question", "one", "zero", "inputs", "limits",
	    "binary_sha256", NULL };
	static const char *const lim[] = { "cpu_s", "memory_bytes", "wall_s",
	    NULL };
	static const char *const inp[] = { "name", "kind", "max_bytes", NULL };
	json_t *doc = jsonx_parse(data, len, MANIFEST_MAX_BYTES, 4);
	json_t *inputs, *limits, *v;
	char hex[SHA256_HEX_LEN + 1];
	long long x;
	size_t i;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	*why = "manifest is not strict JSON";
	if (doc == NULL || !json_is_object(doc))
		goto out;
	*why = "manifest keys are not exactly the documented ones";
	if (jsonx_exact_keys(doc, top) != 0)
		goto out;
	*why = "manifest schema is not 1";
	if (get_uint(doc, "schema", 1, 1, &x) != 0)
		goto out;
	*why = "manifest name or version invalid";
	if (get_text(doc, "name", m->name, sizeof(m->name), 32) != 0 ||
	    !name_is_plugin(m->name) ||
	    get_text(doc, "version", m->version, sizeof(m->version), 20) != 0 ||
	    !version_is_valid(m->version))
		goto out;
	*why = "manifest protocol is not 1 or 2";
	if (get_uint(doc, "protocol", LF_PLUGIN_PROTOCOL_MIN,
	    LF_PLUGIN_PROTOCOL_MAX, &x) != 0)
		goto out;
	m->protocol = (int)x;
	*why = "manifest text is not printable ASCII of at most 200 bytes";
	if (get_text(doc, "question", m->question, sizeof(m->question),
	    PROTO_MAX_MANIFEST_TEXT) != 0 ||
	    get_text(doc, "one", m->one, sizeof(m->one),
	    PROTO_MAX_MANIFEST_TEXT) != 0 ||
	    get_text(doc, "zero", m->zero, sizeof(m->zero),
	    PROTO_MAX_MANIFEST_TEXT) != 0 ||
	    !text_is_manifest(m->question, PROTO_MAX_MANIFEST_TEXT) ||
	    !text_is_manifest(m->one, PROTO_MAX_MANIFEST_TEXT) ||
	    !text_is_manifest(m->zero, PROTO_MAX_MANIFEST_TEXT))
		goto out;
	*why = "manifest inputs invalid";
	inputs = json_object_get(doc, "inputs");
	if (!json_is_array(inputs) || json_array_size(inputs) > PROTO_MAX_INPUTS)
		goto out;
	json_array_foreach(inputs, i, v) {
		struct manifest_input *in = &m->inputs[i];
		char kind[8];
		size_t j;
		if (!json_is_object(v) || jsonx_exact_keys(v, inp) != 0 ||
		    get_text(v, "name", in->name, sizeof(in->name), 32) != 0 ||
		    !name_is_input(in->name) ||
		    get_text(v, "kind", kind, sizeof(kind), 7) != 0 ||
		    get_uint(v, "max_bytes", 1, LF_PLUGIN_VALUE_MAX, &x) != 0)
			goto out;
		if (strcmp(kind, "text") == 0)
			in->kind = INPUT_TEXT;
		else if (strcmp(kind, "email") == 0)
			in->kind = INPUT_EMAIL;
		else
			goto out;
		in->max_bytes = (unsigned)x;
		for (j = 0; j < i; j++)
			if (strcmp(m->inputs[j].name, in->name) == 0)
				goto out;
		m->ninputs++;
	}
	if ((m->protocol == LF_PLUGIN_PROTOCOL_1) != (m->ninputs == 0))
		goto out;
	*why = "manifest limits invalid";
	limits = json_object_get(doc, "limits");
	if (!json_is_object(limits) || jsonx_exact_keys(limits, lim) != 0)
		goto out;
	if (get_uint(limits, "cpu_s", 1, LF_PLUGIN_CPU_S_MAX, &x) != 0)
		goto out;
	m->cpu_s = (unsigned)x;
	if (get_uint(limits, "memory_bytes", LF_PLUGIN_MEMORY_MIN,
	    LF_PLUGIN_MEMORY_MAX, &x) != 0)
		goto out;
	m->memory_bytes = (unsigned long long)x;
	if (get_uint(limits, "wall_s", 1, LF_PLUGIN_WALL_S_MAX, &x) != 0)
		goto out;
	m->wall_s = (unsigned)x;
	*why = "manifest binary_sha256 is not 64 lowercase hex digits";
	if (get_text(doc, "binary_sha256", hex, sizeof(hex), 64) != 0 ||
	    hex_decode(hex, m->binary_sha256, SHA256_LEN) != 0)
		goto out;
	*why = NULL;
	ret = 0;
out:
	json_decref(doc);
	return ret;
}

static int
email_ok(const uint8_t *v, size_t len)
{
	size_t i, at = len;

	for (i = 0; i < len; i++) {
		if (v[i] <= 0x20 || v[i] >= 0x7f || v[i] == '"' || v[i] == '\\' ||
		    v[i] == '<' || v[i] == '>' || v[i] == '(' || v[i] == ')' ||
		    v[i] == ',' || v[i] == ';' || v[i] == ':' || v[i] == '[' ||
		    v[i] == ']')
			return 0;
		if (v[i] == '@') {
			if (at != len)
				return 0;
			at = i;
		}
	}
	/* local@domain, both non-empty, a dot inside the domain */
	if (at == len || at == 0 || at + 1 >= len)
		return 0;
	return memchr(v + at + 1, '.', len - at - 1) != NULL &&
	    v[len - 1] != '.' && v[at + 1] != '.';
}

int
input_value_fits(const struct manifest_input *in, const uint8_t *v,
    size_t len)
{
	if (len == 0 || len > in->max_bytes)
		return 0;
	return in->kind == INPUT_EMAIL ? email_ok(v, len) :
	    utf8_valid(v, len, UTF8_NO_CONTROLS);
}

int
manifest_is_tightening(const struct manifest *a, const struct manifest *b)
{
	size_t i, j;

	if (strcmp(a->name, b->name) != 0 || a->protocol != b->protocol ||
	    strcmp(a->question, b->question) != 0 ||
	    strcmp(a->one, b->one) != 0 || strcmp(a->zero, b->zero) != 0)
		return 0;
	if (b->cpu_s > a->cpu_s || b->memory_bytes > a->memory_bytes ||
	    b->wall_s > a->wall_s)
		return 0;
	for (i = 0; i < b->ninputs; i++) {
		for (j = 0; j < a->ninputs; j++)
			if (strcmp(a->inputs[j].name, b->inputs[i].name) == 0)
				break;
		if (j == a->ninputs || a->inputs[j].kind != b->inputs[i].kind ||
		    b->inputs[i].max_bytes > a->inputs[j].max_bytes)
			return 0;
	}
	return 1;
}
