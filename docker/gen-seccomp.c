/* gen-seccomp: write docker/seccomp.json, the seccomp profile the console's
 * container runs under (docs/docker.md, "The seccomp profile").
 *
 *   gen-seccomp OUTPUT      (OUTPUT "-" is stdout)
 *
 * The profile is made from the filters the code itself loads, so the two
 * cannot drift: this program is linked with the console's and the
 * sandbox's filter builders and with the libseccomp calls they make
 * wrapped (-Wl,--wrap): every rule they add is recorded, and the console's
 * seccomp_load() is not made. It builds the console's own filter (with and
 * without the network rules of S3/SFTP profiles) and the plugin filter, and
 * adds the calls made before the console confines itself (its start-up,
 * doctor, the plugin and policy commands, docker-init and runc's last steps
 * before exec), listed below with their reasons. The profile is the union:
 * a call allowed by any of them for some arguments is allowed for those
 * arguments; everything else answers EPERM, and clone3 ENOSYS (what glibc
 * needs to fall back to clone(2), whose flags a filter can inspect, and what
 * the console's container.seccomp check looks for). The filters themselves
 * stay in force inside the container: the profile is the outer bound.
 *
 * Only a plain build makes the profile: a sanitized build's console filter
 * allows ptrace and any mmap for the sanitizer runtime. */
#include "config.h"
#include "console/confine.h"
#include "sandbox/plugin_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <seccomp.h>

#define MAX_RULES 1024
#define MAX_ARGS 6

struct rule {
	int nr;
	uint32_t action;
	unsigned nargs;
	struct scmp_arg_cmp arg[MAX_ARGS];
};

static struct rule rules[MAX_RULES];
static size_t nrules;
static int overflow;
/* The plugin filter's stand-in for the plugin's own pid (patched in per
 * run): taken from the built program's pid slots. */
static uint64_t pid_placeholder;
static int have_placeholder;

static void
record(int nr, uint32_t action, unsigned n, const struct scmp_arg_cmp *a)
{
	struct rule *r;

	if (nrules == MAX_RULES || n > MAX_ARGS) {
		overflow = 1;
		return;
	}
	r = &rules[nrules++];
	memset(r, 0, sizeof(*r));
	r->nr = nr;
	r->action = action;
	r->nargs = n;
	if (n > 0)
		memcpy(r->arg, a, n * sizeof(*a));
}

/* The wrapped libseccomp entry points (see the linker flags in
 * docker/meson.build). */
int __real_seccomp_rule_add_array(scmp_filter_ctx ctx, uint32_t action,
    int syscall, unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array);
int __wrap_seccomp_rule_add_array(scmp_filter_ctx ctx, uint32_t action,
    int syscall, unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array);
int __wrap_seccomp_load(const scmp_filter_ctx ctx);

int
__wrap_seccomp_rule_add_array(scmp_filter_ctx ctx, uint32_t action,
    int syscall, unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array)
{
	record(syscall, action, arg_cnt, arg_array);
	return __real_seccomp_rule_add_array(ctx, action, syscall, arg_cnt,
	    arg_array);
}

int
__wrap_seccomp_load(const scmp_filter_ctx ctx)
{
	(void)ctx;
	return 0;	/* recorded, never loaded into this process */
}

/* ---- what runs before (or outside) the console's own filter ---- */

#define TIOCGDEV_CMD _IOR('T', 0x32, unsigned int)

struct extra {
	const char *name;
	int arg;		/* -1: no condition */
	uint64_t value;
	const char *why;
};

static const struct extra extras[] = {
	/* The console's start-up, before confine_console(): the listening
	 * socket (created 0660 in the clients group), the plugin filter's
	 * export (libseccomp 2.5 exports only to a descriptor), the sandbox
	 * making the console the plugins' subreaper, the terminal check. */
	{ "socket", 0, AF_UNIX, "the listening socket" },
	{ "bind", -1, 0, "the listening socket" },
	{ "listen", -1, 0, "the listening socket" },
	{ "umask", -1, 0, "the socket's mode" },
	{ "chmod", -1, 0, "the socket (0660); installed plugins (0755)" },
	{ "fchmod", -1, 0, "the socket (0660); installed plugins (0755)" },
	{ "fchmodat", -1, 0, "the socket (0660); installed plugins (0755)" },
	{ "chown", -1, 0, "the socket's group; runc: the terminal's owner" },
	{ "fchown", -1, 0, "the socket's group; runc: the terminal's owner" },
	{ "fchownat", -1, 0, "the socket's group; runc: the terminal's owner" },
	{ "memfd_create", -1, 0, "the plugin filter's export" },
	{ "prctl", 0, PR_SET_CHILD_SUBREAPER, "the sandbox; docker-init" },
	{ "ioctl", 1, TIOCGDEV_CMD, "terminal.device: the terminal's own "
	    "device (TIOCGDEV)" },
	/* The console account's commands: plugin install/update/remove and
	 * policy approve replace files atomically. */
	{ "rename", -1, 0, "plugin and policy commands" },
	{ "renameat", -1, 0, "plugin and policy commands" },
	{ "renameat2", -1, 0, "plugin and policy commands" },
	/* docker-init (tini) as pid 1: its child's process group, in the
	 * terminal's foreground. */
	{ "setpgid", -1, 0, "docker-init" },
	{ "ioctl", 1, TIOCSPGRP, "docker-init" },
	/* runc, between loading this profile and exec. Without
	 * no-new-privileges it loads the profile before it changes to the
	 * container's user and drops capabilities; the container must still
	 * start, so that the console can say why it refuses every plan
	 * (container.no-new-privs). These change nothing for a process with
	 * no capabilities. */
	{ "setgroups", -1, 0, "runc: the container user's groups" },
	{ "setgid", -1, 0, "runc: the container user" },
	{ "setuid", -1, 0, "runc: the container user" },
	{ "capget", -1, 0, "runc: dropping capabilities" },
	{ "capset", -1, 0, "runc: dropping capabilities" },
	{ "prctl", 0, PR_SET_KEEPCAPS, "runc: setuid keeping capabilities" },
	{ "prctl", 0, PR_CAPBSET_DROP, "runc: the bounding set" },
	{ "prctl", 0, PR_CAP_AMBIENT, "runc: the ambient set" },
	{ "fstatfs", -1, 0, "runc: the mounts" },
};

static int
add_extras(void)
{
	size_t i;

	for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		const struct extra *e = &extras[i];
		int nr = seccomp_syscall_resolve_name(e->name);
		struct scmp_arg_cmp c;

		if (nr == __NR_SCMP_ERROR) {
			fprintf(stderr, "gen-seccomp: unknown system call %s\n",
			    e->name);
			return -1;
		}
		memset(&c, 0, sizeof(c));
		if (e->arg >= 0) {
			c.arg = (unsigned)e->arg;
			/* ioctl commands on their low 32 bits, as the filters
			 * compare them (CVE-2019-10063) */
			if (strcmp(e->name, "ioctl") == 0) {
				c.op = SCMP_CMP_MASKED_EQ;
				c.datum_a = 0xffffffffu;
				c.datum_b = e->value & 0xffffffffu;
			} else {
				c.op = SCMP_CMP_EQ;
				c.datum_a = e->value;
			}
		}
		record(nr, SCMP_ACT_ALLOW, e->arg >= 0, &c);
	}
	return 0;
}

/* ---- the union ---- */

static int
is_allow(uint32_t a)
{
	return a == SCMP_ACT_ALLOW;
}

static int
is_errno(uint32_t a)
{
	return (a & 0xffff0000u) == SCMP_ACT_ERRNO(0);
}

static int
same_cmp(const struct scmp_arg_cmp *a, const struct scmp_arg_cmp *b)
{
	return a->arg == b->arg && a->op == b->op && a->datum_a == b->datum_a &&
	    a->datum_b == b->datum_b;
}

/* 1 when every comparison of a is also one of b's: whatever b allows, a
 * allows too, so b adds nothing to the union. */
static int
covers(const struct rule *a, const struct rule *b)
{
	unsigned i, j;

	for (i = 0; i < a->nargs; i++) {
		for (j = 0; j < b->nargs; j++)
			if (same_cmp(&a->arg[i], &b->arg[j]))
				break;
		if (j == b->nargs)
			return 0;
	}
	return 1;
}

static const char *
op_name(enum scmp_compare op)
{
	switch (op) {
	case SCMP_CMP_NE: return "SCMP_CMP_NE";
	case SCMP_CMP_LT: return "SCMP_CMP_LT";
	case SCMP_CMP_LE: return "SCMP_CMP_LE";
	case SCMP_CMP_EQ: return "SCMP_CMP_EQ";
	case SCMP_CMP_GE: return "SCMP_CMP_GE";
	case SCMP_CMP_GT: return "SCMP_CMP_GT";
	case SCMP_CMP_MASKED_EQ: return "SCMP_CMP_MASKED_EQ";
	default: return NULL;
	}
}

struct sys {
	char *name;
	int nr;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct sys *)a)->name,
	    ((const struct sys *)b)->name);
}

/* Print one entry of the "syscalls" list; 0, or -1 for a comparison the
 * profile format cannot carry. */
static int
print_rule(FILE *f, const char *name, const struct rule *r, int *first)
{
	unsigned i;

	fprintf(f, "%s\n    {\"names\": [\"%s\"], \"action\": \"SCMP_ACT_ALLOW\", "
	    "\"args\": [", *first ? "" : ",", name);
	*first = 0;
	for (i = 0; i < r->nargs; i++) {
		const char *op = op_name(r->arg[i].op);
		if (op == NULL)
			return -1;
		/* Docker's format: for SCMP_CMP_MASKED_EQ "value" is the mask
		 * and "valueTwo" the value compared, as libseccomp's datum_a
		 * and datum_b. */
		fprintf(f, "%s{\"index\": %u, \"value\": %llu, \"valueTwo\": %llu, "
		    "\"op\": \"%s\"}", i ? ", " : "", r->arg[i].arg,
		    (unsigned long long)r->arg[i].datum_a,
		    (unsigned long long)r->arg[i].datum_b, op);
	}
	fprintf(f, "]}");
	return 0;
}

static int
write_profile(FILE *f)
{
	static struct sys sys[MAX_RULES];
	size_t nsys = 0, i, j, k;
	int first = 1, ret = -1;

	for (i = 0; i < nrules; i++) {
		for (j = 0; j < nsys; j++)
			if (sys[j].nr == rules[i].nr)
				break;
		if (j < nsys)
			continue;
		sys[nsys].nr = rules[i].nr;
		sys[nsys].name = seccomp_syscall_resolve_num_arch(
		    SCMP_ARCH_X86_64, rules[i].nr);
		if (sys[nsys].name == NULL) {
			fprintf(stderr, "gen-seccomp: system call %d has no name\n",
			    rules[i].nr);
			goto out;
		}
		nsys++;
	}
	qsort(sys, nsys, sizeof(sys[0]), by_name);

	fprintf(f, "{\n  \"comment\": \"lockfile console container profile, "
	    "generated by docker/gen-seccomp from the console's and the plugin "
	    "sandbox's own filters (docs/docker.md); do not edit\",\n"
	    "  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n"
	    "  \"defaultErrnoRet\": %d,\n"
	    "  \"architectures\": [\"SCMP_ARCH_X86_64\"],\n"
	    "  \"syscalls\": [", EPERM);

	/* Calls allowed whatever their arguments: one entry. */
	fprintf(f, "\n    {\"names\": [");
	for (i = 0, k = 0; i < nsys; i++) {
		for (j = 0; j < nrules; j++)
			if (rules[j].nr == sys[i].nr && is_allow(rules[j].action) &&
			    rules[j].nargs == 0)
				break;
		if (j == nrules)
			continue;
		/* one name a line: a filter change is a one-line diff */
		fprintf(f, "%s\n      \"%s\"", k++ ? "," : "", sys[i].name);
	}
	fprintf(f, "\n    ], \"action\": \"SCMP_ACT_ALLOW\"}");
	first = 0;

	for (i = 0; i < nsys; i++) {
		int plain = 0, allowed = 0;
		uint32_t err = 0;

		for (j = 0; j < nrules; j++) {
			const struct rule *r = &rules[j];
			if (r->nr != sys[i].nr)
				continue;
			if (is_allow(r->action)) {
				allowed = 1;
				plain |= r->nargs == 0;
			} else if (is_errno(r->action)) {
				if (r->nargs != 0 || (err && err != r->action)) {
					fprintf(stderr, "gen-seccomp: %s: conditional "
					    "or conflicting errno rules\n",
					    sys[i].name);
					goto out;
				}
				err = r->action;
			} else {
				fprintf(stderr, "gen-seccomp: %s: an action the "
				    "profile does not carry\n", sys[i].name);
				goto out;
			}
		}
		if (plain)
			continue;
		if (!allowed) {
			/* Refused by every filter with the same errno: the
			 * profile answers it too (clone3: ENOSYS). */
			fprintf(f, ",\n    {\"names\": [\"%s\"], \"action\": "
			    "\"SCMP_ACT_ERRNO\", \"errnoRet\": %u}", sys[i].name,
			    err & 0xffffu);
			continue;
		}
		for (j = 0; j < nrules; j++) {
			const struct rule *r = &rules[j];
			if (r->nr != sys[i].nr || !is_allow(r->action))
				continue;
			/* Left out when another rule allows at least as much:
			 * the same rule from another list (the first stays),
			 * or one with a subset of its conditions (the plugin
			 * filter's narrower prlimit64 under the console's). */
			for (k = 0; k < nrules; k++)
				if (k != j && rules[k].nr == r->nr &&
				    is_allow(rules[k].action) &&
				    covers(&rules[k], r) &&
				    (k < j || !covers(r, &rules[k])))
					break;
			if (k < nrules)
				continue;
			for (k = 0; k < r->nargs; k++)
				if (have_placeholder &&
				    ((r->arg[k].datum_a & 0xffffffffu) ==
				    pid_placeholder ||
				    (r->arg[k].datum_b & 0xffffffffu) ==
				    pid_placeholder)) {
					fprintf(stderr, "gen-seccomp: %s: a per-run "
					    "pid rule with no plain rule over it\n",
					    sys[i].name);
					goto out;
				}
			if (print_rule(f, sys[i].name, r, &first) != 0) {
				fprintf(stderr, "gen-seccomp: %s: unknown "
				    "comparison\n", sys[i].name);
				goto out;
			}
		}
	}
	fprintf(f, "\n  ]\n}\n");
	ret = 0;
out:
	for (i = 0; i < nsys; i++)
		free(sys[i].name);
	return ret;
}

int
main(int argc, char **argv)
{
	struct bpf_program prog;
	const char *why = NULL;
	FILE *f;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-seccomp OUTPUT\n");
		return 64;
	}
#if LOCKFILE_SANITIZED
	fprintf(stderr, "gen-seccomp: a sanitized build's filters are not the "
	    "product's; use the plain build\n");
	return 70;
#endif
	if (confine_filter_load(0, &why) != 0 ||
	    confine_filter_load(1, &why) != 0 ||
	    plugin_filter_build(&prog, &why) != 0) {
		fprintf(stderr, "gen-seccomp: %s\n", why ? why : "filter failed");
		return 70;
	}
	if (prog.npid_slots > 0) {
		pid_placeholder = prog.insns[prog.pid_slots[0]].k;
		have_placeholder = 1;
	}
	plugin_filter_free(&prog);
	if (add_extras() != 0 || overflow) {
		fprintf(stderr, "gen-seccomp: too many rules\n");
		return 70;
	}
	f = strcmp(argv[1], "-") == 0 ? stdout : fopen(argv[1], "we");
	if (f == NULL) {
		perror(argv[1]);
		return 70;
	}
	ret = write_profile(f);
	if (fflush(f) != 0 || ferror(f))
		ret = -1;
	if (f != stdout && fclose(f) != 0)
		ret = -1;
	return ret == 0 ? 0 : 70;
}
