/* Checking a console response against the closed list (client side, and the
 * tests' helper). A response is accepted only if its envelope is exact, its
 * result fits the method's one shape and the rules that tie fields together
 * (a warning exactly when unofficial, an error exactly when there is no
 * result), and it answers the request that was sent (same id, the profile
 * asked about, the plugins asked for, only placeholders the agent named).
 * An error is accepted only if its code, number and hint are the table's and
 * the method may answer it. Anything else is "console error". */
#ifndef LOCKFILE_CHECK_H
#define LOCKFILE_CHECK_H

#include <jansson.h>

#include "protocol/table.h"

struct proto_expect {
	enum lf_method method;
	const json_t *id;	/* the id that was sent */
	const json_t *params;	/* the params that were sent, or NULL */
};

struct proto_reply {
	int is_error;
	enum lf_err err;	/* when is_error */
	json_t *result;		/* when !is_error; owned */
	char where[160];	/* first mismatch, for tests and logs */
};

/* 0 when the line is an acceptable answer to exp (a result or a listed
 * error), -1 otherwise (console error). */
int proto_check_reply(const char *line, size_t len,
    const struct proto_expect *exp, struct proto_reply *out);
void proto_reply_free(struct proto_reply *r);

/* Context-free rules of a result (shape + field relations). The console
 * asserts these on every response it builds. 0 or -1. */
int proto_check_result(enum lf_method m, const json_t *result, char *where,
    size_t wherelen);

/* 1 when result is the method's pending shape (hub mode). */
int proto_is_pending(enum lf_method m, const json_t *result);

/* Placeholder name inside "${name}", copied to out (33 bytes); 0 or -1. */
int proto_placeholder(const char *s, char *out, size_t outlen);

#endif
