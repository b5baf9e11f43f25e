/* Streaming byte-exact substring search over a window: the last
 * needle_len - 1 bytes of what was seen stay in front of each new chunk, so
 * a match across chunk boundaries is found, and memory is fixed by the
 * needle's ceiling and the chunk size, never by the file. */
#ifndef CONTAINS_SEARCH_H
#define CONTAINS_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#define SEARCH_NEEDLE_MAX 1024		/* the manifest's max_bytes */
#define SEARCH_CHUNK (256 * 1024)

struct search {
	const uint8_t *needle;
	size_t needle_len;		/* 1..SEARCH_NEEDLE_MAX */
	size_t keep;			/* bytes carried at the window's front */
	uint64_t base;			/* stream offset of win[0] */
	uint8_t win[SEARCH_NEEDLE_MAX - 1 + SEARCH_CHUNK];
};

/* 0, or -1 when the needle is empty or longer than SEARCH_NEEDLE_MAX. */
int search_init(struct search *s, const uint8_t *needle, size_t len);
/* Where the caller writes the next chunk (at most SEARCH_CHUNK bytes). */
uint8_t *search_space(struct search *s);
/* Search the n bytes just written at search_space(). 1 when the needle
 * occurs in the stream so far (*at: stream offset of the first byte of the
 * first match found), else 0. */
int search_feed(struct search *s, size_t n, uint64_t *at);

#endif
