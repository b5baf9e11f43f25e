/* lockfile-parse-worker: the request parser in a process of its own
 * (docs/security.md, "The parser worker"; console/parser_worker.h is the
 * console's side). The console starts it, one per peer uid, with only a
 * socket on fd 3 and an empty environment. It holds nothing secret and
 * links only what it parses with (the protocol, jansson, libc; Landlock
 * and seccomp to confine itself): no libcurl, libssh, OpenSSL or store
 * is mapped in the process that reads hostile bytes (docs/hacking.md,
 * "Executables"). Before reading a byte it confines itself: no_new_privs,
 * an empty Landlock domain, a seccomp filter of read/write/memory/exit,
 * small rlimits. Each line arrives behind the console's nonce and is
 * answered with a fixed-form struct request carrying it back. */
#include "config.h"
#include "protocol/request.h"
#include "sandbox/landlock.h"
#include "lib/crypto.h"
#include "lib/exe.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <seccomp.h>

#define PROT_EXEC_MASK PROT_EXEC
#define WORKER_FD PARSE_WORKER_FD

static void
confine_worker(void)
{
	struct landlock_caps caps;
	const char *why;
	struct rlimit rl;
	scmp_filter_ctx ctx;
	int rs;
	static const int allowed[] = {
		SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(recvfrom),
		SCMP_SYS(sendto), SCMP_SYS(brk), SCMP_SYS(munmap),
		SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(exit),
		SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn), SCMP_SYS(futex),
	};
	size_t i;

	/* A sanitizer runtime has already reserved terabytes of shadow memory:
	 * an address-space cap is meaningful only without it. */
	rl.rlim_cur = rl.rlim_max = 256ULL << 20;
	if (!LOCKFILE_SANITIZED && setrlimit(RLIMIT_AS, &rl) != 0)
		fatal_errno("setrlimit");
	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		fatal_errno("setrlimit");
	/* RLIMIT_CORE 1, not 0, as the plugins get (docs/sandbox.md): no
	 * file core fits in a byte, and a piped core_pattern, which ignores
	 * the limit (and, with fs.suid_dumpable=2, PR_SET_DUMPABLE 0 too), is
	 * skipped for exactly 1. 0 only when the hard limit is already 0. */
	if (getrlimit(RLIMIT_CORE, &rl) != 0)
		fatal_errno("getrlimit");
	rl.rlim_cur = rl.rlim_max = rl.rlim_max >= 1 ? 1 : 0;
	if (setrlimit(RLIMIT_CORE, &rl) != 0)
		fatal_errno("setrlimit");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		fatal_errno("prctl");
	/* An empty Landlock domain: no path at all, when the kernel has it
	 * (seccomp below refuses open anyway). */
	if (landlock_probe(&caps, &why) == 0) {
		rs = landlock_ruleset_create(&caps);
		if (rs < 0 || landlock_enforce(rs, &caps) != 0)
			fatal_errno("landlock");
	}
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (ctx == NULL)
		fatal("seccomp_init");
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0) != 0)
			fatal("seccomp_rule_add");
	/* malloc maps memory; nothing executable. */
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC_MASK, 0)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC_MASK, 0)) != 0)
		fatal("seccomp_rule_add");
	if (seccomp_load(ctx) != 0)
		fatal("seccomp_load");
	seccomp_release(ctx);
}

int
main(int argc, char **argv)
{
	static uint8_t msg[REQUEST_NONCE_LEN + PROTO_MAX_LINE + 1];
	static struct request req;
	uint32_t seed;

	exe_start(LF_EXE_PARSE_WORKER);
	if (fcntl(WORKER_FD, F_GETFD) < 0)
		fatal("started by the console only");
	close_fds_from(WORKER_FD + 1);
	/* jansson would read /dev/urandom for its hash seed on first use: seed
	 * it now, before the filter refuses open. */
	random_bytes(&seed, sizeof(seed));
	json_object_seed(seed ? seed : 1);
	confine_worker();
	for (;;) {
		ssize_t n = recv(WORKER_FD, msg, sizeof(msg), MSG_TRUNC);
		size_t len;

		if (n < REQUEST_NONCE_LEN)
			_exit(n == 0 ? 0 : 1);
		len = (size_t)n - REQUEST_NONCE_LEN;
		if (len > PROTO_MAX_LINE)
			len = PROTO_MAX_LINE + 1;	/* over the cap: parse refuses */
		request_parse((const char *)msg + REQUEST_NONCE_LEN, len, msg,
		    &req);
		if (send(WORKER_FD, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
			_exit(1);
		explicit_bzero(msg, sizeof(msg));
	}
}
