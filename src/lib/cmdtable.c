/* The command table's main (see cmdtable.h). */
#include "config.h"
#include "lib/cmdtable.h"
#include "lib/exe.h"
#include "lib/log.h"

#include <stdio.h>
#include <string.h>

static void
help(const struct command *table, size_t n, const char *head)
{
	static const struct command own[] = {
		{ "version", NULL, NULL, 0, "any", "print the version" },
		{ "help", NULL, NULL, 0, "any", "list the commands" },
	};
	size_t i;

	printf("usage: lockfile COMMAND [ARGS...]   (lockfile COMMAND --help)\n");
	if (head != NULL)
		printf("%s\n", head);
	printf("\n");
	for (i = 0; i < n + 2; i++) {
		const struct command *c = i < n ? &table[i] : &own[i - n];
		printf("  %-16s %-8s %s\n", c->name, c->side, c->summary);
	}
}

int
cmdtable_main(const struct command *table, size_t n, const char *head,
    int argc, char **argv)
{
	const char *why = NULL;
	size_t i;

	if (argc < 2) {
		help(table, n, head);
		return 64;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		help(table, n, head);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("lockfile %s\n", LOCKFILE_VERSION);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct command *c = &table[i];

		if (strcmp(argv[1], c->name) != 0)
			continue;
		log_init(c->name);
		if (c->fn != NULL)
			return c->fn(argc - 1, argv + 1);
		exe_sibling_exec(c->exe, argv + (c->keep_name ? 1 : 2), &why);
		logit("%s: %s", c->exe, why);
		return 69;	/* EX_UNAVAILABLE */
	}
	logit("unknown command (see lockfile help)");
	return 64;
}
