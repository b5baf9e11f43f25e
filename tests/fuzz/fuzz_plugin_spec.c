/* libFuzzer target for the CLI's plugin spec (src/client/params.c,
 * params_plugin_spec: NAME[@VERSION][:INPUT=VALUE[,INPUT=VALUE...]], from
 * the agent's command line). The input is split at NUL bytes into specs,
 * as argv would give them, appended to one plan. Beyond "no crash, no
 * leak, no overread": a refusal leaves a static printable reason and the
 * plan unchanged; an accepted spec is {name, version?, inputs?} with every
 * part in its alphabet and length; the MCP side's parser of the same list
 * (params_plugins_json) gives back exactly the same plugins; and the
 * request the client would send is one the console's parser
 * (request_parse) takes as written or refuses only as E_LITERAL_INPUT, never
 * as a bad request, with the same names, versions and bindings. */
#include "client/params.h"
#include "lib/jsonx.h"
#include "protocol/request.h"
#include "protocol/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_plugin_spec: check failed: %s\n", #cond); \
	abort(); } } while (0)

#define MAX_SPECS (PROTO_MAX_PLUGINS + 2)

/* What the console would send with the line (parser_worker.c). */
static const uint8_t NONCE[REQUEST_NONCE_LEN] = "lockfile-nonce!";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
printable(const char *s)
{
	CHECK(s != NULL && *s != '\0' && strlen(s) < 200);
	for (; *s != '\0'; s++)
		CHECK(*s >= 0x20 && *s < 0x7f);
}

static void
check_plugin(const json_t *p)
{
	const json_t *name = json_object_get(p, "name");
	const json_t *ver = json_object_get(p, "version");
	const json_t *ins = json_object_get(p, "inputs");
	const char *k;
	json_t *v;

	CHECK(json_is_object(p));
	CHECK(json_object_size(p) == 1 + (ver != NULL) + (ins != NULL));
	CHECK(json_is_string(name) && name_is_plugin(json_string_value(name)));
	CHECK(ver == NULL || (json_is_string(ver) &&
	    version_is_valid(json_string_value(ver))));
	if (ins == NULL)
		return;
	CHECK(json_is_object(ins) && json_object_size(ins) >= 1 &&
	    json_object_size(ins) <= PROTO_MAX_INPUTS);
	json_object_foreach((json_t *)ins, k, v) {
		size_t n = json_string_length(v);
		CHECK(name_is_input(k));
		CHECK(json_is_string(v) && n >= 1 && n <= PARAMS_MAX_VALUE &&
		    strlen(json_string_value(v)) == n);
	}
}

/* The console's view of the request the client would send. */
static void
check_console_parse(json_t *plugins)
{
	json_t *params, *doc;
	const char *why = NULL;
	static struct request req;
	char *line;
	size_t i, j;

	params = params_plan("invoices", "2024/a.pdf", NULL,
	    json_incref(plugins), &why);
	CHECK(params != NULL);
	doc = json_object();
	json_object_set_new(doc, "jsonrpc", json_string("2.0"));
	json_object_set_new(doc, "id", json_integer(1));
	json_object_set_new(doc, "method", json_string("file.plan"));
	json_object_set_new(doc, "params", params);
	line = jsonx_dump_line(doc);
	json_decref(doc);
	if (strlen(line) + 1 > PROTO_MAX_LINE) {
		free(line);	/* the client refuses to send it */
		return;
	}
	request_parse(line, strlen(line), NONCE, &req);
	free(line);
	CHECK(req.error == E_NONE || req.error == E_LITERAL_INPUT);
	if (req.error != E_NONE)
		return;
	CHECK(request_validate(&req, NONCE) == 0);
	CHECK(req.method == M_FILE_PLAN &&
	    req.nplugins == json_array_size(plugins));
	for (i = 0; i < req.nplugins; i++) {
		const struct req_plugin *rp = &req.plugins[i];
		const json_t *p = json_array_get(plugins, i);
		const json_t *ver = json_object_get(p, "version");
		const json_t *ins = json_object_get(p, "inputs");
		CHECK(strcmp(rp->name, json_string_value(json_object_get(p,
		    "name"))) == 0);
		CHECK(strcmp(rp->version, ver ? json_string_value(ver) : "") == 0);
		CHECK(rp->ninputs == json_object_size(ins));
		for (j = 0; j < rp->ninputs; j++) {
			const json_t *v = json_object_get(ins,
			    rp->inputs[j].name);
			char want[40];
			CHECK(v != NULL);
			CHECK(snprintf(want, sizeof(want), "${%s}",
			    rp->inputs[j].placeholder) < (int)sizeof(want));
			CHECK(strcmp(json_string_value(v), want) == 0);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *plugins = json_array(), *again;
	const uint8_t *s = data, *end = data + size;
	const char *why;
	char *spec;
	int nspecs = 0;

	while (s <= end && nspecs++ < MAX_SPECS) {
		const uint8_t *nul = memchr(s, '\0', (size_t)(end - s));
		size_t n = (size_t)((nul ? nul : end) - s), before;
		if ((spec = malloc(n + 1)) == NULL)
			abort();
		memcpy(spec, s, n);
		spec[n] = '\0';
		before = json_array_size(plugins);
		why = NULL;
		if (params_plugin_spec(plugins, spec, &why) == 0) {
			CHECK(json_array_size(plugins) == before + 1);
			check_plugin(json_array_get(plugins, before));
		} else {
			printable(why);
			CHECK(json_array_size(plugins) == before);
		}
		free(spec);
		if (nul == NULL)
			break;
		s = nul + 1;
	}
	CHECK(json_array_size(plugins) <= PROTO_MAX_PLUGINS);
	if (json_array_size(plugins) > 0) {
		why = NULL;
		again = params_plugins_json(plugins, &why);
		CHECK(again != NULL && json_equal(again, plugins));
		json_decref(again);
		check_console_parse(plugins);
	}
	json_decref(plugins);
	return 0;
}
