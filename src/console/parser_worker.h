/* The request parser in its own process. Boundary (docs/security.md): the
 * process that holds credentials and files never runs a parser over agent
 * bytes. The console executes lockfile-parse-worker (src/worker/, an
 * executable of its own that links only what it parses with) with only a
 * socket on fd 3: a fresh image that holds
 * nothing secret, confines itself (no_new_privs, an empty Landlock ruleset,
 * a seccomp filter of read/write/memory/exit, small rlimits) before reading
 * a byte, and answers each line with a fixed-form struct request that the
 * console validates field by field. Each peer uid has a worker of its
 * own, and each line goes out with a fresh nonce the struct must carry
 * back. */
#ifndef LOCKFILE_PARSER_WORKER_H
#define LOCKFILE_PARSER_WORKER_H

#include <sys/types.h>

#include "protocol/request.h"

#define PARSER_MAX_WORKERS 16

struct worker {
	int sock;		/* console's end, SOCK_SEQPACKET; -1: not started */
	pid_t pid;
	uid_t uid;		/* the only peer whose lines it parses */
	unsigned long long used;	/* 0: free; else last use (LRU) */
};

struct parser {
	struct worker w[PARSER_MAX_WORKERS];
	struct worker *cur;	/* the current connection's peer's worker */
	unsigned long long tick;
	int exefd;		/* lockfile-parse-worker, opened at start */
	unsigned restarts;
};

/* Take the worker executable the console opened at start (before its
 * confinement, checked as its own binary is: console.c); parser_stop()
 * closes it. */
void parser_start(struct parser *p, int exefd);
void parser_stop(struct parser *p);

/* One worker per peer uid: a worker that one agent's bytes compromised
 * never sees another agent's requests, nor answers them. parser_begin()
 * picks the connection's peer's worker (a fresh one for a uid not seen
 * yet, evicting the least recently used beyond PARSER_MAX_WORKERS);
 * parser_end() leaves it for that peer's next connection. Each worker is
 * started at its first line, from a fresh exec: it never holds anything
 * of the console's. */
void parser_begin(struct parser *p, uid_t uid);
void parser_end(struct parser *p);

/* Parse one line. On any worker failure (death, timeout, an invalid
 * struct, a struct not bound to this line's nonce) the request is answered
 * as E_BAD_REQUEST and the worker is replaced. Never fails otherwise. */
void parser_parse(struct parser *p, const char *line, size_t len,
    struct request *req);

#endif
