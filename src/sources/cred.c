/* Source credentials: a file in the console's home or a pinned command
 * (see cred.h). */
#include "sources/cred.h"
#include "sources/ptable.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#define CRED_DEFAULT_BYTES (16 * 1024)
#define CRED_DEFAULT_TIMEOUT_S 30
#define CRED_MAX_ARG_LEN 1024
#define CRED_MAX_VALUE_LEN 1024

/* What a load needs, from the validated table; gone once loaded. */
struct spec {
	const char *file;		/* file: path below home, no "~/" */
	const char *argv[CRED_MAX_ARGS + 1];	/* command */
	const json_t *env, *pass;
	uint8_t sha256[SHA256_LEN];
	unsigned timeout_s;
	size_t max_bytes;
};

struct cred {
	char *buf;			/* sodium_malloc'ed, max_bytes + 1 */
	size_t len;
	size_t split;			/* 0, or where cred_split2 cut */
};

static int
env_name_ok(const char *s)
{
	size_t i;

	if (s[0] == '\0' || strlen(s) > 64 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' &&
		    s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

static int
validate_command(const json_t *t, const char **why)
{
	const json_t *cmd = json_object_get(t, "command");
	const json_t *v, *x;
	const char *k;
	char hex[SHA256_HEX_LEN + 2];
	size_t i;

	*why = "credentials.command must be an array of 1 to 32 strings "
	    "(at most 1024 bytes each, no NUL) starting with an absolute path";
	if (!json_is_array(cmd) || json_array_size(cmd) < 1 ||
	    json_array_size(cmd) > CRED_MAX_ARGS)
		return -1;
	json_array_foreach(cmd, i, v) {
		if (!json_is_string(v) || json_string_length(v) >
		    CRED_MAX_ARG_LEN || strlen(json_string_value(v)) !=
		    json_string_length(v))
			return -1;
	}
	if (pt_abs_path_ok(json_string_value(json_array_get(cmd, 0)), 0) != 0)
		return -1;
	*why = "credentials.sha256 (64 lowercase hex digits: the pinned hash "
	    "of the command's binary) is required with a command";
	if (pt_str(t, "sha256", hex, sizeof(hex)) != 1 ||
	    strlen(hex) != SHA256_HEX_LEN || !is_lower_hex(hex, SHA256_HEX_LEN))
		return -1;
	v = json_object_get(t, "env");
	*why = "credentials.env must be a table of at most 16 NAME = \"value\" "
	    "(names [A-Z_][A-Z0-9_]*, values at most 1024 bytes, no NUL)";
	if (v != NULL) {
		if (!json_is_object(v) || json_object_size(v) > CRED_MAX_ENV)
			return -1;
		json_object_foreach((json_t *)v, k, x) {
			if (!env_name_ok(k) || !json_is_string(x) ||
			    json_string_length(x) > CRED_MAX_VALUE_LEN ||
			    strlen(json_string_value(x)) != json_string_length(x))
				return -1;
		}
	}
	v = json_object_get(t, "pass_env");
	*why = "credentials.pass_env must be an array of at most 16 variable "
	    "names ([A-Z_][A-Z0-9_]*), none also in env";
	if (v != NULL) {
		const json_t *env = json_object_get(t, "env");
		if (!json_is_array(v) || json_array_size(v) > CRED_MAX_ENV)
			return -1;
		json_array_foreach(v, i, x) {
			if (!json_is_string(x) || !env_name_ok(json_string_value(x)))
				return -1;
			if (env != NULL && json_object_get(env,
			    json_string_value(x)) != NULL)
				return -1;
		}
	}
	return 0;
}

int
cred_validate(const json_t *t, const char **why)
{
	static const char *const keys[] = { "file", "command", "sha256", "env",
	    "pass_env", "timeout_s", "max_bytes", NULL };
	unsigned long long x;
	char path[4096];
	int has_file, has_cmd;

	*why = "credentials must be a table with file, or command and sha256 "
	    "(and optionally env, pass_env, timeout_s, max_bytes)";
	if (!json_is_object(t) || jsonx_only_keys(t, keys) != 0)
		return -1;
	has_file = json_object_get(t, "file") != NULL;
	has_cmd = json_object_get(t, "command") != NULL;
	*why = "credentials: exactly one of file and command";
	if (has_file == has_cmd)
		return -1;
	if (has_file) {
		*why = "credentials.file must be a clean path below the console "
		    "home, written \"~/...\"";
		if (pt_str(t, "file", path, sizeof(path)) != 1 ||
		    pt_home_path_ok(path) != 0)
			return -1;
		*why = "credentials: sha256, env, pass_env and timeout_s belong "
		    "to a command";
		if (json_object_get(t, "sha256") || json_object_get(t, "env") ||
		    json_object_get(t, "pass_env") ||
		    json_object_get(t, "timeout_s"))
			return -1;
	} else if (validate_command(t, why) != 0) {
		return -1;
	}
	*why = "credentials.timeout_s must be an integer in 1..300";
	if (pt_uint(t, "timeout_s", 1, 300, CRED_DEFAULT_TIMEOUT_S, &x) < 0)
		return -1;
	*why = "credentials.max_bytes must be an integer in 1..65536";
	if (pt_uint(t, "max_bytes", 1, CRED_MAX_BYTES, CRED_DEFAULT_BYTES,
	    &x) < 0)
		return -1;
	return 0;
}

static struct cred *
cred_new(size_t max)
{
	struct cred *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->buf = sodium_malloc(max + 1);
	if (c->buf == NULL) {
		free(c);
		return NULL;
	}
	c->buf[0] = '\0';
	return c;
}

void
cred_close(struct cred *c)
{
	if (c == NULL)
		return;
	sodium_free(c->buf);	/* zeroes, unlocks, frees */
	free(c);
}

const char *
cred_text(const struct cred *c)
{
	return c->buf;
}

size_t
cred_len(const struct cred *c)
{
	return c->len;
}

int
cred_split2(struct cred *c, const char **first, const char **second)
{
	char *nl;

	if (c->split != 0)
		return -1;
	nl = memchr(c->buf, '\n', c->len);
	if (nl == NULL || nl == c->buf || nl + 1 == c->buf + c->len ||
	    memchr(nl + 1, '\n', c->len - (size_t)(nl + 1 - c->buf)) != NULL)
		return -1;
	*nl = '\0';
	c->split = (size_t)(nl - c->buf);
	*first = c->buf;
	*second = nl + 1;
	return 0;
}

/* Common to both origins: no NUL inside, one final newline dropped. */
static int
finish(struct cred *c, const char **why)
{
	if (c->len > 0 && c->buf[c->len - 1] == '\n') {
		c->len--;
		if (c->len > 0 && c->buf[c->len - 1] == '\r')
			c->len--;
	}
	c->buf[c->len] = '\0';
	if (c->len == 0 || memchr(c->buf, '\0', c->len) != NULL) {
		*why = "credentials are empty or hold a NUL byte";
		return -1;
	}
	return 0;
}

static int
load_file(int homefd, const struct spec *sp, struct cred *c, const char **why)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct stat st;
	ssize_t n;
	int fd, ret = -1;

	fd = (int)syscall(SYS_openat2, homefd, sp->file, &how, sizeof(how));
	if (fd < 0) {
		*why = errno == ENOENT ? "credentials file is missing" :
		    "credentials file cannot be opened (a symlink, or outside "
		    "the console home?)";
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		*why = "credentials file must be a regular file of the console "
		    "account with mode 0600 or 0400";
		goto out;
	}
	if (st.st_size <= 0 || (unsigned long long)st.st_size > sp->max_bytes) {
		*why = "credentials file is empty or over its max_bytes";
		goto out;
	}
	/* One byte more than allowed tells a file that grew after fstat. */
	n = read_full(fd, c->buf, sp->max_bytes + 1);
	if (n < 0 || (size_t)n > sp->max_bytes) {
		*why = "credentials file cannot be read, or grew";
		goto out;
	}
	c->len = (size_t)n;
	ret = finish(c, why);
out:
	close(fd);
	return ret;
}

/* The command's binary: opened once, owner and mode checked, hashed on the
 * fd and compared with the pin; the same fd is executed. */
static int
open_pinned(const struct spec *sp, int *script, const char **why)
{
	uint8_t got[SHA256_LEN];
	char head[2];
	struct stat st;
	int fd = open(sp->argv[0], O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		*why = "credential command cannot be opened";
		return -1;
	}
	/* Owned by root or the console account and writable by no one else:
	 * the hashed bytes are then the executed bytes. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != getuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		*why = "credential command must be a regular file owned by root "
		    "or the console account, not writable by group or others";
		goto fail;
	}
	if (sha256_fd_pread(fd, got) != 0) {
		*why = "credential command cannot be hashed";
		goto fail;
	}
	if (!ct_equal(got, sp->sha256, SHA256_LEN)) {
		*why = "credential command: binary hash differs from the pinned "
		    "sha256";
		goto fail;
	}
	*script = pread(fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';
	return fd;
fail:
	close(fd);
	return -1;
}

static void __attribute__((noreturn))
child_exec(const struct spec *sp, int binfd, int script, int outfd,
    char *const envp[])
{
	struct rlimit rl = { 0, 0 };
	sigset_t none;
	int devnull, sig, keep[1];

	/* The console blocks its termination signals and ignores SIGPIPE:
	 * the command starts from defaults. */
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	(void)setpgid(0, 0);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	(void)setrlimit(RLIMIT_CORE, &rl);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(outfd, 1) < 0 ||
	    dup2(devnull, 2) < 0)
		_exit(126);
	/* An interpreter script is read by its interpreter through
	 * /dev/fd: only then does the binary fd survive exec. */
	if (script && fcntl(binfd, F_SETFD, 0) != 0)
		_exit(126);
	keep[0] = binfd;
	close_fds_except(3, keep, 1);
	if (chdir("/") != 0)
		_exit(126);
	syscall(SYS_execveat, binfd, "", (char *const *)sp->argv, envp,
	    AT_EMPTY_PATH);
	_exit(127);
}

/* Read the child's stdout into c until EOF, the cap or the deadline. */
static int
read_output(const struct spec *sp, int fd, struct cred *c, long long deadline,
    const char **why)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left <= 0) {
			*why = "credential command timed out";
			return -1;
		}
		r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno != EINTR) {
			*why = "credential command output cannot be waited for";
			return -1;
		}
		if (r <= 0)
			continue;
		n = read(fd, c->buf + c->len, sp->max_bytes + 1 - c->len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			*why = "credential command output cannot be read";
			return -1;
		}
		if (n == 0)
			return 0;
		c->len += (size_t)n;
		if (c->len > sp->max_bytes) {
			*why = "credential command printed more than its max_bytes";
			return -1;
		}
	}
}

/* Reap pid by the deadline, killing its process group past it. The wait
 * status, or -1 when pid cannot be waited for (then killed). */
static int
reap(pid_t pid, long long deadline, int *killed)
{
	int st = 0;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR) {
			(void)kill(-pid, SIGKILL);
			(void)kill(pid, SIGKILL);
			return -1;
		}
		if (now_ms() >= deadline && !*killed) {
			(void)kill(-pid, SIGKILL);
			(void)kill(pid, SIGKILL);
			*killed = 1;
		}
		if (*killed) {
			while (waitpid(pid, &st, 0) < 0)
				if (errno != EINTR)
					return -1;
			return st;
		}
		sleep_until_ms(now_ms() + 5);
	}
}

/* The environment: the profile's env, then pass_env from ours, in locked
 * memory (a passed token is a secret too). The count of entries, or -1
 * (what was built is freed) when locked memory runs out. */
static long
build_env(const struct spec *sp, char **envp)
{
	const json_t *x;
	const char *k;
	size_t i, n = 0;

	json_object_foreach((json_t *)sp->env, k, x) {
		size_t len = strlen(k) + json_string_length(x) + 2;
		envp[n] = sodium_malloc(len);
		if (envp[n] == NULL)
			goto nomem;
		/* len is exactly what it takes: a cut is impossible */
		ASSERT(str_fmt(envp[n++], len, "%s=%s", k,
		    json_string_value(x)) == STR_OK);
	}
	json_array_foreach(sp->pass, i, x) {
		const char *v = getenv(json_string_value(x));
		size_t len;
		if (v == NULL)
			continue;
		len = json_string_length(x) + strlen(v) + 2;
		envp[n] = sodium_malloc(len);
		if (envp[n] == NULL)
			goto nomem;
		ASSERT(str_fmt(envp[n++], len, "%s=%s", json_string_value(x),
		    v) == STR_OK);
	}
	envp[n] = NULL;
	return (long)n;
nomem:
	while (n > 0)
		sodium_free(envp[--n]);
	envp[0] = NULL;
	return -1;
}

static int
load_command(const struct spec *sp, struct cred *c, const char **why)
{
	char *envp[2 * CRED_MAX_ENV + 1];
	long long deadline;
	long i, ne;
	int binfd, script = 0, pfd[2] = { -1, -1 }, killed = 0, st, ret = -1;
	pid_t pid;

	binfd = open_pinned(sp, &script, why);
	if (binfd < 0)
		return -1;
	ne = build_env(sp, envp);
	if (ne < 0) {
		ne = 0;
		*why = "credential command cannot be started (locked memory)";
		goto out;
	}
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		*why = "credential command cannot be started (pipe)";
		goto out;
	}
	deadline = now_ms() + (long long)sp->timeout_s * 1000;
	pid = fork();
	if (pid < 0) {
		*why = "credential command cannot be started (fork)";
		goto out;
	}
	if (pid == 0)
		child_exec(sp, binfd, script, pfd[1], envp);
	close(pfd[1]);
	pfd[1] = -1;
	ret = read_output(sp, pfd[0], c, deadline, why);
	st = reap(pid, ret == 0 ? deadline : 0, &killed);
	if (ret == 0 && st == -1) {
		*why = "credential command cannot be waited for";
		ret = -1;
	} else if (ret == 0 && killed) {
		*why = "credential command timed out";
		ret = -1;
	} else if (ret == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		*why = WIFEXITED(st) ? "credential command exited with a non-zero "
		    "status" : "credential command was killed by a signal";
		ret = -1;
	}
	if (ret == 0)
		ret = finish(c, why);
out:
	for (i = 0; i < ne; i++)
		sodium_free(envp[i]);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	close(binfd);
	return ret;
}

int
cred_open(const json_t *t, const char *home, struct cred **out,
    const char **why)
{
	struct spec sp;
	struct cred *c;
	const json_t *v;
	unsigned long long n;
	size_t i;
	int r, homefd;

	if (cred_validate(t, why) != 0)
		return -1;
	if (sodium_init() < 0) {
		*why = "credentials: libsodium cannot be initialised";
		return -1;
	}
	memset(&sp, 0, sizeof(sp));
	(void)pt_uint(t, "timeout_s", 1, 300, CRED_DEFAULT_TIMEOUT_S, &n);
	sp.timeout_s = (unsigned)n;
	(void)pt_uint(t, "max_bytes", 1, CRED_MAX_BYTES, CRED_DEFAULT_BYTES, &n);
	sp.max_bytes = (size_t)n;
	c = cred_new(sp.max_bytes);
	if (c == NULL) {
		*why = "credentials: out of locked memory";
		return -1;
	}
	v = json_object_get(t, "file");
	if (v != NULL) {
		sp.file = json_string_value(v) + 2;	/* after "~/" */
		homefd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (homefd < 0) {
			*why = "credentials: the console home cannot be opened";
			r = -1;
		} else {
			r = load_file(homefd, &sp, c, why);
			close(homefd);
		}
	} else {
		json_array_foreach(json_object_get(t, "command"), i, v) {
			sp.argv[i] = json_string_value(v);
		}
		if (hex_decode(json_string_value(json_object_get(t, "sha256")),
		    sp.sha256, SHA256_LEN) != 0)
			fatal("credentials: sha256 validated but not decodable");
		sp.env = json_object_get(t, "env");
		sp.pass = json_object_get(t, "pass_env");
		r = load_command(&sp, c, why);
	}
	if (r != 0) {
		cred_close(c);
		return -1;
	}
	*why = NULL;
	*out = c;
	return 0;
}

static void
scrub_span(const char *w, size_t wl, char *text, size_t cap)
{
	static const char tag[] = "<secret>";
	const size_t tl = sizeof(tag) - 1;
	size_t from = 0;
	char *p;

	if (wl == 0)
		return;
	/* Search on after each tag, so a tag never matches again. */
	while ((p = memmem(text + from, strlen(text + from), w, wl)) != NULL) {
		size_t rest = strlen(p + wl) + 1;
		if (tl > wl && (size_t)(p - text) + tl + rest > cap) {
			*p = '\0';	/* no room for the tag: cut here */
			return;
		}
		memmove(p + tl, p + wl, rest);
		memcpy(p, tag, tl);
		from = (size_t)(p - text) + tl;
	}
}

void
text_scrub_word(const char *word, char *text, size_t textcap)
{
	if (word != NULL && strlen(word) >= 4)
		scrub_span(word, strlen(word), text, textcap);
}

void
cred_scrub(const struct cred *c, char *text, size_t textcap)
{
	const char *p, *e, *end;

	if (c == NULL)
		return;
	end = c->buf + c->len;
	if (c->split == 0)
		scrub_span(c->buf, c->len, text, textcap);
	/* Each line (a split one ends at its NUL) of 6 bytes or more. */
	for (p = c->buf; p < end; p = e + 1) {
		e = p;
		while (e < end && *e != '\n' && *e != '\0')
			e++;
		if (e - p >= 6)
			scrub_span(p, (size_t)(e - p), text, textcap);
	}
}
