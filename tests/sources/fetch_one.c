/* fetch-one: drive one source kind outside the console, for the source
 * tests and bench/fetch.
 *
 *   fetch-one [--home DIR] [--cap BYTES] [--out FILE] [--repeat N]
 *             [--fsync] [--validate] KIND TABLE_JSON KEY
 *
 * TABLE_JSON is the profile table as the console hands it to the kind
 * (without production/source/prefix). Prints one line:
 *   cause=NAME size=N sha256=HEX rss_kb=N fetch_ms=N fsync_ms=N detail="..."
 * fetch_ms is the last fetch call alone; with --fsync the spool is then
 * fsync'ed as the console does (fsync_ms), else fsync_ms=0.
 * Exit status: 0 fetched, 1 the fetch failed (cause printed), 2 the table
 * was refused by validate or open, 64 usage. Without --out the spool is a
 * temporary file, deleted after. */
#include "sources/source.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/num.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

static int
usage(void)
{
	fputs("usage: fetch-one [--home DIR] [--cap BYTES] [--out FILE] "
	    "[--repeat N] [--fsync] [--validate] KIND TABLE_JSON KEY\n", stderr);
	return 64;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "cap", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "validate", no_argument, NULL, 'v' },
		{ "fsync", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *home = getenv("HOME") ? getenv("HOME") : "/", *out = NULL;
	unsigned long long cap = 1ULL << 40, repeat = 1, i;
	const struct source_kind *kind;
	struct source *src = NULL;
	struct fetch_result res;
	enum fetch_cause fc = FC_OK;
	char tmpl[] = "/tmp/fetch-one-XXXXXX", hex[SHA256_HEX_LEN + 1];
	char detail[sizeof(res.detail) * 4 + 1];
	const char *why = NULL;
	json_error_t jerr;
	struct rusage ru;
	json_t *t;
	int ch, only_validate = 0, do_fsync = 0, fd;
	long long t0, fetch_ms = 0, fsync_ms = 0;

	log_init("fetch-one");
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'H': home = optarg; break;
		case 'o': out = optarg; break;
		case 'v': only_validate = 1; break;
		case 'f': do_fsync = 1; break;
		case 'c':
			if (parse_u64(optarg, 0, 1ULL << 50, &cap) != 0)
				return usage();
			break;
		case 'r':
			if (parse_u64(optarg, 1, 1000, &repeat) != 0)
				return usage();
			break;
		default: return usage();
		}
	}
	if (argc - optind != 3)
		return usage();
	kind = source_kind_find(argv[optind]);
	if (kind == NULL) {
		fprintf(stderr, "fetch-one: unknown kind\n");
		return 2;
	}
	t = json_loads(argv[optind + 1], JSON_REJECT_DUPLICATES, &jerr);
	if (t == NULL) {
		fprintf(stderr, "fetch-one: bad TABLE_JSON: %s\n", jerr.text);
		return 64;
	}
	if (kind->validate(t, &why) != 0) {
		printf("refused validate: %s\n", why);
		json_decref(t);
		return 2;
	}
	if (only_validate) {
		printf("valid\n");
		json_decref(t);
		return 0;
	}
	if (kind->open(t, home, &src, &why) != 0) {
		printf("refused open: %s\n", why);
		json_decref(t);
		return 2;
	}
	for (i = 0; i < repeat; i++) {
		fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)
		    : mkstemp(tmpl);
		if (fd < 0)
			fatal_errno("spool");
		if (out == NULL)
			(void)unlink(tmpl);
		memset(&res, 0, sizeof(res));
		t0 = now_ms();
		fc = kind->fetch(src, argv[optind + 2], fd, cap, &res);
		fetch_ms = now_ms() - t0;
		if (do_fsync && fc == FC_OK) {
			t0 = now_ms();
			if (fsync(fd) != 0)
				fc = FC_IO;
			fsync_ms = now_ms() - t0;
		}
		close(fd);
		if (out == NULL)
			memcpy(tmpl + strlen(tmpl) - 6, "XXXXXX", 6);
		if (fc != FC_OK)
			break;
	}
	hex_encode(res.sha256, SHA256_LEN, hex);
	escape_text(res.detail, strlen(res.detail), detail, sizeof(detail));
	getrusage(RUSAGE_SELF, &ru);
	printf("cause=%s size=%llu sha256=%s rss_kb=%ld fetch_ms=%lld "
	    "fsync_ms=%lld detail=\"%s\"\n", fetch_cause_name(fc),
	    fc == FC_OK ? res.size : 0ULL, fc == FC_OK ? hex : "-", ru.ru_maxrss,
	    fetch_ms, fsync_ms, detail);
	kind->close(src);
	json_decref(t);
	return fc == FC_OK ? 0 : 1;
}
