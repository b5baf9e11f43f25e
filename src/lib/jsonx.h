/* Strict JSON on top of jansson: a size cap, a nesting-depth cap checked
 * before jansson sees the bytes, duplicate keys refused, no trailing bytes,
 * no NUL inside strings, valid UTF-8 only (jansson's default). */
#ifndef LOCKFILE_JSONX_H
#define LOCKFILE_JSONX_H

#include <stddef.h>
#include <jansson.h>

#define JSONX_DEFAULT_DEPTH 16

/* Returns a new reference, or NULL when the text is not acceptable. Any
 * JSON value is accepted at the top level; callers check the type. */
json_t *jsonx_parse(const char *data, size_t len, size_t max_len,
    int max_depth);

/* Nesting depth of JSON text (brackets outside strings), or -1 when it
 * passes max_depth. Exposed for tests. */
int jsonx_depth(const char *data, size_t len, int max_depth);

/* Serialise compactly with sorted keys, as one line of printable ASCII
 * (non-ASCII characters and DEL as \\u escapes). Caller frees. */
char *jsonx_dump_line(const json_t *v);

/* A JSON object's keys: exactly the NULL-terminated list (each present,
 * no other), or only keys from it. 0 when they are, -1 otherwise (and for
 * anything that is not an object). The one reader of every strict
 * document's key set: requests, manifests, indexes, profile tables. */
int jsonx_exact_keys(const json_t *obj, const char *const *keys);
int jsonx_only_keys(const json_t *obj, const char *const *allowed);

#endif
