/* See https.h. */
#include "lib/https.h"

#include <stdint.h>

/* Any option libcurl refuses fails the handle: a floor that is not set
 * is no floor (libcurl built without a feature). */
#define SETOPT(h, opt, val) do { \
	if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) { \
		*why = "libcurl refused option " #opt; \
		goto fail; \
	} } while (0)

CURL *
https_new(const char *url, const struct https_opts *o, const char **why)
{
	CURL *h;

	if (o->connect_timeout_ms <= 0 || o->timeout_ms <= 0 ||
	    o->max_bytes == 0 || o->max_bytes > (unsigned long long)INT64_MAX) {
		*why = "an HTTPS client without a timeout or a size cap";
		return NULL;
	}
	if ((h = curl_easy_init()) == NULL) {
		*why = "libcurl cannot start";
		return NULL;
	}
	SETOPT(h, CURLOPT_URL, url);
	SETOPT(h, CURLOPT_PROTOCOLS_STR,
	    o->scheme == HTTPS_OR_HTTP ? "http,https" : "https");
	SETOPT(h, CURLOPT_REDIR_PROTOCOLS_STR, "https");
	SETOPT(h, CURLOPT_FOLLOWLOCATION, 0L);
	SETOPT(h, CURLOPT_MAXREDIRS, 0L);
	SETOPT(h, CURLOPT_SSL_VERIFYPEER, 1L);
	SETOPT(h, CURLOPT_SSL_VERIFYHOST, 2L);
	/* A permissive system OpenSSL configuration (MinProtocol TLSv1,
	 * SECLEVEL 0) must not lower it (docs/security.md, "Network clients"). */
	SETOPT(h, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	SETOPT(h, CURLOPT_NOSIGNAL, 1L);
	SETOPT(h, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	if (!o->proxy_from_env) {
		SETOPT(h, CURLOPT_PROXY, "");
		SETOPT(h, CURLOPT_NOPROXY, "*");
	}
	SETOPT(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	SETOPT(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	if (o->low_speed_bytes > 0) {
		SETOPT(h, CURLOPT_LOW_SPEED_LIMIT, o->low_speed_bytes);
		SETOPT(h, CURLOPT_LOW_SPEED_TIME, o->low_speed_time_s);
	}
	SETOPT(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_bytes);
	if (o->user_agent != NULL)
		SETOPT(h, CURLOPT_USERAGENT, o->user_agent);
	if (o->ca_file != NULL)
		SETOPT(h, CURLOPT_CAINFO, o->ca_file);
	if (o->ca_pem != NULL) {
		struct curl_blob blob = { .data = (void *)o->ca_pem,
		    .len = o->ca_len, .flags = CURL_BLOB_COPY };
		SETOPT(h, CURLOPT_CAINFO_BLOB, &blob);
	}
	return h;
fail:
	curl_easy_cleanup(h);
	return NULL;
}
