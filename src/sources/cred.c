/* Source credentials: a file in the console's home or a pinned command
 * (see cred.h). */
#include "sources/cred.h"
#include "sources/ptable.h"
#include "lib/crypto.h"
#include "lib/fdutil.h"
#include "lib/log.h"

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

struct cred {
	int homefd;			/* file: the console home, opened */
	char file[4096];		/* file: path below home, no "~/" */
	char *argv[CRED_MAX_ARGS + 1];	/* command */
	char *envp[2 * CRED_MAX_ENV + 1];
	size_t nenv;
	char *pass[CRED_MAX_ENV];	/* pass_env names, read at each load */
	size_t npass;
	uint8_t sha256[SHA256_LEN];
	unsigned timeout_s;
	size_t max_bytes;
};

struct secret {
	char *buf;			/* sodium_malloc'ed, max_bytes + 1 */
	size_t len;
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
	if (!json_is_object(t) || pt_only_keys(t, keys) != 0)
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

static char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		fatal("out of memory");
	return p;
}

int
cred_open(const json_t *t, const char *home, struct cred **out,
    const char **why)
{
	struct cred *c;
	const json_t *v, *x;
	const char *k;
	unsigned long long n;
	size_t i;

	if (cred_validate(t, why) != 0)
		return -1;
	if (sodium_init() < 0)
		fatal("libsodium cannot be initialised");
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		fatal("out of memory");
	c->homefd = -1;
	(void)pt_uint(t, "timeout_s", 1, 300, CRED_DEFAULT_TIMEOUT_S, &n);
	c->timeout_s = (unsigned)n;
	(void)pt_uint(t, "max_bytes", 1, CRED_MAX_BYTES, CRED_DEFAULT_BYTES, &n);
	c->max_bytes = (size_t)n;
	v = json_object_get(t, "file");
	if (v != NULL) {
		snprintf(c->file, sizeof(c->file), "%s", json_string_value(v) + 2);
		c->homefd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (c->homefd < 0) {
			*why = "credentials: the console home cannot be opened";
			free(c);
			return -1;
		}
		*out = c;
		return 0;
	}
	json_array_foreach(json_object_get(t, "command"), i, v)
		c->argv[i] = xstrdup(json_string_value(v));
	if (hex_decode(json_string_value(json_object_get(t, "sha256")),
	    c->sha256, SHA256_LEN) != 0)
		fatal("credentials: sha256 validated but not decodable");
	json_object_foreach((json_t *)json_object_get(t, "env"), k, x) {
		size_t len = strlen(k) + 1 + json_string_length(x) + 1;
		char *e = malloc(len);
		if (e == NULL)
			fatal("out of memory");
		snprintf(e, len, "%s=%s", k, json_string_value(x));
		c->envp[c->nenv++] = e;
	}
	json_array_foreach(json_object_get(t, "pass_env"), i, v)
		c->pass[c->npass++] = xstrdup(json_string_value(v));
	*out = c;
	return 0;
}

void
cred_close(struct cred *c)
{
	size_t i;

	if (c == NULL)
		return;
	if (c->homefd >= 0)
		close(c->homefd);
	for (i = 0; c->argv[i] != NULL; i++)
		free(c->argv[i]);
	for (i = 0; i < c->nenv; i++)
		free(c->envp[i]);
	for (i = 0; i < c->npass; i++)
		free(c->pass[i]);
	free(c);
}

static struct secret *
secret_new(size_t max)
{
	struct secret *s = calloc(1, sizeof(*s));

	if (s == NULL)
		fatal("out of memory");
	s->buf = sodium_malloc(max + 1);
	if (s->buf == NULL)
		fatal("out of locked memory");
	return s;
}

void
secret_free(struct secret *s)
{
	if (s == NULL)
		return;
	sodium_free(s->buf);	/* zeroes, unlocks, frees */
	free(s);
}

const char *
secret_text(const struct secret *s)
{
	return s->buf;
}

size_t
secret_len(const struct secret *s)
{
	return s->len;
}

int
secret_split2(struct secret *s, const char **first, const char **second)
{
	char *nl = memchr(s->buf, '\n', s->len);

	if (nl == NULL || nl == s->buf || nl + 1 == s->buf + s->len ||
	    memchr(nl + 1, '\n', s->len - (size_t)(nl + 1 - s->buf)) != NULL)
		return -1;
	*nl = '\0';
	*first = s->buf;
	*second = nl + 1;
	return 0;
}

/* Common to both origins: no NUL inside, one final newline dropped. */
static enum fetch_cause
secret_finish(struct secret *s, char *detail, size_t dl)
{
	if (s->len > 0 && s->buf[s->len - 1] == '\n') {
		s->len--;
		if (s->len > 0 && s->buf[s->len - 1] == '\r')
			s->len--;
	}
	s->buf[s->len] = '\0';
	if (s->len == 0 || memchr(s->buf, '\0', s->len) != NULL) {
		snprintf(detail, dl, "credentials: empty or holding a NUL byte");
		return FC_CREDENTIAL_SOURCE;
	}
	return FC_OK;
}

static enum fetch_cause
load_file(const struct cred *c, struct secret **out, char *detail, size_t dl)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct secret *s = NULL;
	enum fetch_cause fc = FC_CREDENTIAL_SOURCE;
	struct stat st;
	ssize_t n;
	int fd;

	fd = (int)syscall(SYS_openat2, c->homefd, c->file, &how, sizeof(how));
	if (fd < 0) {
		snprintf(detail, dl, "credentials file cannot be opened: %s",
		    strerror(errno));
		return FC_CREDENTIAL_SOURCE;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		snprintf(detail, dl, "credentials file must be a regular file of "
		    "the console account with mode 0600 or 0400");
		goto out;
	}
	if (st.st_size <= 0 || (unsigned long long)st.st_size > c->max_bytes) {
		snprintf(detail, dl, "credentials file is empty or over %zu bytes",
		    c->max_bytes);
		goto out;
	}
	s = secret_new(c->max_bytes);
	/* One byte more than allowed tells a file that grew after fstat. */
	n = read_full(fd, s->buf, c->max_bytes + 1);
	if (n < 0 || (size_t)n > c->max_bytes) {
		snprintf(detail, dl, "credentials file cannot be read, or grew");
		goto out;
	}
	s->len = (size_t)n;
	fc = secret_finish(s, detail, dl);
out:
	close(fd);
	if (fc == FC_OK)
		*out = s;
	else
		secret_free(s);
	return fc;
}

/* The command's binary: opened once, owner and mode checked, hashed on the
 * fd and compared with the pin; the same fd is executed. */
static int
open_pinned(const struct cred *c, int *script, char *detail, size_t dl)
{
	uint8_t got[SHA256_LEN];
	char head[2];
	struct stat st;
	int fd = open(c->argv[0], O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		snprintf(detail, dl, "credential command cannot be opened: %s",
		    strerror(errno));
		return -1;
	}
	/* Owned by root or the console account and writable by no one else:
	 * the hashed bytes are then the executed bytes. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != getuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(detail, dl, "credential command must be a regular file "
		    "owned by root or the console account, not writable by "
		    "group or others");
		goto fail;
	}
	if (sha256_fd_pread(fd, got) != 0) {
		snprintf(detail, dl, "credential command cannot be hashed");
		goto fail;
	}
	if (!ct_equal(got, c->sha256, SHA256_LEN)) {
		snprintf(detail, dl, "credential command: binary hash differs "
		    "from the pinned sha256");
		goto fail;
	}
	*script = pread(fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';
	return fd;
fail:
	close(fd);
	return -1;
}

static void __attribute__((noreturn))
child_exec(const struct cred *c, int binfd, int script, int outfd,
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
	 * /proc/self/fd: only then does the binary fd survive exec. */
	if (script && fcntl(binfd, F_SETFD, 0) != 0)
		_exit(126);
	keep[0] = binfd;
	close_fds_except(3, keep, 1);
	if (chdir("/") != 0)
		_exit(126);
	syscall(SYS_execveat, binfd, "", c->argv, envp, AT_EMPTY_PATH);
	_exit(127);
}

/* Read the child's stdout into s until EOF, the cap or the deadline. */
static enum fetch_cause
read_output(const struct cred *c, int fd, struct secret *s, long long deadline,
    char *detail, size_t dl)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left <= 0) {
			snprintf(detail, dl, "credential command timed out after "
			    "%us", c->timeout_s);
			return FC_CREDENTIAL_SOURCE;
		}
		r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno != EINTR)
			fatal_errno("poll");
		if (r <= 0)
			continue;
		n = read(fd, s->buf + s->len, c->max_bytes + 1 - s->len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(detail, dl, "credential command output cannot be "
			    "read");
			return FC_CREDENTIAL_SOURCE;
		}
		if (n == 0)
			return FC_OK;
		s->len += (size_t)n;
		if (s->len > c->max_bytes) {
			snprintf(detail, dl, "credential command printed more than "
			    "%zu bytes", c->max_bytes);
			return FC_CREDENTIAL_SOURCE;
		}
	}
}

/* Reap pid by the deadline, killing its process group past it. */
static int
reap(pid_t pid, long long deadline, int *killed)
{
	int st = 0;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			fatal_errno("waitpid");
		if (now_ms() >= deadline && !*killed) {
			(void)kill(-pid, SIGKILL);
			(void)kill(pid, SIGKILL);
			*killed = 1;
		}
		if (*killed) {
			while (waitpid(pid, &st, 0) < 0)
				if (errno != EINTR)
					fatal_errno("waitpid");
			return st;
		}
		sleep_until_ms(now_ms() + 5);
	}
}

static enum fetch_cause
load_command(const struct cred *c, struct secret **out, char *detail,
    size_t dl)
{
	char *envp[3 * CRED_MAX_ENV + 1], *passed[CRED_MAX_ENV];
	struct secret *s = NULL;
	enum fetch_cause fc = FC_CREDENTIAL_SOURCE;
	long long deadline;
	size_t i, ne = 0, np = 0;
	int binfd, script = 0, pfd[2] = { -1, -1 }, killed = 0, st;
	pid_t pid;

	binfd = open_pinned(c, &script, detail, dl);
	if (binfd < 0)
		return FC_CREDENTIAL_SOURCE;
	for (i = 0; i < c->nenv; i++)
		envp[ne++] = c->envp[i];
	for (i = 0; i < c->npass; i++) {
		const char *v = getenv(c->pass[i]);
		size_t len;
		if (v == NULL)
			continue;
		len = strlen(c->pass[i]) + strlen(v) + 2;
		passed[np] = sodium_malloc(len);
		if (passed[np] == NULL)
			fatal("out of locked memory");
		snprintf(passed[np], len, "%s=%s", c->pass[i], v);
		envp[ne++] = passed[np++];
	}
	envp[ne] = NULL;
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		snprintf(detail, dl, "credential command: pipe: %s",
		    strerror(errno));
		goto out;
	}
	s = secret_new(c->max_bytes);
	deadline = now_ms() + (long long)c->timeout_s * 1000;
	pid = fork();
	if (pid < 0) {
		snprintf(detail, dl, "credential command: fork: %s",
		    strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_exec(c, binfd, script, pfd[1], envp);
	close(pfd[1]);
	pfd[1] = -1;
	fc = read_output(c, pfd[0], s, deadline, detail, dl);
	if (fc != FC_OK)
		deadline = 0;	/* kill it now */
	st = reap(pid, deadline, &killed);
	if (fc == FC_OK && killed) {
		snprintf(detail, dl, "credential command timed out after %us",
		    c->timeout_s);
		fc = FC_CREDENTIAL_SOURCE;
	} else if (fc == FC_OK && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		if (WIFEXITED(st))
			snprintf(detail, dl, "credential command exited with "
			    "status %d", WEXITSTATUS(st));
		else
			snprintf(detail, dl, "credential command killed by "
			    "signal %d", WTERMSIG(st));
		fc = FC_CREDENTIAL_SOURCE;
	}
	if (fc == FC_OK)
		fc = secret_finish(s, detail, dl);
out:
	for (i = 0; i < np; i++)
		sodium_free(passed[i]);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	close(binfd);
	if (fc == FC_OK)
		*out = s;
	else
		secret_free(s);
	return fc;
}

enum fetch_cause
cred_load(const struct cred *c, struct secret **out, char *detail,
    size_t detaillen)
{
	*out = NULL;
	if (c->homefd >= 0)
		return load_file(c, out, detail, detaillen);
	return load_command(c, out, detail, detaillen);
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
secret_scrub(const struct secret *s, char *text, size_t textcap)
{
	const char *p, *e;

	if (s == NULL)
		return;
	scrub_span(s->buf, s->len, text, textcap);
	for (p = s->buf; p < s->buf + s->len; p = e + 1) {
		e = memchr(p, '\n', (size_t)(s->buf + s->len - p));
		if (e == NULL)
			e = s->buf + s->len;
		if (e - p >= 6)
			scrub_span(p, (size_t)(e - p), text, textcap);
	}
}
