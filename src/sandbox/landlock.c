/* Landlock rulesets (see landlock.h). Boundary: a plugin reads and executes
 * its own binary and touches no other path; no TCP; no signal or abstract
 * Unix socket outside its domain. Rights the running ABI does not know are
 * masked away; rights lockfile requires are never masked: without them the
 * sandbox is unavailable (fail closed). */
#include "sandbox/landlock.h"
#include "sandbox/landlock_abi.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rights that may be granted on a regular file (directory rights on a file
 * rule make landlock_add_rule fail with EINVAL). */
#define FILE_RIGHTS (LF_FS_EXECUTE | LF_FS_WRITE_FILE | LF_FS_READ_FILE | \
    LF_FS_TRUNCATE | LF_FS_IOCTL_DEV)

static int
ll_create(const struct lf_ruleset_attr *attr, size_t size, uint32_t flags)
{
	return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

int
landlock_probe(struct landlock_caps *caps, const char **why)
{
	int abi = ll_create(NULL, 0, LF_CREATE_RULESET_VERSION);

	caps->abi = 0;
	caps->fs = caps->net = caps->scoped = 0;
	caps->restrict_flags = 0;
	if (abi < 0) {
		/* A kernel without Landlock answers ENOSYS; EPERM comes from
		 * a seccomp filter above us, e.g. a container profile that
		 * predates Landlock (docs/docker.md; issue 32) */
		*why = errno == EOPNOTSUPP ? "landlock is disabled in this kernel"
		    : errno == EPERM ? "landlock is refused by a seccomp filter "
		    "this process runs under (a container's profile: allow "
		    "landlock_create_ruleset, landlock_add_rule and "
		    "landlock_restrict_self in it)"
		    : "landlock is not supported by this kernel";
		return -1;
	}
	caps->abi = abi;
	caps->fs = LF_FS_ABI1;		/* required: every ABI 1 right */
	if (abi >= 2)
		caps->fs |= LF_FS_REFER;
	if (abi >= 3)
		caps->fs |= LF_FS_TRUNCATE;
	if (abi >= 4)
		caps->net = LF_NET_BIND_TCP | LF_NET_CONNECT_TCP;
	if (abi >= 5)
		caps->fs |= LF_FS_IOCTL_DEV;
	if (abi >= 6)
		caps->scoped = LF_SCOPE_ABSTRACT_UNIX_SOCKET | LF_SCOPE_SIGNAL;
	if (abi >= 7)
		caps->restrict_flags = LF_RESTRICT_LOG_NEW_EXEC_ON;

	/* A kernel may report an ABI yet refuse one of its rights (seen on
	 * distribution backports): try the exact ruleset once and fail closed
	 * rather than silently dropping a right. */
	int fd = landlock_ruleset_create(caps);
	if (fd < 0) {
		*why = "landlock refused the ruleset lockfile requires";
		caps->abi = 0;
		return -1;
	}
	close(fd);
	return 0;
}

int
landlock_ruleset_create(const struct landlock_caps *caps)
{
	struct lf_ruleset_attr attr = {
		.handled_access_fs = caps->fs,
		.handled_access_net = caps->net,
		.scoped = caps->scoped,
	};
	size_t size;

	if (caps->abi < 1)
		return -1;
	if (caps->abi >= 6)
		size = sizeof(attr);
	else if (caps->abi >= 4)
		size = offsetof(struct lf_ruleset_attr, scoped);
	else
		size = offsetof(struct lf_ruleset_attr, handled_access_net);
	return ll_create(&attr, size, 0);
}

int
landlock_allow_fd(int ruleset, const struct landlock_caps *caps, int fd,
    uint64_t rights)
{
	struct lf_path_beneath_attr pb;
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -1;
	rights &= caps->fs;
	if (!S_ISDIR(st.st_mode))
		rights &= FILE_RIGHTS;
	pb.allowed_access = rights;
	pb.parent_fd = fd;
	return (int)syscall(SYS_landlock_add_rule, ruleset, LF_RULE_PATH_BENEATH,
	    &pb, 0);
}

int
landlock_allow_connect_port(int ruleset, const struct landlock_caps *caps,
    unsigned port)
{
	struct lf_net_port_attr np = {
		.allowed_access = LF_NET_CONNECT_TCP,
		.port = port,
	};

	if (!(caps->net & LF_NET_CONNECT_TCP) || port == 0 || port > 65535) {
		errno = EINVAL;
		return -1;
	}
	return (int)syscall(SYS_landlock_add_rule, ruleset, LF_RULE_NET_PORT,
	    &np, 0);
}

int
landlock_enforce(int ruleset, const struct landlock_caps *caps)
{
	int r = (int)syscall(SYS_landlock_restrict_self, ruleset,
	    caps->restrict_flags);
	int e = errno;

	close(ruleset);
	errno = e;
	return r;
}
