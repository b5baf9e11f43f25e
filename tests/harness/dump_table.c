/* dump-table: the closed list's error rows as one JSON document, read from
 * the compiled table (src/protocol/table.c) itself, so the tests' whitelist
 * (tests/client/whitelist.py) checks what the binaries carry instead of
 * parsing C source:
 *   dump-table   ->  {"errors": [{"name": ..., "code": ..., "hint": ...}],
 *                     "methods": [{"name": ..., "errors": [NAME...]}]}
 * Exits 1 if the table cannot be written out (a NULL name or hint). */
#include "protocol/table.h"
#include "lib/jsonx.h"

#include <stdio.h>
#include <stdlib.h>

int
main(void)
{
	json_t *doc = json_object(), *errs = json_array(), *meths = json_array();
	char *line;
	int e, m;
	size_t i;

	for (e = E_NONE + 1; e < E__COUNT; e++) {
		const struct proto_error *pe = proto_error((enum lf_err)e);
		json_t *row = json_object();
		if (pe->name == NULL || pe->hint == NULL) {
			fprintf(stderr, "dump-table: error row %d is empty\n", e);
			return 1;
		}
		json_object_set_new(row, "name", json_string(pe->name));
		json_object_set_new(row, "code", json_integer(pe->code));
		json_object_set_new(row, "hint", json_string(pe->hint));
		json_array_append_new(errs, row);
	}
	for (m = 0; m < M__COUNT; m++) {
		const struct proto_method *pm = proto_method((enum lf_method)m);
		json_t *row = json_object(), *may = json_array();
		for (i = 0; i < pm->nerrors; i++)
			json_array_append_new(may, json_string(
			    proto_error(pm->errors[i])->name));
		json_object_set_new(row, "name", json_string(pm->name));
		json_object_set_new(row, "errors", may);
		json_array_append_new(meths, row);
	}
	json_object_set_new(doc, "errors", errs);
	json_object_set_new(doc, "methods", meths);
	if ((line = jsonx_dump_line(doc)) == NULL) {
		fprintf(stderr, "dump-table: cannot encode the table\n");
		return 1;
	}
	printf("%s\n", line);
	free(line);
	json_decref(doc);
	return fflush(stdout) == 0 ? 0 : 1;
}
