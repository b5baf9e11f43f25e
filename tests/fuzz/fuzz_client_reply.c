/* libFuzzer target for what the client runs on console bytes: the check of
 * one answer line against the request that was sent (proto_check_reply,
 * the client's whitelist), then everything the client prints from an
 * accepted answer -- the CLI's text, its --json line and the MCP tool
 * result. Beyond "no crash, no leak, no overread" (ASan/UBSan) it checks
 * on every input that whatever the check lets through comes out as
 * printable ASCII lines only: no control byte, escape sequence or
 * non-ASCII byte from a console can reach the agent's terminal or host.
 * The first input byte picks the request the answer is checked against. */
#include "client/client.h"
#include "client/mcp_tools.h"
#include "client/text.h"
#include "lib/jsonx.h"
#include "protocol/check.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_client_reply: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	enum lf_method m;
	const char *params;	/* what was sent, or NULL */
} sent[] = {
	{ M_STATUS, NULL },
	{ M_STATUS, "{\"profile\":\"invoices\"}" },
	{ M_SOURCES, NULL },
	{ M_FILE_PLUGINS, NULL },
	{ M_FILE_PLAN, "{\"profile\":\"invoices\",\"key\":\"2024/a.pdf\","
	    "\"plugins\":[{\"name\":\"is-pdf\"},{\"name\":\"contains\","
	    "\"inputs\":{\"needle\":\"${email}\"}}]}" },
	{ M_FILE_PLAN, "{\"handle\":\"f_0123456789abcdef0123456789abcdef\","
	    "\"plugins\":[{\"name\":\"is-pdf\",\"version\":\"1.0.0\"}]}" },
	{ M_FILE_RUN, "{\"plan\":\"pl_0123456789abcdef0123456789abcdef\"}" },
	{ M_FILE_RELEASE, "{\"handle\":\"f_0123456789abcdef0123456789abcdef\"}" },
	{ M_CHANGE_REQUEST, "{\"text\":\"please\"}" },
};

static void
printable_lines(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(s[i] == '\n' || (s[i] >= 0x20 && s[i] < 0x7f));
}

static void
check_printed(enum lf_method m, const json_t *result)
{
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *r;

	CHECK(f != NULL);
	text_result(f, m, result);
	CHECK(fclose(f) == 0);
	printable_lines(buf, len);
	free(buf);

	line = jsonx_dump_line(result);
	printable_lines(line, strlen(line));
	CHECK(strchr(line, '\n') == NULL);
	free(line);

	r = mcp_tool_result(CL_RESULT, E_NONE, result);
	line = jsonx_dump_line(r);
	printable_lines(line, strlen(line));
	CHECK(strchr(line, '\n') == NULL);
	free(line);
	json_decref(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_expect exp;
	struct proto_reply rep;
	json_t *id = json_integer(7), *params = NULL;
	size_t k;

	if (size < 1)
		goto out;
	k = data[0] % (sizeof(sent) / sizeof(sent[0]));
	if (sent[k].params != NULL) {
		params = jsonx_parse(sent[k].params, strlen(sent[k].params),
		    PROTO_MAX_LINE, 8);
		CHECK(params != NULL);
	}
	exp.method = sent[k].m;
	exp.id = id;
	exp.params = params;
	if (proto_check_reply((const char *)data + 1, size - 1, &exp,
	    &rep) == 0) {
		if (rep.is_error) {
			CHECK(proto_method_may_fail(exp.method, rep.err));
			CHECK(rep.result == NULL);
		} else {
			CHECK(rep.result != NULL);
			/* what the console may send, it could have built */
			CHECK(proto_check_result(exp.method, rep.result, rep.where,
			    sizeof(rep.where)) == 0);
			check_printed(exp.method, rep.result);
		}
		proto_reply_free(&rep);
	}
out:
	json_decref(params);
	json_decref(id);
	return 0;
}
