/* Agent requests in fixed form. The parser (run in a separate sandboxed
 * process, lockfile-parse-worker: src/worker/parse_worker.c) turns one line of agent JSON into a
 * struct request; the console receives the struct over a pipe, checks it
 * with request_validate() and never parses agent JSON itself (OpenSSH's
 * privilege separation: the side that holds files and credentials rebuilds
 * what it approves from a fixed form, it does not trust the worker). */
#ifndef LOCKFILE_REQUEST_H
#define LOCKFILE_REQUEST_H

#include <stdint.h>

#include "protocol/table.h"

#define REQUEST_MAGIC 0x6c66726bU	/* "lfrk" */
#define REQUEST_NONCE_LEN 16
/* The worker's wire (src/worker/, console/parser_worker.c): its only
 * descriptor, a SOCK_SEQPACKET socket; each message in is a nonce then one
 * line, each message out one struct request. */
#define PARSE_WORKER_FD 3

enum req_id_kind { RID_NULL = 0, RID_INT, RID_STR };

struct req_input {
	char name[33];		/* manifest input name */
	char placeholder[33];	/* name inside ${...} */
};

struct req_plugin {
	char name[33];
	char version[21];	/* empty when not pinned */
	uint8_t ninputs;
	struct req_input inputs[PROTO_MAX_INPUTS];
};

struct request {
	uint32_t magic;
	/* Fresh from the console for each line it hands the worker, copied
	 * back in the struct: a worker cannot answer one request with the
	 * struct of another (an earlier one, another connection's). */
	uint8_t nonce[REQUEST_NONCE_LEN];
	uint32_t error;		/* enum lf_err: E_NONE, E_BAD_REQUEST or
				 * E_LITERAL_INPUT (the literal is dropped) */
	uint8_t id_kind;	/* enum req_id_kind */
	int64_t id_int;
	char id_str[PROTO_MAX_ID_STR + 1];
	uint32_t method;	/* enum lf_method */
	uint8_t has_profile, has_key, has_handle, has_plan, has_text;
	char profile[65];
	char key[PROTO_MAX_KEY + 1];	/* raw, as typed (NUL-free) */
	uint32_t key_len;
	char handle[40];
	char plan[40];
	char text[PROTO_MAX_TEXT + 1];	/* change.request, NUL-free */
	uint32_t text_len;
	uint32_t nplugins;
	uint8_t too_many_plugins;	/* more than PROTO_MAX_PLUGINS sent */
	struct req_plugin plugins[PROTO_MAX_PLUGINS];
};

/* Parse one line (without its newline), bound to nonce. Always fills req
 * (error set on failure; the id is kept when it could be read). */
void request_parse(const char *line, size_t len,
    const uint8_t nonce[REQUEST_NONCE_LEN], struct request *req);

/* Console side: is this the answer to the line sent with nonce, and is it
 * internally consistent (magic, enums, every string NUL-terminated, in its
 * alphabet, counts in range)? 0 or -1. */
int request_validate(const struct request *req,
    const uint8_t nonce[REQUEST_NONCE_LEN]);

/* The request's id as a new JSON value (null, integer or string). */
#include <jansson.h>
json_t *request_id_json(const struct request *req);

#endif
