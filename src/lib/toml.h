/* A strict TOML 1.0.0 parser for the human's policy (docs/toml.md lists the
 * subset). The policy is untrusted bytes until the human approves it, so the
 * parser is total: any input gives either a whole document or NULL with an
 * error, never a crash, a hang, an out-of-bounds read or a partial result.
 *
 * Floats and the four date/time types are recognised but not decoded: a
 * document that is valid TOML but uses them is refused with unsupported=1.
 * Strings may hold U+0000 (from "\u0000"): read them with
 * json_string_length(), never as C strings. */
#ifndef LOCKFILE_TOML_H
#define LOCKFILE_TOML_H

#include <stddef.h>
#include <jansson.h>

#define TOML_MAX_INPUT	(1024 * 1024)	/* bytes of the whole document */
#define TOML_MAX_DEPTH	32	/* tables/arrays/inline tables below the root */
#define TOML_MAX_STRING	(64 * 1024)	/* decoded bytes of one key or string */
#define TOML_MAX_KEYS	10000	/* members in all tables together */

struct toml_error {
	int line;		/* 1-based line of the error */
	int unsupported;	/* 1: valid TOML outside the subset */
	const char *msg;	/* static text, never untrusted bytes */
};

/* Parses a whole TOML document into a new jansson object: tables become
 * objects, arrays arrays, strings strings, integers json_integer, booleans
 * json_true/json_false. Returns NULL on any error with *err filled (err may
 * be NULL when the caller does not want the detail). */
json_t *toml_parse(const char *text, size_t len, struct toml_error *err);

/* As toml_parse, and when lines is not NULL and the parse succeeds, *lines
 * is a new object (the caller frees it, after the document) that records
 * where each key was written, for messages about valid TOML that a reader
 * refuses: toml_key_line(lines, table, key) is the 1-based line of key in
 * table (a table of the returned document), or 0 when not known. */
json_t *toml_parse_lines(const char *text, size_t len, struct toml_error *err,
    json_t **lines);
int toml_key_line(const json_t *lines, const json_t *table, const char *key);

#endif
