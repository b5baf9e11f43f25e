/* The request parser in its own process. Boundary (SPEC section 4): the
 * process that holds credentials and files never runs a parser over agent
 * bytes. The console re-executes its own binary as `lockfile
 * __parse-worker` with only a socket on fd 3: a fresh image that holds
 * nothing secret, confines itself (no_new_privs, an empty Landlock ruleset,
 * a seccomp filter of read/write/memory/exit, small rlimits) before reading
 * a byte, and answers each line with a fixed-form struct request that the
 * console validates field by field. */
#ifndef LOCKFILE_PARSER_WORKER_H
#define LOCKFILE_PARSER_WORKER_H

#include <sys/types.h>

#include "protocol/request.h"

struct parser {
	int sock;	/* console's end, SOCK_SEQPACKET */
	pid_t pid;
	int exefd;	/* our own binary, opened at start */
	unsigned restarts;
};

/* Open our own binary once (before anything can replace it) and start the
 * worker. 0 or -1. */
int parser_start(struct parser *p);
void parser_stop(struct parser *p);

/* Parse one line. On any worker failure (death, timeout, an invalid
 * struct) the request is answered as E_BAD_REQUEST and the worker is
 * replaced. Never fails otherwise. */
void parser_parse(struct parser *p, const char *line, size_t len,
    struct request *req);

/* `lockfile __parse-worker`: the worker's main. */
int cmd_parse_worker(int argc, char **argv);

#endif
