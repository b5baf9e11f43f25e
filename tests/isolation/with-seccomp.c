/* Test helper: run a command under a seccomp filter, as a container runtime
 * would start the console.
 *
 *   with-seccomp --docker    [--no-nnp] -- CMD [ARG...]
 *   with-seccomp --allow-all [--no-nnp] -- CMD [ARG...]
 *   with-seccomp --clone3-only [--no-nnp] -- CMD [ARG...]
 *   with-seccomp --no-landlock [--no-nnp] -- CMD [ARG...]
 *   with-seccomp --no-seccomp  [--no-nnp] -- CMD [ARG...]
 *   with-seccomp --landlock-eperm [--no-nnp] -- CMD [ARG...]
 *
 * --docker: allows everything but what Docker's default profile refuses
 * that matters here: clone3 answers ENOSYS, unshare (CAP_SYS_ADMIN only
 * there), the key calls, kexec, bpf, open_by_handle_at answer EPERM.
 * --allow-all: a filter that refuses nothing (Seccomp: 2, yet clone3
 * answers EINVAL). --clone3-only: a filter that refuses clone3 alone, the
 * one call the console used to probe (docs/docker.md). --no-landlock: the
 * kernel as one built without Landlock answers (the three landlock calls
 * ENOSYS). --landlock-eperm: a container profile that refuses them on a
 * kernel that has them (EPERM). --no-seccomp: as one built without seccomp (seccomp() ENOSYS,
 * prctl PR_GET_SECCOMP and PR_SET_SECCOMP EINVAL): the real kernel answers
 * for everything else, so doctor and the console meet the condition as on
 * such a kernel. no_new_privs is set
 * unless --no-nnp (which needs CAP_SYS_ADMIN: run it as root, before the
 * uid change). Exit 127 when the filter or the exec fails. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <seccomp.h>

int
main(int argc, char **argv)
{
	static const int eperm[] = {
		SCMP_SYS(unshare), SCMP_SYS(add_key), SCMP_SYS(keyctl), SCMP_SYS(request_key),
		SCMP_SYS(kexec_load), SCMP_SYS(bpf), SCMP_SYS(open_by_handle_at),
	};
	static const int landlock[] = {
		SCMP_SYS(landlock_create_ruleset), SCMP_SYS(landlock_add_rule),
		SCMP_SYS(landlock_restrict_self),
	};
	int docker = -1, nnp = 1, i, noll = 0, nosc = 0, only3 = 0;	/* noll: 0,
							 * 1 (ENOSYS) or 2 (EPERM) */
	scmp_filter_ctx ctx;
	size_t k;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--docker") == 0)
			docker = 1;
		else if (strcmp(argv[i], "--allow-all") == 0)
			docker = 0;
		else if (strcmp(argv[i], "--clone3-only") == 0)
			docker = 0, only3 = 1;
		else if (strcmp(argv[i], "--no-landlock") == 0)
			docker = 0, noll = 1;
		else if (strcmp(argv[i], "--landlock-eperm") == 0)
			docker = 0, noll = 2;
		else if (strcmp(argv[i], "--no-seccomp") == 0)
			docker = 0, nosc = 1;
		else if (strcmp(argv[i], "--no-nnp") == 0)
			nnp = 0;
		else
			docker = -2;
	}
	if (docker < 0 || i + 1 >= argc) {
		fprintf(stderr, "usage: with-seccomp --docker|--allow-all|"
		    "--clone3-only|--no-landlock|--landlock-eperm|--no-seccomp "
		    "[--no-nnp] -- CMD [ARG...]\n");
		return 64;
	}
	if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("with-seccomp: no_new_privs");
		return 127;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0)
		return 127;
	if (docker || only3) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
		    0) != 0)
			return 127;
	}
	if (docker) {
		for (k = 0; k < sizeof(eperm) / sizeof(eperm[0]); k++)
			if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), eperm[k], 0)
			    != 0)
				return 127;
	}
	for (k = 0; noll && k < sizeof(landlock) / sizeof(landlock[0]); k++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(noll == 2 ? EPERM :
		    ENOSYS), landlock[k], 0) != 0)
			return 127;
	if (nosc && (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(seccomp), 0) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
	    SCMP_A0(SCMP_CMP_EQ, PR_GET_SECCOMP)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
	    SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP)) != 0))
		return 127;
	if (seccomp_load(ctx) != 0) {
		fprintf(stderr, "with-seccomp: the filter cannot be loaded\n");
		return 127;
	}
	seccomp_release(ctx);
	execvp(argv[i + 1], argv + i + 1);
	perror("with-seccomp: exec");
	return 127;
}
