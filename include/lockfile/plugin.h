/* The plugin ABI: what a plugin is given and what it must give back.
 *
 * One header for both sides of the contract (docs/plugins.md, "The
 * contract"): the sandbox that runs a plugin (src/sandbox/), the console
 * that writes its values and reads its detail, the manifest parser that
 * bounds its inputs and limits (src/store/manifest.c), and the plugin SDK
 * a plugin is written against (plugins/sdk/lfplugin.h). A number here is
 * part of what every signed plugin relies on: change one only with a new
 * protocol number.
 *
 * Plain C macros and no other include, so a plugin built against libc
 * alone can include it. */
#ifndef LOCKFILE_PLUGIN_H
#define LOCKFILE_PLUGIN_H

/* Protocol numbers a manifest may declare (its "protocol" key). */
#define LF_PLUGIN_PROTOCOL_1	1	/* the input only */
#define LF_PLUGIN_PROTOCOL_2	2	/* typed values on fd 6, a detail on fd 7 */
#define LF_PLUGIN_PROTOCOL_MIN	LF_PLUGIN_PROTOCOL_1
#define LF_PLUGIN_PROTOCOL_MAX	LF_PLUGIN_PROTOCOL_2	/* `status` reports
							 * MIN..MAX */

/* The descriptors inside the sandbox; no other is open. */
#define LF_PLUGIN_FD_STDIN	0	/* /dev/null, a description of the run's own */
#define LF_PLUGIN_FD_ANSWER	1	/* the answer pipe */
#define LF_PLUGIN_FD_STDERR	2	/* discarded; only its length is audited */
#define LF_PLUGIN_FD_INPUT	3	/* the input: a regular file, read-only */
#define LF_PLUGIN_FD_VALUES	6	/* protocol 2: the typed values, then EOF */
#define LF_PLUGIN_FD_DETAIL	7	/* protocol 2: a detail for the human */
#define LF_PLUGIN_FD_COUNT	8	/* the layout's size: 0..7 */

/* The answer: "1" or "0", optionally followed by "\n", and exit status 0.
 * The console reads at most this many bytes; one more kills the run. */
#define LF_PLUGIN_ANSWER_MAX	3
/* The SDK's exit status for "no answer" (any non-zero exit is
 * plugin_error). */
#define LF_PLUGIN_EXIT_ERROR	2

/* fd 6: per declared input, in manifest order, a 4-byte big-endian length
 * and that many bytes, then end of file. */
#define LF_PLUGIN_VALUE_LEN_BYTES 4
#define LF_PLUGIN_MAX_INPUTS	8	/* inputs a manifest may declare */
#define LF_PLUGIN_VALUE_MAX	4096	/* an input's max_bytes ceiling */
#define LF_PLUGIN_VALUES_MAX	(64 * 1024)	/* the whole fd 6 stream */

/* fd 7: the console keeps at most this many bytes of the detail. */
#define LF_PLUGIN_DETAIL_MAX	256

/* The manifest's limits (docs/plugins.md, "The manifest"). */
#define LF_PLUGIN_CPU_S_MAX	600
#define LF_PLUGIN_MEMORY_MIN	(1LL << 20)
#define LF_PLUGIN_MEMORY_MAX	(16LL << 30)
#define LF_PLUGIN_WALL_S_MAX	3600

/* What the sandbox adds to them: RLIMIT_AS is the manifest's memory_bytes
 * plus this, the stack and the descriptor table are fixed. */
#define LF_PLUGIN_AS_EXTRA	(4ULL << 30)
#define LF_PLUGIN_STACK_BYTES	(8ULL << 20)
#define LF_PLUGIN_NOFILE	64

#endif
