/* The facts only observable before the console confines itself (see
 * host/snapshot.h): its own seccomp filter and no_new_privs would mask the
 * container's. */
#include "host/snapshot.h"
#include "host/proc.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Whether a filter refuses calls that both the shipped profile and
 * Docker's default refuse, each asked with arguments on which the kernel
 * itself answers otherwise, and each harmless when let through: clone3 with
 * no arguments (the kernel: EINVAL; Docker: ENOSYS), unshare(0) (a no-op
 * that succeeds; both profiles: EPERM without CAP_SYS_ADMIN), keyctl with
 * an unknown operation (EOPNOTSUPP) and add_key with no type (EFAULT; the
 * key calls are EPERM in both). One refused call alone, say clone3, is not
 * enough (docs/docker.md). Returns 1 when every probe was refused; else 0
 * with *passed naming the first the kernel answered. */
static int
seccomp_probe(int *clone3_errno, const char **passed)
{
	long ret;

	errno = 0;
	ret = syscall(SYS_clone3, NULL, 0);
	*clone3_errno = errno;
	if (!(ret < 0 && errno != EINVAL)) {
		*passed = "clone3";
		return 0;
	}
	if (syscall(SYS_unshare, 0) == 0) {
		*passed = "unshare";
		return 0;
	}
	errno = 0;
	if (!(syscall(SYS_keyctl, -1L, 0L, 0L, 0L, 0L) < 0 &&
	    errno != EOPNOTSUPP)) {
		*passed = "keyctl";
		return 0;
	}
	errno = 0;
	if (!(syscall(SYS_add_key, NULL, NULL, NULL, 0L, 0L) < 0 &&
	    errno != EFAULT)) {
		*passed = "add_key";
		return 0;
	}
	*passed = NULL;
	return 1;
}

void
isolation_snapshot(struct iso_snapshot *s)
{
	struct proc_status ps;

	memset(s, 0, sizeof(*s));
	s->seccomp_mode = s->nnp = -1;
	if (proc_status_read("/proc/self/status", &ps) == 0) {
		s->seccomp_mode = ps.seccomp;
		s->nnp = ps.nnp;
	}
	s->filter_refuses = seccomp_probe(&s->probe_errno, &s->probe_passed);
	s->taken = 1;
}
