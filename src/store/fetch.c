/* Marketplace transport (see fetch.h). */
#include "store/fetch.h"
#include "lib/buf.h"
#include "lib/fd.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct fetch_opts default_opts = {
	.any_https_redirect = 0,
	.low_speed_time_s = FETCH_LOW_SPEED_TIME_S,
};

/* Where the bytes go: exactly one of fd and b. */
struct sink {
	int fd;
	struct buf *b;
	size_t max, got;
	int over;		/* the cap was reached */
	int ioerr;
};

static int
sink_reset(struct sink *s)
{
	s->got = 0;
	s->over = s->ioerr = 0;
	if (s->b != NULL) {
		buf_reset(s->b);
		return 0;
	}
	return ftruncate(s->fd, 0) == 0 && lseek(s->fd, 0, SEEK_SET) == 0 ?
	    0 : -1;
}

static int
sink_put(struct sink *s, const void *p, size_t n)
{
	if (n > s->max - s->got) {
		s->over = 1;
		return -1;
	}
	if (s->b != NULL ? buf_append(s->b, p, n) != 0 :
	    write_full(s->fd, p, n) != 0) {
		s->ioerr = 1;
		return -1;
	}
	s->got += n;
	return 0;
}

static int
rel_ok(const char *rel)
{
	size_t i, n = strlen(rel);

	if (n == 0 || n > 512 || rel[0] == '/' || strstr(rel, "..") != NULL ||
	    strstr(rel, "//") != NULL)
		return 0;
	for (i = 0; i < n; i++) {
		char c = rel[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-' || c == '/'))
			return 0;
	}
	return 1;
}

/* base without trailing slashes, "/", rel. */
static int
join(const char *base, const char *rel, char *out, size_t outlen)
{
	size_t n = strlen(base);

	while (n > 0 && base[n - 1] == '/')
		n--;
	return str_fmt(out, outlen, "%.*s/%s", (int)n, base, rel) == STR_OK ?
	    0 : -1;
}

/* ---- local directories ---- */

static int
fetch_local(const char *path, struct sink *s, char *why, size_t whylen)
{
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd, ret = -1;

	/* O_NONBLOCK: a FIFO planted in the directory cannot stall us (and
	 * is refused below as not regular). */
	fd = open(path, OPEN_RO_SAFE | O_NONBLOCK);
	if (fd < 0) {
		str_msg(why, whylen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		str_msg(why, whylen, "not a regular file");
		goto out;
	}
	if (st.st_size < 0 || (unsigned long long)st.st_size > s->max) {
		str_msg(why, whylen, "larger than its limit of %zu bytes",
		    s->max);
		goto out;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			str_msg(why, whylen, "read: %s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (sink_put(s, chunk, (size_t)n) != 0) {
			if (s->over)
				str_msg(why, whylen, "larger than its limit of "
				    "%zu bytes", s->max);
			else
				str_msg(why, whylen, "cannot store it");
			goto out;
		}
	}
	ret = 0;
out:
	explicit_bzero(chunk, sizeof(chunk));
	close(fd);
	return ret;
}

/* ---- HTTPS ---- */

static size_t
on_data(char *p, size_t size, size_t nmemb, void *ctx)
{
	struct sink *s = ctx;
	size_t n = size * nmemb;

	if (nmemb != 0 && n / nmemb != size)
		return 0;
	return sink_put(s, p, n) == 0 ? n : 0;
}

/* Scheme, host and port of url; 0 or -1. The port is the scheme's default
 * when the URL has none. */
static int
url_origin(const char *url, char **scheme, char **host, char **port)
{
	CURLU *u = curl_url();
	int ret = -1;

	*scheme = *host = *port = NULL;
	if (u == NULL)
		return -1;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, port, CURLU_DEFAULT_PORT) ==
	    CURLUE_OK)
		ret = 0;
	curl_url_cleanup(u);
	if (ret != 0) {
		curl_free(*scheme);
		curl_free(*host);
		curl_free(*port);
		*scheme = *host = *port = NULL;
	}
	return ret;
}

static int
same_origin(const char *a, const char *b)
{
	char *s1, *h1, *p1, *s2, *h2, *p2;
	int same = 0;

	if (url_origin(a, &s1, &h1, &p1) != 0)
		return 0;
	if (url_origin(b, &s2, &h2, &p2) == 0) {
		same = strcasecmp(s1, "https") == 0 &&
		    strcasecmp(s2, "https") == 0 && strcasecmp(h1, h2) == 0 &&
		    strcmp(p1, p2) == 0;
		curl_free(s2);
		curl_free(h2);
		curl_free(p2);
	}
	curl_free(s1);
	curl_free(h1);
	curl_free(p1);
	return same;
}

#define SETOPT(h, opt, val) do { \
	if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) { \
		str_msg(why, whylen, "libcurl refused option " #opt); \
		goto out; \
	} } while (0)

/* One GET of url into s; *status the HTTP status, *next a copy of the
 * redirect target for a 3xx (or NULL). */
static int
https_once(const char *url, struct sink *s, const struct fetch_opts *o,
    long *status, char **next, char *why, size_t whylen)
{
	/* The floor (lib/https.h); redirects are followed by the caller,
	 * bounded and on the same origin. Proxies from the environment, as
	 * before: TLS still ends here. */
	struct https_opts ho = {
		.scheme = HTTPS_ONLY,
		.connect_timeout_ms = FETCH_CONNECT_TIMEOUT_S * 1000L,
		.timeout_ms = FETCH_TIMEOUT_S * 1000L,
		.low_speed_bytes = FETCH_LOW_SPEED_BYTES,
		.low_speed_time_s = o->low_speed_time_s,
		.max_bytes = s->max > 0 ? s->max : 1,
		.user_agent = "lockfile/" LOCKFILE_VERSION,
		.proxy_from_env = 1,
	};
	char errbuf[CURL_ERROR_SIZE] = "";
	const char *hwhy = NULL;
	CURL *h = https_new(url, &ho, &hwhy);
	CURLcode rc;
	char *loc = NULL;
	int ret = -1;

	*status = 0;
	*next = NULL;
	if (h == NULL) {
		str_msg(why, whylen, "%s", hwhy);
		return -1;
	}
	SETOPT(h, CURLOPT_WRITEFUNCTION, on_data);
	SETOPT(h, CURLOPT_WRITEDATA, s);
	SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
	rc = curl_easy_perform(h);
	if (rc != CURLE_OK) {
		if (s->over || rc == CURLE_FILESIZE_EXCEEDED)
			str_msg(why, whylen, "larger than its limit of %zu "
			    "bytes", s->max);
		else
			str_msg(why, whylen, "%s", errbuf[0] ? errbuf :
			    curl_easy_strerror(rc));
		goto out;
	}
	if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status) != CURLE_OK) {
		str_msg(why, whylen, "no HTTP status");
		goto out;
	}
	if (*status >= 300 && *status < 400 &&
	    curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK &&
	    loc != NULL) {
		*next = xstrdup(loc);
	}
	ret = 0;
out:
	curl_easy_cleanup(h);
	return ret;
}

static int
is_https(const char *url)
{
	return strncasecmp(url, "https://", 8) == 0;
}

static int
fetch_https(const char *url, struct sink *s, const struct fetch_opts *o,
    char *why, size_t whylen)
{
	char *cur = xstrdup(url), *next = NULL;
	long status;
	int hops, ret = -1;

	for (hops = 0;; hops++) {
		if (sink_reset(s) != 0) {
			str_msg(why, whylen, "cannot reset the download file");
			break;
		}
		if (https_once(cur, s, o, &status, &next, why, whylen) != 0)
			break;
		if (status == 200) {
			ret = 0;
			break;
		}
		if (next == NULL) {
			str_msg(why, whylen, "HTTP status %ld", status);
			break;
		}
		/* Boundary: whoever serves the marketplace may point us
		 * elsewhere only on its own origin; the signatures would catch
		 * foreign bytes, but a foreign host learns nothing from us.
		 * A release download may go on to another https:// origin
		 * (GitHub's asset host; docs/releases.md): TLS is still
		 * verified, and the signatures decide. */
		if (hops >= FETCH_MAX_REDIRECTS ||
		    !(same_origin(url, next) ||
		    (o->any_https_redirect && is_https(next)))) {
			if (hops >= FETCH_MAX_REDIRECTS)
				str_msg(why, whylen, "too many redirects");
			else
				str_msg(why, whylen, "redirect to another "
				    "scheme, host or port refused");
			break;
		}
		free(cur);
		cur = next;
		next = NULL;
	}
	free(next);
	free(cur);
	return ret;
}

int
fetch_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void
fetch_global_cleanup(void)
{
	curl_global_cleanup();
}

static int
fetch(const char *base, const char *rel, struct sink *s,
    const struct fetch_opts *o, char *why, size_t whylen)
{
	char url[4096];
	const char *local = NULL;

	if (!rel_ok(rel)) {
		str_msg(why, whylen, "invalid file name in the marketplace");
		return -1;
	}
	if (strncmp(base, "https://", 8) == 0) {
		if (join(base, rel, url, sizeof(url)) != 0) {
			str_msg(why, whylen, "URL too long");
			return -1;
		}
		return fetch_https(url, s, o != NULL ? o : &default_opts, why,
		    whylen);
	}
	if (strncmp(base, "file:///", 8) == 0)
		local = base + 7;
	else if (base[0] == '/')
		local = base;
	if (local == NULL) {
		str_msg(why, whylen, "marketplace URL is neither https://, "
		    "file:/// nor an absolute path");
		return -1;
	}
	if (join(local, rel, url, sizeof(url)) != 0) {
		str_msg(why, whylen, "path too long");
		return -1;
	}
	if (sink_reset(s) != 0) {
		str_msg(why, whylen, "cannot reset the download file");
		return -1;
	}
	return fetch_local(url, s, why, whylen);
}

int
fetch_to_fd_opts(const char *base, const char *rel, size_t max, int fd,
    const struct fetch_opts *o, char *why, size_t whylen)
{
	struct sink s = { .fd = fd, .b = NULL, .max = max };

	return fetch(base, rel, &s, o, why, whylen);
}

int
fetch_to_buf_opts(const char *base, const char *rel, struct buf *b,
    const struct fetch_opts *o, char *why, size_t whylen)
{
	struct sink s = { .fd = -1, .b = b, .max = buf_max(b) };

	return fetch(base, rel, &s, o, why, whylen);
}

int
fetch_to_fd(const char *base, const char *rel, size_t max, int fd,
    char *why, size_t whylen)
{
	return fetch_to_fd_opts(base, rel, max, fd, NULL, why, whylen);
}

int
fetch_to_buf(const char *base, const char *rel, struct buf *b, char *why,
    size_t whylen)
{
	return fetch_to_buf_opts(base, rel, b, NULL, why, whylen);
}
