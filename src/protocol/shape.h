/* A small schema language for the closed list of responses. A shape says
 * exactly what a JSON value may be: an object with these keys and no
 * others, an array of at most N items of one shape, an id of one prefix,
 * a name of a fixed alphabet, manifest text without control characters, a
 * number in a range. The console asserts every response it builds against
 * its shape; the client refuses anything that does not fit. */
#ifndef LOCKFILE_SHAPE_H
#define LOCKFILE_SHAPE_H

#include <stddef.h>
#include <jansson.h>

enum shape_kind {
	SK_OBJECT,	/* exactly the listed fields (required or optional) */
	SK_ARRAY,	/* items of one shape, at most max_items */
	SK_BOOL,	/* true or false */
	SK_TRUE,	/* the constant true */
	SK_INT,		/* an integer in [min, max] */
	SK_ENUM,	/* one of the listed strings */
	SK_ID,		/* prefix + 32 lowercase hex digits */
	SK_NAME,	/* plugin name: [a-z][a-z0-9-]{0,31} */
	SK_PROFILE,	/* profile name: [a-z0-9][a-z0-9_-]{0,63} */
	SK_INPUT_NAME,	/* input / placeholder name: [a-z][a-z0-9_]{0,31} */
	SK_VERSION,	/* MAJOR.MINOR.PATCH, no leading zeros */
	SK_TEXT,	/* printable ASCII, 1..max bytes (manifest text, hints) */
	SK_BIT,		/* 1, 0 or null */
};

struct shape;

struct shape_field {
	const char *key;
	int required;
	const struct shape *shape;
};

struct shape {
	enum shape_kind kind;
	const struct shape_field *fields;	/* SK_OBJECT */
	size_t nfields;
	const struct shape *items;		/* SK_ARRAY */
	size_t max_items;
	long long min, max;			/* SK_INT; SK_TEXT max length */
	const char *const *values;		/* SK_ENUM, NULL-terminated */
	const char *prefix;			/* SK_ID */
};

/* 0 when v fits s. On a mismatch, -1 and where[] names the first place
 * that does not fit (e.g. "answers[1].result"): for tests and the audit,
 * never shown to an agent. */
int shape_check(const struct shape *s, const json_t *v, char *where,
    size_t wherelen);

/* The alphabets, exposed for the request parser and the store. */
int name_is_plugin(const char *s);
int name_is_profile(const char *s);
int name_is_input(const char *s);
int version_is_valid(const char *s);
int text_is_manifest(const char *s, size_t max);

#endif
