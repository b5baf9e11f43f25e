/* check-reply: the tests' gate on the closed list. Any test can pipe a
 * console response through it:
 *   check-reply REQUEST_JSON < RESPONSE_LINE
 * prints "result", "error E_CODE" or "bad WHERE" and exits 0, 0 or 1. The
 * request is the one that was sent (its method, id and params are what the
 * response must answer). Uses the same table and checker as the client. */
#include "protocol/check.h"
#include "lib/jsonx.h"

#include <stdio.h>
#include <string.h>

int
main(int argc, char **argv)
{
	static char line[PROTO_MAX_LINE + 2];
	struct proto_expect exp;
	struct proto_reply rep;
	json_t *req;
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: check-reply REQUEST_JSON < RESPONSE\n");
		return 2;
	}
	req = jsonx_parse(argv[1], strlen(argv[1]), PROTO_MAX_LINE, 16);
	if (req == NULL || !json_is_string(json_object_get(req, "method"))) {
		fprintf(stderr, "check-reply: the request is not JSON-RPC\n");
		return 2;
	}
	exp.method = proto_method_by_name(json_string_value(
	    json_object_get(req, "method")));
	if (exp.method == M__COUNT) {
		/* an unknown method can only be refused */
		exp.method = M_STATUS;
	}
	exp.id = json_object_get(req, "id");
	if (exp.id == NULL)
		exp.id = json_null();
	exp.params = json_object_get(req, "params");
	n = fread(line, 1, sizeof(line) - 1, stdin);
	line[n] = '\0';
	if (n == 0 || n > PROTO_MAX_LINE || line[n - 1] != '\n') {
		printf("bad framing\n");
		return 1;
	}
	if (proto_check_reply(line, n, &exp, &rep) != 0) {
		printf("bad %s\n", rep.where);
		return 1;
	}
	if (rep.is_error)
		printf("error %s\n", proto_error(rep.err)->name);
	else
		printf("result\n");
	proto_reply_free(&rep);
	json_decref(req);
	return 0;
}
