/* The parser worker and its client (see parser_worker.h). */
#include "config.h"
#include "console/parser_worker.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKER_FD PARSE_WORKER_FD
#define WORKER_TIMEOUT_MS 2000

/* Start one worker: fork and exec lockfile-parse-worker (opened at
 * start); the parent does not wait for it (its first answer does). */
static int
spawn(struct parser *p, struct worker *w)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		char *const argv[] = { LF_EXE_PARSE_WORKER, NULL };
		char *const envp[] = { NULL };
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		/* Lift both fds above the targets first: either may sit on 0..3
		 * (and dup2 onto itself would keep close-on-exec). */
		int exe = fcntl(p->exefd, F_DUPFD_CLOEXEC, 10);
		int sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);

		if (null < 0 || exe < 0 || sock < 0 || dup2(null, 0) < 0 ||
		    dup2(null, 1) < 0 || dup2(null, 2) < 0 ||
		    dup2(sock, WORKER_FD) != WORKER_FD)
			_exit(127);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		close_fds_except(WORKER_FD + 1, &exe, 1);
		syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
		_exit(127);
	}
	close(sv[1]);
	w->sock = sv[0];
	w->pid = pid;
	return 0;
}

static void
reap(struct worker *w)
{
	if (w->sock >= 0)
		close(w->sock);
	w->sock = -1;
	if (w->pid > 0) {
		(void)kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	w->pid = 0;
}

void
parser_start(struct parser *p, int exefd)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < PARSER_MAX_WORKERS; i++)
		p->w[i].sock = -1;
	p->exefd = exefd;
}

void
parser_begin(struct parser *p, uid_t uid)
{
	struct worker *w = NULL, *oldest = &p->w[0];
	size_t i;

	for (i = 0; i < PARSER_MAX_WORKERS; i++) {
		if (p->w[i].used != 0 && p->w[i].uid == uid) {
			w = &p->w[i];
			break;
		}
		if (p->w[i].used < oldest->used)
			oldest = &p->w[i];
	}
	if (w == NULL) {
		/* A peer uid seen for the first time (or again after it was
		 * evicted) gets a fresh worker, started at its first line. */
		w = oldest;
		reap(w);
		w->uid = uid;
	}
	w->used = ++p->tick;
	p->cur = w;
}

void
parser_end(struct parser *p)
{
	p->cur = NULL;
}

void
parser_stop(struct parser *p)
{
	size_t i;

	for (i = 0; i < PARSER_MAX_WORKERS; i++)
		reap(&p->w[i]);
	if (p->exefd >= 0)
		close(p->exefd);
	p->exefd = -1;
	p->cur = NULL;
}

static void
bad_request(struct request *req)
{
	memset(req, 0, sizeof(*req));
	req->magic = REQUEST_MAGIC;
	req->error = E_BAD_REQUEST;
	req->method = M__COUNT;
	req->id_kind = RID_NULL;
}

void
parser_parse(struct parser *p, const char *line, size_t len,
    struct request *req)
{
	static uint8_t msg[REQUEST_NONCE_LEN + PROTO_MAX_LINE + 1];
	uint8_t nonce[REQUEST_NONCE_LEN];
	struct worker *w = p->cur;
	struct pollfd pfd;
	ssize_t n;

	ASSERT(w != NULL);	/* between parser_begin() and parser_end() */
	if (w->sock < 0 && spawn(p, w) != 0) {
		logit_errno("parser worker cannot be started");
		bad_request(req);
		return;
	}
	if (len > PROTO_MAX_LINE)
		len = PROTO_MAX_LINE;	/* read_line never hands more */
	/* The line goes out behind a fresh nonce; only a struct carrying it
	 * back is this line's answer. */
	random_bytes(nonce, sizeof(nonce));
	memcpy(msg, nonce, sizeof(nonce));
	memcpy(msg + sizeof(nonce), line, len);
	n = send(w->sock, msg, sizeof(nonce) + len, MSG_NOSIGNAL);
	explicit_bzero(msg, sizeof(nonce) + len);
	if (n < 0)
		goto broken;
	pfd.fd = w->sock;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, WORKER_TIMEOUT_MS) != 1)
		goto broken;
	n = recv(w->sock, req, sizeof(*req), MSG_TRUNC);
	if (n != (ssize_t)sizeof(*req))
		goto broken;
	if (request_validate(req, nonce) != 0) {
		logit("parser worker answered an inconsistent request");
		goto broken;
	}
	return;
broken:
	reap(w);
	p->restarts++;
	bad_request(req);
}
