/* bench-plugin-kernels: the plugins' checks in process, per instruction set,
 * on a file already in memory (bench/plugins/run.py runs it on its inputs):
 * where a plugin's time goes once the sandbox and the reads are taken
 * away, and what the fallbacks cost on a CPU without the vector units.
 *
 *   bench-plugin-kernels utf8|json FILE [ROUNDS]
 *
 * Prints per kernel the best CPU time of ROUNDS (default 5) and GB/s.
 * Not a plugin: a plain executable of the same sources. */
#include "json_check.h"
#include "json_fast.h"
#include "lfplugin.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double
cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *const isa_name[] = { "scalar", "sse4.1", "avx2",
	"avx-512" };

int
main(int argc, char **argv)
{
	static struct json_fast jf;
	static struct json_check jc;
	struct stat st;
	const uint8_t *p;
	int fd, rounds, isa, json, r, ok = 0;
	size_t len;

	if (argc < 3 || (strcmp(argv[1], "utf8") != 0 &&
	    strcmp(argv[1], "json") != 0)) {
		fprintf(stderr, "usage: %s utf8|json FILE [ROUNDS]\n", argv[0]);
		return 64;
	}
	json = strcmp(argv[1], "json") == 0;
	rounds = argc > 3 ? atoi(argv[3]) : 5;
	if ((fd = open(argv[2], O_RDONLY)) < 0 || fstat(fd, &st) != 0 ||
	    st.st_size <= 0) {
		perror(argv[2]);
		return 66;
	}
	len = (size_t)st.st_size;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 70;
	}
	/* -1: the byte-at-a-time reference (json_check.c, lfp_utf8_step). */
	for (isa = -1; isa <= lfp_cpu_isa(); isa++) {
		double best = 1e30;

		for (r = 0; r < rounds; r++) {
			double t0 = cpu_now(), t;

			if (json && isa < 0) {
				json_check_init(&jc);
				ok = json_check_feed(&jc, p, len) == 0 &&
				    json_check_finish(&jc);
			} else if (json) {
				json_fast_init(&jf, isa);
				ok = json_fast_feed(&jf, p, len) == 0 &&
				    json_fast_finish(&jf);
			} else if (isa < 0) {
				struct lfp_utf8 u;
				size_t i;

				lfp_utf8_init(&u);
				for (i = 0; i < len; i++)
					if (lfp_utf8_step(&u, p[i]) == LFP_UTF8_BAD)
						break;
				ok = i == len && lfp_utf8_finish(&u) == 0;
			} else {
				ok = lfp_utf8_valid_isa(isa, p, len);
			}
			t = cpu_now() - t0;
			if (t < best)
				best = t;
		}
		printf("  %-8s %-22s %8.3fs %7.2f GB/s  answer %d\n",
		    json ? "is-json" : "is-utf8",
		    isa < 0 ? (json ? "json_check (reference)" :
		    "byte step (reference)") : isa_name[isa], best,
		    (double)len / best / 1e9, ok);
	}
	return 0;
}
