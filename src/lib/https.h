/* One builder of libcurl handles for every HTTPS client of lockfile: S3
 * sources (sources/s3.c), marketplaces and releases (store/fetch.c) and
 * the hub client (hubclient/hubclient.c). It sets the one floor each of
 * them gets (docs/security.md, "Network clients"): peer and host
 * verification, TLS 1.2 or later whatever the system's OpenSSL allows,
 * no signals, no .netrc, a connect and a total timeout, a size cap,
 * redirects never followed by libcurl (store/fetch.c follows a bounded
 * few itself). http:// is allowed only where the caller says a
 * documented option allows it (an S3 endpoint, a hub behind a
 * TLS-terminating proxy); the caller then adds its own options (headers,
 * body, write callback). Its own library (lf_https), so that only the
 * executables that speak HTTPS link libcurl. */
#ifndef LOCKFILE_HTTPS_H
#define LOCKFILE_HTTPS_H

#include <stddef.h>

#include <curl/curl.h>

enum https_scheme {
	HTTPS_ONLY,
	HTTPS_OR_HTTP,	/* only behind a documented option */
};

struct https_opts {
	enum https_scheme scheme;
	long connect_timeout_ms;	/* > 0 */
	long timeout_ms;		/* > 0: the whole transfer */
	long low_speed_bytes;		/* 0: no stall check; else under this */
	long low_speed_time_s;		/* many bytes/s for this long fails */
	unsigned long long max_bytes;	/* > 0: an announced larger body fails */
	const char *user_agent;
	const char *ca_file;		/* a PEM file, or NULL */
	const void *ca_pem;		/* a PEM in memory (copied), or NULL; */
	size_t ca_len;			/* neither: the system's store */
	/* 0: no proxy whatever the environment says (S3, the hub); 1: the
	 * usual *_proxy variables (marketplaces; TLS still ends here). */
	int proxy_from_env;
};

/* A handle for url with the floor set, or NULL with *why a static
 * message (libcurl could not start or refused one of the floor's
 * options, or opts break the floor). The caller curl_easy_cleanup()s it. */
CURL *https_new(const char *url, const struct https_opts *o, const char **why);

#endif
