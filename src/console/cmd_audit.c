/* `lockfile audit`: the audit log printed, or the answer ledger
 * (audit_ledger.c). Apart from audit.c, which writes the log, so that
 * neither of audit.c and audit_ledger.c calls into the other (as
 * cmd_doctor.c and cmd_policy.c are apart). */
#include "console/cmd.h"
#include "console/audit.h"
#include "term/home.h"
#include "lib/escape.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "ledger", no_argument, NULL, 'L' },
		{ "key", required_argument, NULL, 'k' },
		{ "uid", required_argument, NULL, 'u' },
		{ "repair", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char home[4096], path[4200], line[1 << 16];
	const char *homearg = NULL, *key = NULL, *uid = NULL;
	int c, json_out = 0, ledger = 0, repair = 0;
	FILE *f;
	int fd;
	struct stat st;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			homearg = optarg;
			break;
		case 'j':
			json_out = 1;
			break;
		case 'L':
			ledger = 1;
			break;
		case 'k':
			key = optarg;
			break;
		case 'u':
			uid = optarg;
			break;
		case 'r':
			repair = 1;
			break;
		case 'h':
			printf("usage: lockfile audit [--home DIR] [--json]\n"
			    "       lockfile audit --ledger [--home DIR] [--json] "
			    "[--key K] [--uid U]\n"
			    "       lockfile audit --ledger --repair [--home DIR]\n"
			    "Prints the console's audit log, or its answer ledger "
			    "(console account only).\n");
			return 0;
		default:
			return 64;
		}
	}
	if (optind != argc || (!ledger && (key || uid || repair)) ||
	    (repair && (key || uid || json_out))) {
		logit("usage: lockfile audit [--home DIR] [--json] [--ledger [--key "
		    "K] [--uid U] | --ledger --repair]");
		return 64;
	}
	if (home_resolve(homearg, home, sizeof(home)) != 0)
		return 70;
	if (ledger)
		return audit_ledger(home, json_out, key, uid, repair);
	if (str_fmt(path, sizeof(path), "%s/%s", home, LF_HOME_AUDIT) !=
	    STR_OK) {
		logit("the home path is too long");
		return 70;
	}
	fd = open(path, OPEN_RO_SAFE);
	if (fd < 0) {
		logit_errno("audit log");
		return errno == ENOENT ? 0 : 70;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != getuid()) {
		logit("the audit log belongs to another account");
		close(fd);
		return 77;
	}
	f = fdopen(fd, "r");
	if (f == NULL)
		fatal_errno("fdopen");
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t n = strlen(line);
		json_t *rec;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (json_out) {
			char safe[sizeof(line) * 4];
			/* JSON text is ASCII-escaped by jansson on write; escape
			 * again in case the file was edited. */
			escape_text(line, n, safe, sizeof(safe));
			printf("%s\n", safe);
			continue;
		}
		rec = jsonx_parse(line, n, sizeof(line), 8);
		if (rec == NULL || !json_is_object(rec)) {
			printf("(unreadable record)\n");
			json_decref(rec);
			continue;
		}
		audit_print_record(rec);
		json_decref(rec);
	}
	fclose(f);
	return 0;
}
