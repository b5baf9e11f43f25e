/* Byte-exact substring search over one buffer, in linear time whatever
 * the input. The plugin gives it the input a piece at a time
 * (lfp_input_next), each piece starting with the last needle_len - 1
 * bytes of the one before, so a match across pieces is seen whole. */
#ifndef CONTAINS_SEARCH_H
#define CONTAINS_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#define SEARCH_NEEDLE_MAX 1024		/* the manifest's max_bytes */

/* The offset of the first occurrence of needle (1..SEARCH_NEEDLE_MAX
 * bytes) in hay, or -1. isa: LFP_ISA_* (at most lfp_cpu_isa()). */
ptrdiff_t search_find(const uint8_t *hay, size_t len, const uint8_t *needle,
    size_t nlen, int isa);

#endif
