/* libFuzzer target for the request parser (src/protocol/request.c), the code
 * the sandboxed parser worker runs on agent bytes, and for key cleaning
 * (src/protocol/key.c), which the console runs on the key it gets back.
 * Beyond "no crash, no leak, no overread" (ASan/UBSan) it checks what the
 * console relies on, on every input:
 *  - the parse always leaves a struct request_validate() accepts;
 *  - a literal-input refusal is a file.plan, and keeps no input;
 *  - the error line built on the id that was read passes the client's
 *    checker for that id;
 *  - a cleaned key (the request's, and the raw input as a key) is relative,
 *    has no empty, "." or ".." component and no control byte or backslash,
 *    is never longer than what was typed, and stays inside a prefix. */
#include "protocol/check.h"
#include "protocol/key.h"
#include "protocol/request.h"
#include "protocol/response.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static const uint8_t NONCE[REQUEST_NONCE_LEN] = "lockfile-nonce!";

/* abort(), not fatal(): libFuzzer then saves the input that broke it. */
#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_request: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_clean_key(const char *raw, size_t len)
{
	char out[PROTO_MAX_KEY + 1];
	char *copy = malloc(len == 0 ? 1 : len);
	enum key_status s;
	size_t i, n, start;

	CHECK(copy != NULL);
	memcpy(copy, raw, len);
	s = key_clean(copy, len, out, sizeof(out));
	if (s == KEY_OK) {
		n = strlen(out);
		CHECK(n > 0 && n <= len && out[0] != '/' && out[n - 1] != '/');
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)out[i];
			CHECK(c >= 0x20 && c != 0x7f && c != '\\');
		}
		for (start = 0; start <= n; ) {
			size_t e = start;
			while (e < n && out[e] != '/')
				e++;
			CHECK(e > start);
			CHECK(!(e - start == 1 && out[start] == '.'));
			CHECK(!(e - start == 2 && out[start] == '.' &&
			    out[start + 1] == '.'));
			start = e + 1;
		}
	}
	s = key_clean_in_prefix(copy, len, "p/", out, sizeof(out));
	if (s == KEY_OK)
		CHECK(strncmp(out, "p/", 2) == 0 && out[2] != '\0');
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct request req;
	struct proto_expect exp;
	struct proto_reply rep;
	enum lf_method m;
	json_t *id;
	char *copy, *line;

	if (size > PROTO_MAX_LINE + 1)
		return 0;
	/* An exact-size copy, so any read past the end is caught. */
	copy = malloc(size == 0 ? 1 : size);
	CHECK(copy != NULL);
	memcpy(copy, data, size);
	request_parse(copy, size, NONCE, &req);
	free(copy);

	CHECK(request_validate(&req, NONCE) == 0);
	if (req.error != E_BAD_REQUEST)
		CHECK(req.method < M__COUNT);
	if (req.error == E_LITERAL_INPUT) {
		CHECK(req.method == M_FILE_PLAN);
	}

	/* The console answers a refusal on the id it read; the client must
	 * accept that line as the answer to a request with that id. */
	m = req.method < M__COUNT ? (enum lf_method)req.method : M__COUNT;
	id = request_id_json(&req);
	line = proto_error_line(m, id, E_BAD_REQUEST);
	memset(&exp, 0, sizeof(exp));
	exp.method = m == M__COUNT ? M_STATUS : m;
	exp.id = id;
	CHECK(proto_check_reply(line, strlen(line), &exp, &rep) == 0);
	CHECK(rep.is_error && rep.err == E_BAD_REQUEST);
	proto_reply_free(&rep);
	free(line);
	json_decref(id);

	if (req.has_key)
		check_clean_key(req.key, req.key_len);
	if (size <= PROTO_MAX_KEY + 8)
		check_clean_key((const char *)data, size);
	return 0;
}
