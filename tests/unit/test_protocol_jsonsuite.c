/* JSONTestSuite (github.com/nst/JSONTestSuite, test_parsing/) against the
 * request parser, as the parser worker runs it:
 *
 *   test_protocol_jsonsuite DIR
 *
 * Every case is parsed as a whole request line; every n_ case must be
 * refused with E_BAD_REQUEST, and no case may crash, hang or leave a
 * struct the console would refuse (request_validate). A case of the form
 * [X] is also parsed with X as the request's id, where an accepted id is
 * kept: an n_ value there must still be refused (a lenient string or
 * number parser would let it through). Parsing runs on exact-size heap
 * copies (ASan sees any overread). TAP output, one line per case. */
#include "protocol/request.h"
#include "protocol/table.h"
#include "lib/fd.h"
#include "tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CASE (1 << 20)

static struct request req;
static const uint8_t NONCE[REQUEST_NONCE_LEN] = "lockfile-nonce!";

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
parse_copy(const char *data, size_t n)
{
	char *copy = malloc(n == 0 ? 1 : n);

	if (copy == NULL)
		abort();
	memcpy(copy, data, n);
	request_parse(copy, n, NONCE, &req);
	free(copy);
}

/* The value inside a case "[X]" (whitespace around X allowed), or NULL. */
static const char *
inner_value(const char *data, size_t n, size_t *outlen)
{
	size_t a = 0, b = n;

	while (a < n && (data[a] == ' ' || data[a] == '\n' || data[a] == '\t' ||
	    data[a] == '\r'))
		a++;
	while (b > a && (data[b - 1] == ' ' || data[b - 1] == '\n' ||
	    data[b - 1] == '\t' || data[b - 1] == '\r'))
		b--;
	if (b - a < 3 || data[a] != '[' || data[b - 1] != ']')
		return NULL;
	a++;
	b--;
	/* only a lone string or number: no nested structure, no list */
	if (memchr(data + a, ',', b - a) || memchr(data + a, '[', b - a) ||
	    memchr(data + a, '{', b - a))
		return NULL;
	*outlen = b - a;
	return data + a;
}

/* Parse {"jsonrpc":"2.0","id":X,"method":"status"}; 1 when accepted. */
static int
as_id(const char *x, size_t xlen)
{
	static const char pre[] = "{\"jsonrpc\":\"2.0\",\"id\":";
	static const char post[] = ",\"method\":\"status\"}";
	size_t n = sizeof(pre) - 1 + xlen + sizeof(post) - 1;
	char *line = malloc(n);

	if (line == NULL)
		abort();
	memcpy(line, pre, sizeof(pre) - 1);
	memcpy(line + sizeof(pre) - 1, x, xlen);
	memcpy(line + sizeof(pre) - 1 + xlen, post, sizeof(post) - 1);
	parse_copy(line, n);
	free(line);
	return req.error == E_NONE;
}

int
main(int argc, char **argv)
{
	static char data[MAX_CASE];
	char **names = NULL;
	size_t nnames = 0, i, cap = 0;
	DIR *d;
	struct dirent *de;

	if (argc != 2) {
		fprintf(stderr, "usage: %s JSONTestSuite/test_parsing\n", argv[0]);
		return 2;
	}
	d = opendir(argv[1]);
	if (d == NULL)
		tap_fail_setup("cannot open %s", argv[1]);
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".json") != 0 ||
		    strchr("yni", de->d_name[0]) == NULL || de->d_name[1] != '_')
			continue;
		if (nnames == cap) {
			cap = cap ? cap * 2 : 512;
			names = realloc(names, cap * sizeof(*names));
			if (names == NULL)
				abort();
		}
		names[nnames++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, nnames, sizeof(*names), cmp);
	if (nnames < 300)
		tap_fail_setup("only %zu cases in %s (want the whole suite)",
		    nnames, argv[1]);
	tap_plan((int)nnames);
	for (i = 0; i < nnames; i++) {
		char path[4096];
		const char *x;
		size_t xlen;
		ssize_t n;
		int fd, ok = 1;
		const char *why = "";

		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read_full(fd, data, sizeof(data)) : -1;
		if (fd >= 0)
			close(fd);
		if (n < 0 || (size_t)n >= sizeof(data)) {
			tap_ok(0, "%s: cannot read", names[i]);
			continue;
		}
		parse_copy(data, (size_t)n);
		if (request_validate(&req, NONCE) != 0) {
			ok = 0;
			why = ": the parse left an invalid struct";
		} else if (req.error != E_BAD_REQUEST) {
			/* no case of the suite is a JSON-RPC request */
			ok = 0;
			why = ": accepted as a request";
		}
		x = inner_value(data, (size_t)n, &xlen);
		if (ok && x != NULL) {
			int accepted = as_id(x, xlen);
			if (request_validate(&req, NONCE) != 0) {
				ok = 0;
				why = ": as an id, the parse left an invalid struct";
			} else if (names[i][0] == 'n' && accepted) {
				ok = 0;
				why = ": accepted as an id";
			}
		}
		tap_ok(ok, "%s%s", names[i], why);
		free(names[i]);
	}
	free(names);
	return tap_done();
}
