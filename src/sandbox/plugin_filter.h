/* The plugins' seccomp filter: an allowlist compiled once with libseccomp
 * in the parent, exported as BPF, and loaded in each child just before
 * exec, behind a hand-built exec guard in the same program. The only
 * per-child parts are the process's own pid in the signal rules and the
 * exec guard's key, patched into the program in the child. */
#ifndef LOCKFILE_PLUGIN_FILTER_H
#define LOCKFILE_PLUGIN_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/filter.h>

struct bpf_program {
	/* One program: the hand-built exec guard (execve only from the one
	 * syscall instruction in plugin_exec() and only with the run's key in
	 * the registers execve ignores, so a plugin's own execve cannot probe
	 * which paths exist: the lookup happens before Landlock refuses),
	 * then libseccomp's allowlist. */
	struct sock_filter *insns;
	size_t len;
	/* indexes of instructions whose constant is the placeholder pid
	 * (libseccomp may share one comparison between several calls) */
	size_t *pid_slots;
	size_t npid_slots;
};

/* The per-run key of the exec guard: 128 random bits, drawn in the child,
 * passed in r10 and r8 (execve's unused argument registers 4 and 5). After
 * the exec it exists only inside the kernel's copy of the filter, which the
 * plugin cannot read: knowing the launcher's address (ASLR only hides it;
 * it is the same for every child of one console) is not enough. */
#define EXEC_KEY_WORDS 4

/* Build and export the filter. 0, or -1 with a static reason. */
int plugin_filter_build(struct bpf_program *prog, const char **why);
void plugin_filter_free(struct bpf_program *prog);

/* Child-safe: patch the pid and the exec key into prog (a private copy
 * after fork) and install the program on the calling process. 0 or -1
 * with errno. */
int plugin_filter_load(struct bpf_program *prog, pid_t self,
    const uint32_t key[EXEC_KEY_WORDS]);

/* Child-safe: the one execve the filters allow, made with the same key
 * (returns only on failure, with -errno). */
long plugin_exec(const char *path, char *const argv[], char *const envp[],
    const uint32_t key[EXEC_KEY_WORDS]);

#endif
