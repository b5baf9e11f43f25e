/* libFuzzer target for the MCP server's input: one fuzz input is a session
 * of newline-separated messages from the host, fed to mcp_message() (the
 * console socket does not exist, so a tool call never gets further than
 * its start). Beyond "no crash, no leak, no overread" it checks that
 * everything the server wrote to stdout is one JSON-RPC 2.0 object per
 * line, in printable ASCII: no input can make the server break its
 * framing or echo raw bytes to the host. */
#include "client/client.h"
#include "client/mcp.h"
#include "lib/jsonx.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_mcp: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct client_cfg cfg;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[] = "/tmp/fuzz-mcp-out.XXXXXX";
	const char *why;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(unlink(path) == 0);
	CHECK(dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
	close(fd);
	CHECK(client_cfg_init(&cfg, "/nonexistent/lockfile-fuzz.sock", "5",
	    &why) == 0);
	return 0;
}

static void
check_output(void)
{
	off_t end = lseek(STDOUT_FILENO, 0, SEEK_END);
	char *buf, *p, *nl;

	CHECK(end >= 0);
	buf = malloc((size_t)end + 1);
	CHECK(buf != NULL);
	CHECK(pread(STDOUT_FILENO, buf, (size_t)end, 0) == end);
	buf[end] = '\0';
	CHECK(end == 0 || buf[end - 1] == '\n');
	for (p = buf; p < buf + end; p = nl + 1) {
		json_t *msg;
		size_t n;
		nl = memchr(p, '\n', (size_t)(buf + end - p));
		CHECK(nl != NULL);
		n = (size_t)(nl - p);
		for (size_t i = 0; i < n; i++)
			CHECK(p[i] >= 0x20 && p[i] < 0x7f);
		msg = jsonx_parse(p, n, 1 << 24, 64);
		CHECK(json_is_object(msg));
		CHECK(json_is_string(json_object_get(msg, "jsonrpc")));
		CHECK(strcmp(json_string_value(json_object_get(msg, "jsonrpc")),
		    "2.0") == 0);
		/* exactly one of result and error, or a notification */
		CHECK((json_object_get(msg, "result") != NULL) +
		    (json_object_get(msg, "error") != NULL) +
		    (json_object_get(msg, "method") != NULL) == 1);
		json_decref(msg);
	}
	free(buf);
	CHECK(ftruncate(STDOUT_FILENO, 0) == 0);
	CHECK(lseek(STDOUT_FILENO, 0, SEEK_SET) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp *s = mcp_new(&cfg);
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 0)
			mcp_message(s, p, n);
		p += n + 1;
	}
	mcp_free(s);
	check_output();
	return 0;
}
