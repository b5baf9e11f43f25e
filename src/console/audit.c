/* The audit log and `lockfile audit` (see audit.h). */
#include "console/audit.h"
#include "term/home.h"
#include "lib/escape.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/paths.h"
#include "lib/render.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int
audit_open(struct audit *a, const char *home, const char **why)
{
	char dir[sizeof(a->path) - 16];
	struct stat st;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	if (str_fmt(dir, sizeof(dir), "%s/%s", home, LF_HOME_STATE_DIR) !=
	    STR_OK || str_fmt(a->path, sizeof(a->path), "%s/%s", home,
	    LF_HOME_AUDIT) != STR_OK) {
		*why = "the home path is too long";
		return -1;
	}
	if (mkdir_p(dir, 0700) != 0) {
		*why = "cannot create the state directory";
		return -1;
	}
	a->fd = open(a->path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (a->fd < 0 || fstat(a->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid()) {
		*why = "cannot open the audit log";
		return -1;
	}
	if ((st.st_mode & 0077) != 0 && fchmod(a->fd, 0600) != 0) {
		*why = "cannot make the audit log 0600";
		return -1;
	}
	return 0;
}

void
audit_close(struct audit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}

int
audit_write(struct audit *a, json_t *rec)
{
	char ts[32];
	struct timespec now;
	struct tm tm;
	char *line;
	size_t n;
	int ret = -1;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(rec, "time", json_string(ts));
	line = jsonx_dump_line(rec);
	n = strlen(line);
	line[n] = '\n';	/* replaces the NUL; written with its length */
	if (a->fd >= 0 && write_full(a->fd, line, n + 1) == 0 &&
	    fsync(a->fd) == 0)
		ret = 0;
	else
		logit_errno("audit write failed");
	free(line);
	json_decref(rec);
	return ret;
}

/* A string value that needs quotes to be read right: empty, or holding
 * anything but printable ASCII other than space, quote, backslash and '='
 * (a key "a.pdf " and a key "a.pdf" differ on screen). */
static int
needs_quotes(const char *s)
{
	if (*s == '\0')
		return 1;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f ||
		    *s == '"' || *s == '\\' || *s == '=')
			return 1;
	return 0;
}

/* Print one record readably: key=value pairs, every name and value
 * rendered for the terminal (lib/render.h), strings quoted when they
 * need it; other values as compact JSON. */
void
audit_print_record(const json_t *rec)
{
	const char *k;
	json_t *v;
	char safe[8192], name[256];
	unsigned flags = render_locale_flags();
	int first = 1;

	json_object_foreach((json_t *)rec, k, v) {
		char *txt = json_is_string(v) ? NULL :
		    json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		const char *s = json_is_string(v) ? json_string_value(v) : txt;
		size_t n = json_is_string(v) ? json_string_length(v) :
		    (s != NULL ? strlen(s) : 0);

		if (s == NULL)
			s = "";
		render_text(k, strlen(k), flags, 0, name, sizeof(name), NULL);
		render_text(s, n, flags | (json_is_string(v) &&
		    (needs_quotes(s) || strlen(s) != n) ? RENDER_QUOTE : 0), 0,
		    safe, sizeof(safe), NULL);
		printf("%s%s=%s", first ? "" : " ", name, safe);
		first = 0;
		free(txt);
	}
	printf("\n");
}

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
