/* Logging: one place that writes diagnostics, always escaped. */
#include "lib/log.h"
#include "lib/escape.h"
#include "lib/str.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set once at start by log_init(); read-only afterwards. */
static const char *progname = "lockfile";
/* Set once by log_set_cleanup(); cleanup_tid is who runs it (0: no one). */
static void (*cleanup_fn)(void);
static pid_t cleanup_pid;
static pid_t cleanup_tid;

void
log_init(const char *name)
{
	if (name != NULL)
		progname = name;
}

const char *
log_progname(void)
{
	return progname;
}

static void
emit(int with_errno, int saved_errno, const char *fmt, va_list ap)
{
	char raw[1024], safe[4200];

	str_vmsg(raw, sizeof(raw), fmt, ap);
	escape_text(raw, strlen(raw), safe, sizeof(safe));
	if (with_errno)
		dprintf(STDERR_FILENO, "%s: %s: %s\n", progname, safe,
		    strerror(saved_errno));
	else
		dprintf(STDERR_FILENO, "%s: %s\n", progname, safe);
}

void
logit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(0, 0, fmt, ap);
	va_end(ap);
}

void
logit_errno(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	va_start(ap, fmt);
	emit(1, e, fmt, ap);
	va_end(ap);
}

void
log_set_cleanup(void (*fn)(void))
{
	cleanup_pid = getpid();
	cleanup_fn = fn;
}

void
cleanup_exit(int code)
{
	pid_t self = gettid(), none = 0;

	if (cleanup_fn != NULL && getpid() == cleanup_pid) {
		if (__atomic_compare_exchange_n(&cleanup_tid, &none, self, 0,
		    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			cleanup_fn();
		else if (none != self)
			for (;;)	/* another thread cleans up, then exits */
				pause();
		/* else: the cleanup itself died; leave now */
	}
	_exit(code);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(0, 0, fmt, ap);
	va_end(ap);
	cleanup_exit(70);
}

void
fatal_func(const char *func, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	str_vmsg(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fatal("%s: %s", func, msg);
}

void
fatal_errno(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	va_start(ap, fmt);
	emit(1, e, fmt, ap);
	va_end(ap);
	cleanup_exit(70);
}
