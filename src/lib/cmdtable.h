/* A git-style command table and the main() every lockfile executable runs
 * over its own (docs/hacking.md, "Executables"): `help`, `--help`, `-h`,
 * `version` and `--version` answered the same way everywhere, each
 * command run here or forwarded to the executable of its role beside this
 * one (lib/exe.h). */
#ifndef LOCKFILE_CMDTABLE_H
#define LOCKFILE_CMDTABLE_H

#include <stddef.h>

struct command {
	const char *name;
	int (*fn)(int, char **);	/* run here, or */
	const char *exe;		/* forwarded to this executable */
	int keep_name;			/* forwarded with the command's name */
	const char *side;		/* who runs it */
	const char *summary;
};

/* Dispatch argv[1] over the n commands of table (help and version come
 * last, listed after them); head is a line printed under the usage line of
 * the help, or NULL. Returns the exit status: the command's, 64 for usage,
 * 69 when a forward cannot exec. Call exe_start() first. */
int cmdtable_main(const struct command *table, size_t n, const char *head,
    int argc, char **argv);

#endif
