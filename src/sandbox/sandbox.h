/* The plugin sandbox: the module's face.
 *
 * Boundary (seed, "A plugin cannot read anything but its input, nor talk to
 * the network"): a plugin runs from an opened, hash-checked binary fd, under
 * Landlock (execute + read on its own binary only, no TCP, scoped signals and
 * abstract sockets), a seccomp allowlist, rlimits, no_new_privs, an empty
 * environment, its own session, stdin /dev/null, its input read-only on fd 3
 * and, for protocol 2, values on fd 6 and a detail channel on fd 7, each a
 * description of that run's own (a plugin's F_SETFL reaches no other run).
 * Nothing else. There is no unsandboxed path: without Landlock or seccomp every run
 * is OUT_SANDBOX_UNAVAILABLE. */
#ifndef LOCKFILE_SANDBOX_H
#define LOCKFILE_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <lockfile/plugin.h>

#include "sandbox/landlock.h"
#include "sandbox/plugin_filter.h"

/* Precise outcome classes (for the audit; an agent only ever sees 1, 0 or
 * plugin_error). Order is part of the audit format: append only. */
enum outcome {
	OUT_ANSWER_1 = 0,
	OUT_ANSWER_0,
	OUT_BAD_OUTPUT,
	OUT_OUTPUT_OVERFLOW,
	OUT_EXIT_NONZERO,
	OUT_SIGNALED,
	OUT_CPU_LIMIT,
	OUT_WALL_TIMEOUT,
	OUT_EXEC_FAILED,
	OUT_TAMPERED,
	OUT_SANDBOX_UNAVAILABLE,
	OUT__COUNT
};

const char *outcome_name(enum outcome o);
/* 1 for OUT_ANSWER_1, 0 for OUT_ANSWER_0, -1 for every error class. */
int outcome_bit(enum outcome o);

struct sandbox {
	int ready;			/* 1 when plugins may run */
	const char *why;		/* static reason when not ready */
	struct landlock_caps ll;
	struct bpf_program bpf;		/* compiled once, loaded per child */
	int sink;			/* write-only /dev/null the parent
					 * drains stderr into */
	rlim_t nproc;			/* account's task count + 512 */
	rlim_t core;			/* RLIMIT_CORE: 1, or 0 when our hard
					 * limit is 0 */
};

/* The plugin ABI's numbers (fds, caps, limits) are in
 * include/lockfile/plugin.h; this one is the sandbox's own. */
#define SANDBOX_NPROC_HEADROOM 512

struct plugin_limits {
	unsigned cpu_s;			/* RLIMIT_CPU soft limit */
	unsigned long long memory_bytes;/* RLIMIT_DATA; AS = this + 4 GiB */
	unsigned wall_ms;		/* enforced by the parent */
};

struct plugin_run {
	int binfd;		/* opened binary, hash already verified */
	int inputfd;		/* opened O_RDONLY */
	int protocol;		/* LF_PLUGIN_PROTOCOL_1 or _2 */
	const uint8_t *values;	/* protocol 2: bytes for fd 6 */
	size_t values_len;
	struct plugin_limits limits;
	const char *argv0;	/* a manifest name, shown in ps */
};

struct plugin_result {
	enum outcome outcome;
	unsigned long long stderr_bytes;
	char detail[LF_PLUGIN_DETAIL_MAX + 1];	/* fd 7, protocol 2 */
	size_t detail_len;
	int exit_code;		/* when it exited */
	int signo;		/* when it was killed by a signal */
	int exec_errno;		/* when exec failed */
	long long wall_ms;
	long long cpu_ms;
};

/* Probe Landlock and seccomp, compile the filter, open the stderr sink,
 * become a child subreaper. Refuses root. 0 when ready; -1 leaves sb->why set (and
 * sb->ready 0): every run then answers OUT_SANDBOX_UNAVAILABLE. */
int sandbox_open(struct sandbox *sb);
void sandbox_close(struct sandbox *sb);
/* Measure the account's tasks again (once per plan). 0 or -1. */
int sandbox_refresh_nproc(struct sandbox *sb);

/* Run one plugin. Always fills res; returns 0 (the outcome tells). */
int sandbox_run(struct sandbox *sb, const struct plugin_run *run,
    struct plugin_result *res);

/* Refuse what cannot run sandboxed before forking: not a static ELF for this
 * machine (scripts, dynamic executables, other architectures). 0 or -1. */
int elf_check_static(int fd, const char **why);

#endif
