/* What the isolation checks share, below the store so the store's own
 * prompts run the same terminal checks as the console (term/check.h): who
 * the agents are, the report a check fills, one strict reader of
 * /proc/<pid>/status, a field splitter and the report builder. The /proc
 * checks themselves are the console's (console/isolation.h). */
#ifndef LOCKFILE_TERM_ISO_H
#define LOCKFILE_TERM_ISO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The console's socket holds at most this many allowed uids
 * (console/listener.h's LISTENER_MAX_ALLOWED is the same number). */
#define ISO_MAX_AGENTS 128

/* Who the checks protect against: every account allowed on the socket
 * except the console account itself (root is always refused there). A
 * value of its own (no pointers), built once by agents_build and read by
 * every check. */
struct iso_agents {
	uid_t console_uid;
	int have_clients_gid;
	gid_t clients_gid;
	uid_t allowed[ISO_MAX_AGENTS];	/* distinct, never 0, in the order
					 * agents_build added them */
	size_t nallowed;
	int everyone;		/* every account but console_uid and root
				 * counts as an agent: the store's prompts,
				 * which do not read the policy, so cannot
				 * know who is allowed (fail closed) */
};

/* What the agents are built from, as the console reads it (console.c)
 * and doctor repeats it (doctor.c): one builder, so the two cannot
 * disagree (docs/isolation.md, "proc.hidepid-gid"). */
struct agents_in {
	uid_t console_uid;	/* getuid() */
	int have_clients_gid;	/* the socket's group exists */
	gid_t clients_gid;
	const char *build_uids;	/* build-time ALLOWED_UIDS (config.h), or
				 * NULL */
	const uid_t *policy_uids;	/* the approved policy's allowed_uids */
	size_t npolicy;
	const char *cli_uids;	/* --allowed-uids, or NULL */
	int everyone;		/* see struct iso_agents */
};

enum agents_err {
	AGENTS_OK = 0,
	AGENTS_BAD_BUILD,	/* build_uids does not parse or overflows */
	AGENTS_BAD_CLI,		/* cli_uids does not parse or overflows */
};

/* Fill a from in: the build-time uids, then the policy's, then the
 * command line's, each added once. A list is comma-separated uids from 1
 * to 0x7ffffffe, every field one (an empty field is refused), shorter
 * than 1024 bytes; a list that breaks this, or would take the allowed
 * uids past ISO_MAX_AGENTS, or names console_uid (never an agent: it
 * would share the plugins' per-uid task count), is refused with its code
 * (the build-time list first). The policy's uids are checked by the policy
 * parser; one that is 0, console_uid or finds no room is skipped, as the
 * console's socket always skipped it. A refusal leaves a partly filled. */
enum agents_err agents_build(const struct agents_in *in,
    struct iso_agents *a);

#define ISO_MAX_CHECKS 16
#define ISO_DETAIL_MAX 200

struct iso_check {
	const char *name;	/* stable, documented in docs/isolation.md */
	int ok;
	char detail[ISO_DETAIL_MAX];	/* our text; values from files escaped */
};

struct iso_report {
	int container;		/* 1 when the declaration file exists */
	size_t n;
	struct iso_check c[ISO_MAX_CHECKS];
};

/* The first failing condition of r as "name: detail" into out. */
void isolation_first_failure(const struct iso_report *r, char *out,
    size_t outlen);

/* 1 when some allowed agent (with everyone: some account other than the
 * console account and root) may have group g (primary or supplementary),
 * 0 when none has, and 1 with who saying why when it cannot be known
 * (fail closed). */
int iso_agent_has_gid(const struct iso_agents *a, gid_t g, char *who,
    size_t wholen);

/* The fields of a status file the checks use. A field that is absent keeps
 * its "unknown" value (-1, or n* = 0). */
struct proc_status {
	char name[64];		/* escaped by the kernel for \n and \\ only */
	long long ppid;
	int nuid;
	unsigned long long uid[4];	/* real, effective, saved, fs */
	int nnspid;
	unsigned long long nspid_last;
	int seccomp;
	int nnp;
	int threads;
	int have_caps;
	unsigned long long capeff, capprm, capamb;
};

/* Read and parse the status file at path (e.g. "/proc/self/status").
 * 0, or -1 with errno (ENOENT or ESRCH: the task is gone; EINVAL: the file
 * does not parse). */
int proc_status_read(const char *path, struct proc_status *ps);

/* Append a condition to r; the detail is formatted from our own text and
 * values already escaped (iso_escape). */
void iso_add(struct iso_report *r, const char *name, int ok,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The next field of *cur up to sep, in place (separators are not merged:
 * an empty field is a field). NULL at the end. */
char *iso_tok_next(char **cur, char sep);

/* Escape untrusted bytes (process names, file text) for a detail. */
void iso_escape(const char *in, char *out, size_t outlen);

#endif
