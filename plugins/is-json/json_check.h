/* Streaming RFC 8259 validator: bytes in, "is this one JSON text?" out.
 * Constant memory: a state, a UTF-8 decoder and a nesting stack of
 * JSON_MAX_DEPTH bytes. No allocation, no I/O (the plugin and the fuzzer
 * feed it). */
#ifndef IS_JSON_CHECK_H
#define IS_JSON_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lfplugin.h"

/* Arrays and objects nested deeper than this are refused (answer 0). */
#define JSON_MAX_DEPTH 512

struct json_check {
	int state;
	int in_key;			/* the open string is an object key */
	unsigned hex;			/* \u hex digits still expected */
	const char *lit;		/* rest of true/false/null */
	unsigned depth;
	uint8_t stack[JSON_MAX_DEPTH];	/* '[' or '{' per level */
	struct lfp_utf8 u8;
};

void json_check_init(struct json_check *jc);
/* 0 while the bytes so far can start a valid text; -1 once they cannot
 * (the state is then stuck at failure). */
int json_check_feed(struct json_check *jc, const uint8_t *buf, size_t len);
/* At end of input: 1 when the bytes were exactly one JSON text with
 * optional surrounding whitespace, else 0. */
int json_check_finish(const struct json_check *jc);

#endif
