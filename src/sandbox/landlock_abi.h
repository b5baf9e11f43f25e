/* Landlock ABI definitions up to ABI 7. Debian 12's linux-libc-dev stops at
 * ABI 3, so the newer rights, the wider ruleset attribute (net and scoped
 * fields) and the ABI 7 logging flags are defined here, in one place, with
 * the values from the kernel's include/uapi/linux/landlock.h. */
#ifndef LOCKFILE_LANDLOCK_ABI_H
#define LOCKFILE_LANDLOCK_ABI_H

#include <linux/types.h>
#include <sys/syscall.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

/* The full attribute as of ABI 6; the kernel accepts a size that covers
 * only the fields it knows, so we pass the size the running ABI needs. */
struct lf_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;	/* ABI 4 */
	__u64 scoped;			/* ABI 6 */
};

struct lf_path_beneath_attr {
	__u64 allowed_access;
	__s32 parent_fd;
} __attribute__((packed));

struct lf_net_port_attr {
	__u64 allowed_access;
	__u64 port;
} __attribute__((packed));

#define LF_CREATE_RULESET_VERSION	(1U << 0)
#define LF_RULE_PATH_BENEATH		1
#define LF_RULE_NET_PORT		2	/* ABI 4 */

/* Filesystem rights (ABI 1 unless noted). */
#define LF_FS_EXECUTE		(1ULL << 0)
#define LF_FS_WRITE_FILE	(1ULL << 1)
#define LF_FS_READ_FILE		(1ULL << 2)
#define LF_FS_READ_DIR		(1ULL << 3)
#define LF_FS_REMOVE_DIR	(1ULL << 4)
#define LF_FS_REMOVE_FILE	(1ULL << 5)
#define LF_FS_MAKE_CHAR		(1ULL << 6)
#define LF_FS_MAKE_DIR		(1ULL << 7)
#define LF_FS_MAKE_REG		(1ULL << 8)
#define LF_FS_MAKE_SOCK		(1ULL << 9)
#define LF_FS_MAKE_FIFO		(1ULL << 10)
#define LF_FS_MAKE_BLOCK	(1ULL << 11)
#define LF_FS_MAKE_SYM		(1ULL << 12)
#define LF_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LF_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LF_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */

#define LF_FS_ABI1 ((1ULL << 13) - 1)

/* Network rights (ABI 4). */
#define LF_NET_BIND_TCP		(1ULL << 0)
#define LF_NET_CONNECT_TCP	(1ULL << 1)

/* Scopes (ABI 6). */
#define LF_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#define LF_SCOPE_SIGNAL			(1ULL << 1)

/* landlock_restrict_self() flags (ABI 7). */
#define LF_RESTRICT_LOG_SAME_EXEC_OFF	(1U << 0)
#define LF_RESTRICT_LOG_NEW_EXEC_ON	(1U << 1)
#define LF_RESTRICT_LOG_SUBDOMAINS_OFF	(1U << 2)

#endif
