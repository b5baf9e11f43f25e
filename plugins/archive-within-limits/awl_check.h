/* archive-within-limits: is the file a ZIP whose entries are consistent
 * and bounded (docs/plugins.md, "archive-within-limits")? Over any
 * random-access source (the plugin gives it fd 3; the fuzzer memory).
 * Memory is bounded: fixed tables for AWL_MAX_ENTRIES entries, zlib's
 * inflate state, and at most AWL_NEST_ARENA bytes of inflated nested
 * archives. */
#ifndef ARCHIVE_WITHIN_LIMITS_CHECK_H
#define ARCHIVE_WITHIN_LIMITS_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The bounds the question states (the manifest, docs/plugins.md). An
 * archive at or beyond one answers 0, never 1. */
#define AWL_MAX_ENTRIES 10000u		/* entries, every level together */
#define AWL_MAX_DEPTH 4			/* a zip inside a zip is one level */
#define AWL_MAX_TOTAL (512ull << 20)	/* uncompressed bytes, all levels */
#define AWL_MAX_RATIO 100u		/* uncompressed : compressed */
#define AWL_RATIO_FLOOR (64u << 10)	/* smaller entries may exceed it:
					 * repeated text reaches 200:1 at a
					 * few KiB, and the total bounds them */
/* The plugin's own budget, below its manifest's limits (20 s of CPU,
 * 64 MiB, 60 s): a bomb gets 0, never plugin_error. */
#define AWL_MAX_INPUT (1ull << 30)	/* compressed bytes read, all levels */
#define AWL_NEST_ARENA (32u << 20)	/* deflated nested archives held */
#define AWL_CPU_BUDGET_S 15		/* process CPU time and wall time */
#define AWL_WALL_BUDGET_S 45		/* (of 60), checked as it inflates */

enum awl_answer {
	AWL_NO = 0,		/* not a ZIP, or not consistent, or at a bound */
	AWL_YES = 1,		/* consistent and within every bound */
	AWL_IOERR = 2,		/* the source could not be read (or zlib
				 * could not start): no answer */
};

struct awl_src {
	/* Up to len bytes at off: the count (short only at the end), or -1. */
	ssize_t (*pread)(void *ctx, void *buf, size_t len, uint64_t off);
	void *ctx;
	uint64_t size;
};

/* The whole check. *why (optional) names the rule a 0 broke: a static
 * string, never file content. */
enum awl_answer awl_check(const struct awl_src *src, const char **why);

#endif
