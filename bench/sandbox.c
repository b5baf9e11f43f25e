/* bench-sandbox: what the plugin sandbox costs per spawn.
 *
 *   bench-sandbox [-n ROUNDS] [-w WARMUP] [-b BWRAP] PLUGIN
 *
 * Times, side by side in interleaved rounds (the order rotates every round,
 * so drift and noise fall on all three alike), the spawn of the no-op static
 * PLUGIN three ways:
 *   bare      fork + execve + waitpid, stdin and stdout /dev/null;
 *   sandboxed sandbox_run(), the code path of `lockfile sandbox-run` and the
 *             console: sandbox_open() once, then per run pipes, fork,
 *             Landlock, the precompiled seccomp filter, rlimits, exec,
 *             supervision and reaping;
 *   bwrap     bubblewrap with a comparable minimal setup (--unshare-all
 *             --die-with-parent --new-session --clearenv --ro-bind PLUGIN).
 * Prints the medians and the ratios against the targets (sandboxed at most
 * 1.25x bare, bwrap at least 3x sandboxed). Exit 0 when it measured, 1 when
 * a run went wrong. Must run as a non-root account, like the console. */
#include "sandbox/sandbox.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TARGET_SANDBOX_VS_BARE 1.25
#define TARGET_BWRAP_VS_SANDBOX 3.0

enum { M_BARE, M_SANDBOX, M_BWRAP, M__COUNT };
static const char *const mname[M__COUNT] = { "bare fork+exec", "sandboxed", "bwrap" };

struct bench {
	const char *plugin;
	const char *bwrap;
	int null_rd, null_wr;
	struct sandbox sb;
	struct plugin_run run;
};

static long long
now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		fatal_errno("clock_gettime");
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* fork + execve of argv[0] with stdin and stdout on /dev/null; 0 when it
 * exited 0. */
static int
spawn_wait(struct bench *b, char *const argv[])
{
	char *const envp[] = { NULL };
	int st;
	pid_t pid = fork();

	if (pid < 0)
		fatal_errno("fork");
	if (pid == 0) {
		if (dup2(b->null_rd, 0) != 0 || dup2(b->null_wr, 1) != 1)
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			fatal_errno("waitpid");
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int
run_bare(struct bench *b)
{
	char *const argv[] = { (char *)b->plugin, NULL };

	return spawn_wait(b, argv);
}

static int
run_bwrap(struct bench *b)
{
	char *const argv[] = {
		(char *)b->bwrap, (char *)"--unshare-all",
		(char *)"--die-with-parent", (char *)"--new-session",
		(char *)"--clearenv", (char *)"--ro-bind", (char *)b->plugin,
		(char *)"/plugin", (char *)"/plugin", NULL,
	};

	return spawn_wait(b, argv);
}

static int
run_sandboxed(struct bench *b)
{
	struct plugin_result res;

	sandbox_run(&b->sb, &b->run, &res);
	return res.outcome == OUT_ANSWER_1 ? 0 : -1;
}

static int (*const runner[M__COUNT])(struct bench *) = {
	run_bare, run_sandboxed, run_bwrap,
};

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static double
median_ms(long long *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_ll);
	return (n % 2 ? (double)v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0) / 1e6;
}

static const char usage_text[] =
"usage: bench-sandbox [-n ROUNDS] [-w WARMUP] [-b BWRAP] PLUGIN\n";

int
main(int argc, char **argv)
{
	struct bench b;
	unsigned long long v;
	size_t rounds = 300, warmup = 20, r;
	long long *t[M__COUNT];
	double med[M__COUNT];
	int c, m, have_bwrap, rc = 1;

	log_init("bench-sandbox");
	memset(&b, 0, sizeof(b));
	b.bwrap = "/usr/bin/bwrap";
	while ((c = getopt(argc, argv, "n:w:b:")) != -1) {
		switch (c) {
		case 'n':
			if (parse_u64(optarg, 1, 1000000, &v) != 0)
				goto usage;
			rounds = (size_t)v;
			break;
		case 'w':
			if (parse_u64(optarg, 0, 1000000, &v) != 0)
				goto usage;
			warmup = (size_t)v;
			break;
		case 'b':
			b.bwrap = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1)
		goto usage;
	b.plugin = argv[optind];

	b.null_rd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	b.null_wr = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (b.null_rd < 0 || b.null_wr < 0)
		fatal_errno("/dev/null");
	if (sandbox_open(&b.sb) != 0)
		fatal("sandbox unavailable: %s", b.sb.why);
	b.run.binfd = open(b.plugin, OPEN_RO_SAFE);
	b.run.inputfd = open(b.plugin, OPEN_RO_SAFE);	/* any read-only file */
	if (b.run.binfd < 0 || b.run.inputfd < 0)
		fatal_errno("%s", b.plugin);
	if (elf_check_static(b.run.binfd, &b.sb.why) != 0)
		fatal("%s: %s", b.plugin, b.sb.why);
	b.run.protocol = 1;
	b.run.limits.cpu_s = 5;
	b.run.limits.memory_bytes = 256ULL << 20;
	b.run.limits.wall_ms = 10000;
	b.run.argv0 = "plugin";

	if (run_bare(&b) != 0)
		fatal("%s does not run bare", b.plugin);
	if (run_sandboxed(&b) != 0)
		fatal("%s does not answer 1 in the sandbox", b.plugin);
	have_bwrap = access(b.bwrap, X_OK) == 0 && run_bwrap(&b) == 0;
	if (!have_bwrap)
		logit("%s does not run the plugin here: bwrap not measured", b.bwrap);

	for (m = 0; m < M__COUNT; m++)
		if ((t[m] = calloc(rounds, sizeof(long long))) == NULL)
			fatal("out of memory");
	for (r = 0; r < warmup + rounds; r++) {
		int k;
		for (k = 0; k < M__COUNT; k++) {
			long long t0;
			m = (int)((r + (size_t)k) % M__COUNT);	/* rotate the order */
			if (m == M_BWRAP && !have_bwrap)
				continue;
			t0 = now_ns();
			if (runner[m](&b) != 0) {
				logit("%s run failed in round %zu", mname[m], r);
				goto out;
			}
			if (r >= warmup)
				t[m][r - warmup] = now_ns() - t0;
		}
	}
	for (m = 0; m < M__COUNT; m++)
		med[m] = m == M_BWRAP && !have_bwrap ? 0 : median_ms(t[m], rounds);

	printf("bench-sandbox: %zu interleaved rounds (+%zu warm-up), medians per spawn\n",
	    rounds, warmup);
	printf("  %-16s %8.3f ms\n", mname[M_BARE], med[M_BARE]);
	printf("  %-16s %8.3f ms  %.2fx bare (target <= %.2fx): %s\n",
	    mname[M_SANDBOX], med[M_SANDBOX], med[M_SANDBOX] / med[M_BARE],
	    TARGET_SANDBOX_VS_BARE,
	    med[M_SANDBOX] / med[M_BARE] <= TARGET_SANDBOX_VS_BARE ? "met" : "MISSED");
	if (have_bwrap)
		printf("  %-16s %8.3f ms  %.2fx bare, %.2fx sandboxed (target >= %.1fx): %s\n",
		    mname[M_BWRAP], med[M_BWRAP], med[M_BWRAP] / med[M_BARE],
		    med[M_BWRAP] / med[M_SANDBOX], TARGET_BWRAP_VS_SANDBOX,
		    med[M_BWRAP] / med[M_SANDBOX] >= TARGET_BWRAP_VS_SANDBOX ?
		    "met" : "MISSED");
	else
		printf("  %-16s not measured\n", mname[M_BWRAP]);
	printf("ratio sandboxed/bare = %.3f\n", med[M_SANDBOX] / med[M_BARE]);
	if (have_bwrap)
		printf("ratio bwrap/sandboxed = %.3f\n", med[M_BWRAP] / med[M_SANDBOX]);
	rc = 0;
out:
	for (m = 0; m < M__COUNT; m++)
		free(t[m]);
	sandbox_close(&b.sb);
	return rc;
usage:
	fputs(usage_text, stderr);
	return 64;
}
