/* lockfile-sandbox-run, typed as `lockfile sandbox-run` (the agent's
 * lockfile forwards it here by exec): run one plugin exactly as a plan
 * does and print one line: 1, 0 or "error: CLASS". A diagnostic for the
 * console account, and what the tests and benchmarks drive. An executable
 * of its own (docs/hacking.md, "Executables"): the sandbox, libseccomp and
 * SHA-256, nothing of the console's. Exit status by outcome class only
 * (docs/sandbox.md has the table): an answer of 1 and of 0 exit 0. */
#include "sandbox/sandbox.h"
#include "lib/crypto.h"
#include "lib/exe.h"
#include "lib/escape.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/num.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_VALUES 8

static const char usage_text[] =
"usage: lockfile sandbox-run [--protocol 1|2] [--value-file F]...\n"
"           [--cpu SECONDS] [--memory BYTES] [--wall SECONDS]\n"
"           [--sha256 HEX] PLUGIN INPUT\n"
"\n"
"Runs PLUGIN (a static ELF) on INPUT in the plugin sandbox, exactly as a\n"
"plan does, and prints one line: 1, 0, or 'error: CLASS'.\n"
"  --protocol N     plugin protocol (default 1); 2 passes values on fd 6\n"
"  --value-file F   protocol 2: one input value per file, in manifest order\n"
"  --cpu S          CPU seconds (default 5)\n"
"  --memory BYTES   data limit in bytes (default 268435456)\n"
"  --wall S         wall-clock seconds (default 10)\n"
"  --sha256 HEX     expected sha256 of PLUGIN; a mismatch is 'tampered'\n"
"  --report         also print the precise outcome as one JSON line on\n"
"                   stderr (class, stderr bytes, exit code, signal, times)\n"
"Exit status: 0 answer (1 or 0 alike), 10 plugin error, 20 tampered,\n"
"21 sandbox unavailable, 64 usage, 70 internal error.\n";

/* Exit status of a run for its outcome class. */
static int
sandbox_exit_code(enum outcome o)
{
	switch (o) {
	case OUT_ANSWER_1:
	case OUT_ANSWER_0:
		return 0;
	case OUT_TAMPERED:
		return 20;
	case OUT_SANDBOX_UNAVAILABLE:
		return 21;
	default:
		return 10;
	}
}

static int
finish(enum outcome o)
{
	int bit = outcome_bit(o);

	if (bit >= 0)
		printf("%d\n", bit);
	else
		printf("error: %s\n", outcome_name(o));
	fflush(stdout);
	return sandbox_exit_code(o);
}

/* Append one value to the fd 6 stream: 4-byte big-endian length, bytes. */
static int
add_value(uint8_t *buf, size_t *len, const char *path)
{
	int fd = open(path, OPEN_RO_SAFE);
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		logit_errno("value file %s", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size < 0 ||
	    (size_t)st.st_size + LF_PLUGIN_VALUE_LEN_BYTES >
	    LF_PLUGIN_VALUES_MAX - *len) {
		logit("value file %s too large", path);
		close(fd);
		return -1;
	}
	buf[*len] = (uint8_t)(st.st_size >> 24);
	buf[*len + 1] = (uint8_t)(st.st_size >> 16);
	buf[*len + 2] = (uint8_t)(st.st_size >> 8);
	buf[*len + 3] = (uint8_t)st.st_size;
	n = read_full(fd, buf + *len + LF_PLUGIN_VALUE_LEN_BYTES,
	    (size_t)st.st_size);
	close(fd);
	if (n != (ssize_t)st.st_size) {
		logit("value file %s changed while read", path);
		return -1;
	}
	*len += LF_PLUGIN_VALUE_LEN_BYTES + (size_t)st.st_size;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "protocol", required_argument, NULL, 'p' },
		{ "value-file", required_argument, NULL, 'v' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "memory", required_argument, NULL, 'm' },
		{ "wall", required_argument, NULL, 'w' },
		{ "sha256", required_argument, NULL, 's' },
		{ "report", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static uint8_t values[LF_PLUGIN_VALUES_MAX];
	struct plugin_run run;
	struct plugin_result res;
	struct sandbox sb;
	const char *sha = NULL, *why = NULL;
	unsigned long long v;
	size_t values_len = 0;
	int c, nvalues = 0, rc = 70, input = -1, report = 0;
	uint8_t want[SHA256_LEN], got[SHA256_LEN];

	/* A plugin that closes fd 6 before its values are written must not
	 * kill us with SIGPIPE (the child resets it to the default). */
	exe_start("sandbox-run");
	signal(SIGPIPE, SIG_IGN);
	memset(&run, 0, sizeof(run));
	run.protocol = LF_PLUGIN_PROTOCOL_1;
	run.binfd = -1;
	run.limits.cpu_s = 5;
	run.limits.memory_bytes = 256ULL << 20;
	run.limits.wall_ms = 10000;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_u64(optarg, LF_PLUGIN_PROTOCOL_MIN,
			    LF_PLUGIN_PROTOCOL_MAX, &v) != 0)
				goto usage;
			run.protocol = (int)v;
			break;
		case 'v':
			if (nvalues >= MAX_VALUES ||
			    add_value(values, &values_len, optarg) != 0)
				goto usage;
			nvalues++;
			break;
		case 'c':
			if (parse_u64(optarg, 1, 3600, &v) != 0)
				goto usage;
			run.limits.cpu_s = (unsigned)v;
			break;
		case 'm':
			if (parse_u64(optarg, 1 << 20, 64ULL << 30, &v) != 0)
				goto usage;
			run.limits.memory_bytes = v;
			break;
		case 'w':
			if (parse_u64(optarg, 1, 3600, &v) != 0)
				goto usage;
			run.limits.wall_ms = (unsigned)v * 1000;
			break;
		case 's':
			sha = optarg;
			if (hex_decode(sha, want, sizeof(want)) != 0)
				goto usage;
			break;
		case 'r':
			report = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2 || (nvalues > 0 &&
	    run.protocol != LF_PLUGIN_PROTOCOL_2))
		goto usage;

	if (geteuid() == 0 || getuid() == 0) {
		logit("refusing to run plugins as root");
		return finish(OUT_SANDBOX_UNAVAILABLE);
	}
	run.binfd = open(argv[optind], OPEN_RO_SAFE);
	if (run.binfd < 0) {
		logit_errno("plugin %s", argv[optind]);
		return finish(OUT_EXEC_FAILED);
	}
	if (sha != NULL) {
		/* The bytes hashed are the bytes run: exec goes through this fd. */
		if (sha256_fd_pread(run.binfd, got) != 0)
			fatal_errno("hashing %s", argv[optind]);
		if (!ct_equal(want, got, sizeof(got))) {
			rc = finish(OUT_TAMPERED);
			goto out;
		}
	}
	if (elf_check_static(run.binfd, &why) != 0) {
		logit("plugin %s: %s", argv[optind], why);
		rc = finish(OUT_EXEC_FAILED);
		goto out;
	}
	input = open(argv[optind + 1], OPEN_RO_SAFE);
	if (input < 0) {
		logit_errno("input %s", argv[optind + 1]);
		rc = 70;
		goto out;
	}
	if (sandbox_open(&sb) != 0) {
		logit("sandbox unavailable: %s", sb.why);
		rc = finish(OUT_SANDBOX_UNAVAILABLE);
		goto out;
	}
	run.inputfd = input;
	run.values = values;
	run.values_len = values_len;
	run.argv0 = "plugin";
	sandbox_run(&sb, &run, &res);
	sandbox_close(&sb);
	if (res.outcome == OUT_EXEC_FAILED && res.exec_errno != 0)
		logit("exec failed: %s", strerror(res.exec_errno));
	if (run.protocol == LF_PLUGIN_PROTOCOL_2 && res.detail_len > 0) {
		char safe[4 * LF_PLUGIN_DETAIL_MAX + 8];
		escape_text(res.detail, res.detail_len, safe, sizeof(safe));
		fprintf(stderr, "detail: %s\n", safe);
	}
	if (report)
		fprintf(stderr, "{\"outcome\":\"%s\",\"stderr_bytes\":%llu,"
		    "\"exit_code\":%d,\"signal\":%d,\"wall_ms\":%lld,"
		    "\"cpu_ms\":%lld,\"exec_errno\":%d}\n",
		    outcome_name(res.outcome), res.stderr_bytes, res.exit_code,
		    res.signo, res.wall_ms, res.cpu_ms, res.exec_errno);
	rc = finish(res.outcome);
out:
	explicit_bzero(values, sizeof(values));
	if (input >= 0)
		close(input);
	if (run.binfd >= 0)
		close(run.binfd);
	return rc;
usage:
	fputs(usage_text, stderr);
	return 64;
}
