/* libFuzzer target for src/lib/toml.c. Beyond "no crash, no leak, no
 * overread" (ASan/UBSan), it checks what the API promises on every input:
 * a result is an object within the depth and key limits with no error
 * filled; a refusal has a message and a line inside the document; the
 * line map of toml_parse_lines knows every key of the result, each on a
 * line inside the document. */
#include "lib/toml.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* abort(), not fatal(): libFuzzer then saves the input that broke it. */
#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_toml: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every key of every table below v is on a line of the document. */
static void
check_lines(const json_t *lines, json_t *v, int nlines)
{
	const char *k;
	json_t *e;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, e) {
			int l = toml_key_line(lines, v, k);
			/* a key holding a NUL is not found by its C prefix */
			CHECK(l == 0 || (l >= 1 && l <= nlines));
			if (strlen(k) == json_object_iter_key_len(
			    json_object_key_to_iter(k)))
				CHECK(l >= 1);
			check_lines(lines, e, nlines);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			check_lines(lines, e, nlines);
	}
}

/* Deepest container below v (v at depth d), and members counted in *keys. */
static int
max_depth(json_t *v, int d, size_t *keys)
{
	const char *k;
	json_t *e;
	size_t i;
	int m = d, x;

	if (json_is_object(v)) {
		*keys += json_object_size(v);
		json_object_foreach(v, k, e) {
			if ((json_is_object(e) || json_is_array(e)) &&
			    (x = max_depth(e, d + 1, keys)) > m)
				m = x;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e) {
			if ((json_is_object(e) || json_is_array(e)) &&
			    (x = max_depth(e, d + 1, keys)) > m)
				m = x;
		}
	}
	return m;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_error err;
	json_t *v, *where = NULL;
	size_t i, keys = 0;
	int lines = 1;

	/* An exact-size copy, so any read past the end is caught. */
	char *copy = malloc(size == 0 ? 1 : size);

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	v = toml_parse_lines(copy, size, &err, &where);
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (v != NULL) {
		CHECK(json_is_object(v));
		CHECK(err.msg == NULL && err.line == 0 && err.unsupported == 0);
		CHECK(max_depth(v, 0, &keys) <= TOML_MAX_DEPTH);
		CHECK(keys <= TOML_MAX_KEYS);
		CHECK(where != NULL);
		check_lines(where, v, lines);
		json_decref(where);
		json_decref(v);
	} else {
		CHECK(where == NULL);
		CHECK(err.msg != NULL);
		CHECK(err.line >= 1 && err.line <= lines);
		CHECK(err.unsupported == 0 || err.unsupported == 1);
	}
	free(copy);
	return 0;
}
