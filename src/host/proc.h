/* One strict reader of /proc/PID/status, for the isolation checks (the
 * container's tasks, the console's own seccomp, no_new_privs and
 * capabilities, the terminal's ancestry) and the sandbox's task count
 * (sandbox/spawn.c, RLIMIT_NPROC). */
#ifndef LOCKFILE_HOST_PROC_H
#define LOCKFILE_HOST_PROC_H

/* A status file is read with one read() of this many bytes (about 1.5 KiB
 * in practice: the kernel prints it whole into one buffer, so one read
 * gets it all). Only whole lines are parsed: past a longer file's cut
 * (a Groups: list of thousands of groups) the fields stay unknown, which
 * every check that needs them takes as a failure. Name, PPid and Uid come
 * before Groups. */
#define PROC_STATUS_MAX 16384

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

/* Read and parse the status file at path (e.g. "/proc/self/status"),
 * relative to dirfd (AT_FDCWD: as open(2)); the last component is never
 * followed. 0, or -1 with errno (ENOENT or ESRCH: the task is gone;
 * EINVAL: the file does not parse or has no Uid: line). */
int proc_status_readat(int dirfd, const char *path, struct proc_status *ps);
int proc_status_read(const char *path, struct proc_status *ps);

#endif
