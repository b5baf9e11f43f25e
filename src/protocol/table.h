/* The closed list: every method, every response shape, every error code,
 * its number and its static hint. Seed: "Everything the console sends to
 * the client is one of these, from closed lists." The console builds every
 * response from this table (response.h); the client checks every response
 * against it (check.h); the tests walk every response of every method
 * against it. A new response shape is a new row here, a test and a line in
 * docs/protocol.md. */
#ifndef LOCKFILE_TABLE_H
#define LOCKFILE_TABLE_H

#include <stddef.h>

#include <lockfile/plugin.h>

#include "protocol/shape.h"

enum lf_err {
	E_NONE = 0,
	E_BAD_REQUEST,
	E_PEER_REFUSED,
	E_SANDBOX_UNAVAILABLE,
	E_PROC_NOT_HIDDEN,
	E_UNKNOWN_PROFILE,
	E_KEY_OUTSIDE_PREFIX,
	E_TOO_MANY_PLUGINS,
	E_PLUGIN_NOT_INSTALLED,
	E_PLUGIN_TAMPERED,
	E_PLUGIN_YANKED,
	E_LITERAL_INPUT,
	E_INPUT_INVALID,
	E_ANSWER_CAP,
	E_HANDLE_EXPIRED,
	E_FETCH_FAILED,
	E_STALE,
	E_APPROVAL_DENIED,
	E_APPROVAL_TIMEOUT,
	E_TOO_MANY_PENDING,
	E__COUNT
};

struct proto_error {
	const char *name;	/* "E_KEY_OUTSIDE_PREFIX" */
	int code;		/* JSON-RPC error code, fixed forever */
	const char *hint;	/* static text, the whole of data.hint */
};

enum lf_method {
	M_STATUS = 0,
	M_SOURCES,
	M_FILE_PLUGINS,
	M_FILE_PLAN,
	M_FILE_RUN,
	M_FILE_RELEASE,
	M_CHANGE_REQUEST,
	M__COUNT
};

struct proto_method {
	const char *name;		/* wire name */
	const struct shape *result;	/* the result shape */
	/* Hub mode: the other result a plan may have, {status: "pending",
	 * plan, ticket, lock: "lockfile", instance, text} (docs/hub.md);
	 * NULL for the methods that never wait on a hub. */
	const struct shape *pending;
	const enum lf_err *errors;	/* errors this method may answer */
	size_t nerrors;
};

const struct proto_error *proto_error(enum lf_err e);
/* E_NONE when the name is not in the table. */
enum lf_err proto_error_by_name(const char *name);
const struct proto_method *proto_method(enum lf_method m);
/* M__COUNT when unknown. */
enum lf_method proto_method_by_name(const char *name);
int proto_method_may_fail(enum lf_method m, enum lf_err e);

/* Limits shared by both sides. */
#define PROTO_MAX_LINE		(64 * 1024)
#define PROTO_MAX_PLUGINS	64	/* per request (policy caps lower) */
#define PROTO_MAX_INPUTS	LF_PLUGIN_MAX_INPUTS	/* per plugin */
#define PROTO_MAX_KEY		1024
#define PROTO_MAX_TEXT		4096	/* change.request */
#define PROTO_MAX_ID_STR	64
#define PROTO_MAX_MANIFEST_TEXT	200
#define PROTO_MAX_LIST		256	/* sources, plugins */

#define PROTO_PREFIX_PLAN	"pl_"
#define PROTO_PREFIX_HANDLE	"f_"
#define PROTO_PREFIX_TICKET	"t_"

/* The pending answer's one text (the client prints it as it is). */
#define PROTO_PENDING_TEXT \
	"waiting for the human on lockhub: run this plan id (file.run) for " \
	"its answers"

#endif
