/* The monotonic clock in milliseconds: deadlines, timeouts and the pacing
 * of retries. Wall-clock time (the audit log's, a ticket's expiry) is not
 * here: each user reads it where it is shown or signed. */
#ifndef LOCKFILE_CLOCK_H
#define LOCKFILE_CLOCK_H

/* Monotonic clock in milliseconds. */
long long now_ms(void);
/* Sleep until the monotonic clock reaches deadline_ms (EINTR-safe). */
void sleep_until_ms(long long deadline_ms);

#endif
