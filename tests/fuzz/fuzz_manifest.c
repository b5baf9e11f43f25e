/* libFuzzer target for plugin manifest parsing (src/store/manifest.c),
 * which reads manifest.json of a plugin before anything else of it is
 * trusted. Beyond "no crash, no leak, no overread": a refusal leaves a
 * static reason; an accepted manifest has every field in its alphabet and
 * range (docs/plugins.md), is a tightening of itself, and written back as
 * JSON it parses to exactly the same struct (nothing read is lost or
 * invented). */
#include "store/manifest.h"
#include "protocol/shape.h"
#include "lib/crypto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_manifest: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
printable(const char *s)
{
	for (; *s != '\0'; s++)
		CHECK(*s >= 0x20 && *s < 0x7f);
}

/* The manifest as the documented JSON, from the parsed struct. */
static char *
write_back(const struct manifest *m)
{
	json_t *doc = json_object(), *ins = json_array(), *lim = json_object();
	char hex[SHA256_HEX_LEN + 1], *text;
	size_t i;

	for (i = 0; i < m->ninputs; i++) {
		json_t *in = json_object();
		json_object_set_new(in, "name", json_string(m->inputs[i].name));
		json_object_set_new(in, "kind",
		    json_string(input_kind_name(m->inputs[i].kind)));
		json_object_set_new(in, "max_bytes",
		    json_integer(m->inputs[i].max_bytes));
		json_array_append_new(ins, in);
	}
	json_object_set_new(lim, "cpu_s", json_integer(m->cpu_s));
	json_object_set_new(lim, "memory_bytes",
	    json_integer((json_int_t)m->memory_bytes));
	json_object_set_new(lim, "wall_s", json_integer(m->wall_s));
	hex_encode(m->binary_sha256, SHA256_LEN, hex);
	json_object_set_new(doc, "schema", json_integer(1));
	json_object_set_new(doc, "name", json_string(m->name));
	json_object_set_new(doc, "version", json_string(m->version));
	json_object_set_new(doc, "protocol", json_integer(m->protocol));
	json_object_set_new(doc, "question", json_string(m->question));
	json_object_set_new(doc, "one", json_string(m->one));
	json_object_set_new(doc, "zero", json_string(m->zero));
	json_object_set_new(doc, "inputs", ins);
	json_object_set_new(doc, "limits", lim);
	json_object_set_new(doc, "binary_sha256", json_string(hex));
	text = json_dumps(doc, JSON_COMPACT);
	CHECK(text != NULL);
	json_decref(doc);
	return text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct manifest m, again;
	const char *why = NULL;
	char *text;
	size_t i, j;

	if (manifest_parse((const char *)data, size, &m, &why) != 0) {
		CHECK(why != NULL && strlen(why) < 200);
		printable(why);
		return 0;
	}
	CHECK(why == NULL);
	CHECK(size <= MANIFEST_MAX_BYTES);
	CHECK(name_is_plugin(m.name) && version_is_valid(m.version));
	CHECK(m.protocol == 1 || m.protocol == 2);
	CHECK((m.protocol == 1) == (m.ninputs == 0));
	CHECK(text_is_manifest(m.question, PROTO_MAX_MANIFEST_TEXT) &&
	    text_is_manifest(m.one, PROTO_MAX_MANIFEST_TEXT) &&
	    text_is_manifest(m.zero, PROTO_MAX_MANIFEST_TEXT));
	printable(m.question);
	printable(m.one);
	printable(m.zero);
	CHECK(m.ninputs <= PROTO_MAX_INPUTS);
	for (i = 0; i < m.ninputs; i++) {
		CHECK(name_is_input(m.inputs[i].name));
		CHECK(m.inputs[i].kind == INPUT_TEXT ||
		    m.inputs[i].kind == INPUT_EMAIL);
		CHECK(m.inputs[i].max_bytes >= 1 &&
		    m.inputs[i].max_bytes <= LF_PLUGIN_VALUE_MAX);
		for (j = 0; j < i; j++)
			CHECK(strcmp(m.inputs[i].name, m.inputs[j].name) != 0);
	}
	CHECK(m.cpu_s >= 1 && m.cpu_s <= 600);
	CHECK(m.memory_bytes >= (1ULL << 20) && m.memory_bytes <= (16ULL << 30));
	CHECK(m.wall_s >= 1 && m.wall_s <= 3600);
	CHECK(manifest_is_tightening(&m, &m));

	text = write_back(&m);
	CHECK(manifest_parse(text, strlen(text), &again, &why) == 0);
	CHECK(memcmp(&m, &again, sizeof(m)) == 0);
	free(text);
	return 0;
}
