/* lockfile plugin SDK: the face a plugin author writes against.
 *
 * A plugin is a static ELF that answers one yes/no question about one file
 * (docs/plugins.md has the whole contract; its numbers are
 * include/lockfile/plugin.h, the header the sandbox is built from too).
 * Inside the sandbox it holds:
 *   fd 0  /dev/null          fd 1  answer pipe (the console reads 3 bytes)
 *   fd 2  discarded stderr   fd 3  the input, read-only, a regular file
 *   fd 6  protocol 2 only: the typed values, each a 4-byte big-endian
 *         length then that many bytes, in manifest order, then EOF
 *   fd 7  protocol 2 only: a detail of at most 256 bytes (console, level 0)
 * and nothing else: no paths, no network, no path-based stat.
 *
 * Everything here uses libc only, so a plugin links statically with no
 * other library. The SDK allocates no memory of its own. */
#ifndef LFPLUGIN_H
#define LFPLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <lockfile/plugin.h>

#define LFP_FD_INPUT	LF_PLUGIN_FD_INPUT
#define LFP_FD_VALUES	LF_PLUGIN_FD_VALUES
#define LFP_FD_DETAIL	LF_PLUGIN_FD_DETAIL
#define LFP_DETAIL_MAX	LF_PLUGIN_DETAIL_MAX
#define LFP_VALUE_MAX	LF_PLUGIN_VALUE_MAX	/* the manifest's max_bytes ceiling */
#define LFP_EXIT_ERROR	LF_PLUGIN_EXIT_ERROR	/* any non-zero exit is plugin_error */

/* Answer 1 (yes != 0) or 0 on stdout and exit 0. Call once; if the answer
 * cannot be written the plugin exits LFP_EXIT_ERROR instead. */
void lfp_answer(int yes) __attribute__((noreturn));

/* Give no answer: a short reason on stderr (discarded by the console, only
 * its length is audited) and exit LFP_EXIT_ERROR, which the console reports
 * as plugin_error. For inputs the plugin cannot judge, never for "no". */
void lfp_fail(const char *why) __attribute__((noreturn));

/* A check's result as the plugin's end: 1 or 0 is the answer
 * (lfp_answer); any other value is none (lfp_fail(why)). */
void lfp_result(int result, const char *why) __attribute__((noreturn));

/* The input's size. The sandbox refuses path-based stat, and glibc's fstat()
 * goes through newfstatat(fd, "", AT_EMPTY_PATH): this issues the plain
 * fstat system call. Fails unless fd 3 is a regular file. 0 or -1. */
int lfp_input_size(uint64_t *size);

/* Streaming read of the input from its current offset: bytes read (possibly
 * short), 0 at end of file, -1 on error. Retries EINTR. */
ssize_t lfp_read(void *buf, size_t len);

/* Random access: reads until len bytes or end of file. Bytes read, or -1. */
ssize_t lfp_pread(void *buf, size_t len, uint64_t off);

/* lfp_pread as a check's source callback (the pread of is-pdf's struct
 * pdf_src, archive-within-limits' struct awl_src): ctx is not used. */
ssize_t lfp_input_pread(void *ctx, void *buf, size_t len, uint64_t off);

/* A forward reader with one buffer over [pos, end) of a random-access
 * source, for a structure read record by record (the ZIP readers' central
 * directory). fill reads exactly len bytes at off into buf: 0, or the
 * caller's own error code (positive), returned as it is. */
#define LFP_FWD_BLOCK	(64u << 10)
#define LFP_FWD_PAST	(-1)	/* lfp_fwd_take: the bytes run past end */

typedef int (*lfp_fill_fn)(const void *arg, void *buf, size_t len,
    uint64_t off);

struct lfp_fwd {
	uint64_t pos, end;	/* the caller sets both after lfp_fwd_init */
	/* private */
	lfp_fill_fn fill;
	const void *arg;
	uint64_t bstart;
	size_t blen;
	uint8_t buf[LFP_FWD_BLOCK];
};

void lfp_fwd_init(struct lfp_fwd *f, lfp_fill_fn fill, const void *arg);
/* The next len bytes into out (NULL: skipped): 0, LFP_FWD_PAST, or the
 * fill function's error. */
int lfp_fwd_take(struct lfp_fwd *f, uint8_t *out, size_t len);

/* The whole input in order, in large pieces, for plugins that read all of
 * it: each piece is mapped read-only from fd 3 (private, so the file is
 * never written; not counted in the data limit), which in the sandbox is
 * faster than reading into a buffer (no copy; bench/README.md), or, where
 * the kernel cannot map the input (or fd 3 is not a regular file), read
 * into the caller's buf from fd 3's offset.
 * keep: each piece after the first starts with the last keep bytes of the
 * one before (a match across pieces is then seen whole); keep must be at
 * most LFP_KEEP_MAX and less than half of buflen. */
#define LFP_PIECE	(16u << 20)	/* bytes mapped at a time */
#define LFP_KEEP_MAX	(64u << 10)

struct lfp_input {
	const uint8_t *p;	/* the current piece, valid until the next call */
	size_t len;
	uint64_t off;		/* offset of p[0] in the input */
	/* private */
	uint64_t size, next;
	void *map;
	size_t maplen, keep, buflen;
	uint8_t *buf;
	int mode;
};

/* 0, or -1 (bad arguments). Nothing is mapped or read yet. */
int lfp_input_init(struct lfp_input *in, uint8_t *buf, size_t buflen,
    size_t keep);
/* The next piece into in->p, in->len, in->off: 1, or 0 at end of input,
 * or -1 on error. The previous piece is unmapped. */
int lfp_input_next(struct lfp_input *in);

/* Protocol 2 values. The caller describes each declared input, in manifest
 * order, with its max_bytes and storage of at least max_bytes bytes. */
struct lfp_value {
	size_t max_bytes;	/* from the manifest, 1..LFP_VALUE_MAX */
	uint8_t *buf;		/* the caller's storage */
	size_t len;		/* set by lfp_values_read */
};

/* Read exactly n values from fd 6, each no longer than its max_bytes, and
 * then require end of file. Anything else (short, longer, extra bytes, no
 * fd 6) is -1: the caller should lfp_fail(). 0 on success. */
int lfp_values_read(struct lfp_value *v, size_t n);

/* Write a detail on fd 7 (protocol 2): at most LFP_DETAIL_MAX bytes, cut
 * beyond. Shown only to the human at security level 0; never put file
 * content in it. 0, or -1 (e.g. a protocol 1 run has no fd 7). */
int lfp_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict streaming UTF-8 (RFC 3629): no overlongs, no surrogates
 * (U+D800..DFFF), nothing above U+10FFFF. */
struct lfp_utf8 {
	uint32_t cp;		/* the code point being decoded */
	uint8_t need;		/* continuation bytes still expected */
	uint8_t lo, hi;		/* allowed range of the next byte */
};

enum {
	LFP_UTF8_BAD = -1,	/* invalid byte: the stream is not UTF-8 */
	LFP_UTF8_MORE = 0,	/* inside a sequence */
	LFP_UTF8_CHAR = 1,	/* a code point completed, in st->cp */
};

void lfp_utf8_init(struct lfp_utf8 *st);
/* One byte. Returns LFP_UTF8_BAD, LFP_UTF8_MORE or LFP_UTF8_CHAR. After
 * LFP_UTF8_BAD the state is undefined: init again before reuse. */
int lfp_utf8_step(struct lfp_utf8 *st, uint8_t b);
/* A chunk, any size, cut anywhere: vector code where the CPU has it
 * (lfp_utf8_valid). 0, or -1 once an invalid byte is in the stream (not
 * necessarily at the first one: the state is then undefined). */
int lfp_utf8_feed(struct lfp_utf8 *st, const uint8_t *buf, size_t len);
/* At end of input: 0 when no sequence is left open, -1 when truncated. */
int lfp_utf8_finish(const struct lfp_utf8 *st);

/* Is the whole buffer valid UTF-8, as one complete stream? 1 or 0. With
 * the best kernel for this CPU (lfp_cpu_isa), or with the one named (a
 * kernel the CPU lacks must not be asked for: lfp_cpu_isa() >= isa). */
int lfp_utf8_valid(const uint8_t *buf, size_t len);
int lfp_utf8_valid_isa(int isa, const uint8_t *buf, size_t len);

/* The widest vector instructions the CPU has and the kernel saves the state
 * of, read with cpuid and xgetbv (the sandbox gives no /proc). Ordered:
 * each level has everything below it. Always LFP_ISA_SCALAR off x86-64. */
enum {
	LFP_ISA_SCALAR = 0,
	LFP_ISA_SSE4 = 1,	/* SSSE3 and SSE4.1 */
	LFP_ISA_AVX2 = 2,	/* AVX2, BMI1, BMI2; YMM state enabled */
	LFP_ISA_AVX512 = 3,	/* AVX-512 F, BW, VBMI, VBMI2 (Ice Lake and
				 * later); ZMM and mask state */
};
int lfp_cpu_isa(void);

/* The `text` input kind: valid UTF-8 and no control character (C0, DEL,
 * C1). 1 or 0. */
int lfp_is_text(const uint8_t *buf, size_t len);

#endif
