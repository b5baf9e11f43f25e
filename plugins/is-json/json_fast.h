/* The is-json validator at vector speed: the same answers as json_check.h
 * (RFC 8259, strict UTF-8, JSON_MAX_DEPTH), streaming, constant memory, no
 * allocation and no I/O. json_check.c is kept as its reference: the fuzz
 * target holds every kernel of this one to it on every input. */
#ifndef IS_JSON_FAST_H
#define IS_JSON_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "json_check.h"
#include "lfplugin.h"

#define JSON_BLOCK 64		/* bytes classified at a time */

struct json_fast {
	int isa;			/* LFP_ISA_*: the classifier used */
	int failed;
	/* Between blocks. */
	uint64_t in_string;		/* all ones: the last block ended in a string */
	unsigned escaped;		/* the next block's first byte is escaped */
	unsigned hex;			/* \u hex digits still expected */
	unsigned atom_open;		/* the last block ended inside an atom */
	/* The grammar: the kinds of the last two tokens; stack[1..depth] the open containers (array or object),
	 * stack[0] the top level. Within one block the depth may pass the
	 * limit by up to a block's worth before the block is refused. */
	unsigned prev, prev2;
	unsigned depth;
	uint8_t stack[JSON_MAX_DEPTH + JSON_BLOCK + 2];
	/* The atom (number or literal) being read. */
	int atom;
	const char *lit;
	struct lfp_utf8 u8;		/* the whole text is UTF-8 ... */
	int u8ascii;			/* ... or, checked inside the AVX-512
					 * loop: the last block was ASCII */
	uint8_t u8prev[JSON_BLOCK];	/* and the last block */
	size_t npart;			/* bytes waiting for a whole block */
	uint8_t part[JSON_BLOCK];
};

/* isa: the classifier (LFP_ISA_*, at most lfp_cpu_isa()). */
void json_fast_init(struct json_fast *jf, int isa);
/* 0 while the bytes so far can start a valid text; -1 once they cannot. */
int json_fast_feed(struct json_fast *jf, const uint8_t *buf, size_t len);
/* At end of input: 1 when the bytes were exactly one JSON text with
 * optional surrounding whitespace, else 0. Call once. */
int json_fast_finish(struct json_fast *jf);

#endif
