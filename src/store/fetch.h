/* Fetching a marketplace's files: over HTTPS with libcurl, or from a local
 * directory (file:///DIR or /DIR). What is fetched is untrusted until its
 * signature and hashes verify, so the fetcher's only jobs are to bound it
 * and to refuse surprises: HTTPS only (TLS verified, the system's CAs), no
 * redirect to another scheme, host or port (at most FETCH_MAX_REDIRECTS on
 * the same one), a byte cap per file enforced while streaming, connect and
 * total timeouts and a minimum speed, no content decoding; locally, a
 * regular file opened without following a final symlink and read up to the
 * cap. */
#ifndef LOCKFILE_FETCH_H
#define LOCKFILE_FETCH_H

#include <stddef.h>

#define FETCH_CONNECT_TIMEOUT_S 20
#define FETCH_TIMEOUT_S 300
#define FETCH_LOW_SPEED_BYTES 512	/* per second, over ... */
#define FETCH_LOW_SPEED_TIME_S 30
#define FETCH_MAX_REDIRECTS 3

struct buf;

/* Once per process, before any fetch. 0 or -1. */
int fetch_global_init(void);
void fetch_global_cleanup(void);

/* Fetch rel (made of [a-z0-9._/-], no "..", no leading slash) under base
 * into the file fd (written from offset 0, truncated first) or into b
 * (reset first; its ceiling is the cap). At most max bytes. 0, or -1 with
 * a reason in why (our text and libcurl's static messages). */
int fetch_to_fd(const char *base, const char *rel, size_t max, int fd,
    char *why, size_t whylen);
int fetch_to_buf(const char *base, const char *rel, struct buf *b,
    char *why, size_t whylen);

/* The same with options (NULL: the defaults above). Releases use them
 * (src/update/): a release host may redirect to its download host (GitHub
 * sends release assets to another origin), and a stalled download must
 * give up sooner than a marketplace's. */
struct fetch_opts {
	int any_https_redirect;	/* follow a redirect to any https:// origin */
	long low_speed_time_s;	/* under FETCH_LOW_SPEED_BYTES/s this long */
};
int fetch_to_fd_opts(const char *base, const char *rel, size_t max, int fd,
    const struct fetch_opts *o, char *why, size_t whylen);
int fetch_to_buf_opts(const char *base, const char *rel, struct buf *b,
    const struct fetch_opts *o, char *why, size_t whylen);

#endif
