/* Logging for lockfile: fatal() for impossible or unrecoverable states in
 * process glue, logit() for recoverable paths. Every message that may carry
 * untrusted text goes through the escaper first (escape.h); these functions
 * escape their formatted result once more before it reaches stderr, so a
 * caller's mistake cannot put raw control bytes on a terminal. */
#ifndef LOCKFILE_LOG_H
#define LOCKFILE_LOG_H

#include <stdarg.h>

void log_init(const char *progname);
const char *log_progname(void);

void logit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void logit_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void fatal_errno(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* fatal() whose message starts with the calling function's name
 * (OpenSSH's fatal_f, log.h): for the few deaths where the message alone
 * would not say where. */
void fatal_func(const char *func, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
#define fatal_f(...) fatal_func(__func__, __VA_ARGS__)

/* The process's one cleanup, which every fatal path runs before it exits
 * (OpenSSH's cleanup_exit): the console registers the deletion of its
 * held files and the wiping of its values. It runs only in the process
 * that registered it (a forked child that dies must not touch its
 * parent's files), at most once; a second thread dying meanwhile waits
 * for the first to finish. */
void log_set_cleanup(void (*fn)(void));
/* Run the cleanup (if any), then _exit(code). */
void cleanup_exit(int code) __attribute__((noreturn));

/* Abort loudly on a state the code believes cannot happen. */
#define ASSERT(cond) do { if (!(cond)) \
	fatal("assertion failed: %s (%s:%d)", #cond, __FILE__, __LINE__); } while (0)

#endif
