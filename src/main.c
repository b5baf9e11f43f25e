/* lockfile: one binary, git-style subcommands. Console-side commands run in
 * the console account; agent-side commands only talk to the socket. */
#include "config.h"
#include "commands.h"
#include "lib/fd.h"
#include "lib/log.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *side;	/* who runs it */
	const char *summary;
} commands[] = {
	COMMAND_TABLE
	{ "version", cmd_version, "any", "print the version" },
	{ "help", cmd_help, "any", "list the commands" },
};

static int
cmd_help(int argc, char **argv)
{
	size_t i;

	printf("usage: lockfile COMMAND [ARGS...]   (lockfile COMMAND --help)\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].summary[0] != '\0')
			printf("  %-16s %-8s %s\n", commands[i].name,
			    commands[i].side, commands[i].summary);
	return 0;
}

static int
cmd_version(int argc, char **argv)
{
	printf("lockfile %s\n", LOCKFILE_VERSION);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rlimit nocore = { 1, 1 };
	size_t i;

	log_init("lockfile");
	sanitise_stdfds();
	/* No core dumps anywhere: a console core would hold secrets and file
	 * bytes. One byte, not zero: a file core needs at least a page, and a
	 * piped core_pattern ignores the limit but for 1, which the kernel
	 * takes as "never pipe" (docs/sandbox.md). The hard limit stays 1, so
	 * plugins get the same; 0 when a hard limit of 0 was inherited
	 * (doctor's kernel.core-pattern names what that leaves open). Set
	 * before anything is loaded. */
	if (setrlimit(RLIMIT_CORE, &nocore) != 0) {
		nocore.rlim_cur = nocore.rlim_max = 0;
		if (setrlimit(RLIMIT_CORE, &nocore) != 0)
			fatal_errno("setrlimit");
	}
	if (argc < 2) {
		cmd_help(0, NULL);
		return 64;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(0, NULL);
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version(0, NULL);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			log_init(commands[i].name);
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	logit("unknown command (see lockfile help)");
	return 64;
}
