/* Test helper: parse each named file with toml_parse and print one line
 * for it, for tests/toml/test_differential.py to compare with tomllib:
 *
 *   OK <the document as JSON, ASCII only>
 *   UNSUPPORTED <line> <message>
 *   INVALID <line> <message>
 *   UNREADABLE
 */
#include "lib/fd.h"
#include "lib/toml.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#define MAX_FILE (TOML_MAX_INPUT + 1)	/* one more, to see the limit hit */

int
main(int argc, char **argv)
{
	struct toml_error e;
	char *buf = malloc(MAX_FILE), *s;
	ssize_t n;
	json_t *v;
	int i, fd;

	if (buf == NULL)
		return 1;
	for (i = 1; i < argc; i++) {
		if ((fd = open(argv[i], O_RDONLY | O_CLOEXEC)) < 0 ||
		    (n = read_full(fd, buf, MAX_FILE)) < 0) {
			printf("UNREADABLE\n");
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		if ((v = toml_parse(buf, (size_t)n, &e)) != NULL) {
			s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS |
			    JSON_ENSURE_ASCII);
			printf("OK %s\n", s != NULL ? s : "null");
			free(s);
			json_decref(v);
		} else
			printf("%s %d %s\n", e.unsupported ? "UNSUPPORTED" :
			    "INVALID", e.line, e.msg);
	}
	free(buf);
	return fflush(stdout) == 0 ? 0 : 1;
}
