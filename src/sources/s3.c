/* The S3-compatible source, through libcurl's SigV4 signing.
 *
 * Boundary: what a bucket sends is untrusted. The body counts against the
 * reserved cap as it arrives (Content-Length only lets curl refuse early),
 * is hashed while it streams and is written only on a 200; an error body
 * is kept to its first 4 KiB and only its <Code> survives, in the audit
 * detail. No redirect is followed, only http and https are spoken, no
 * proxy, netrc or cookie is read from the environment. The secret access
 * key is read when the profile is opened and stays in locked memory
 * (cred.h); libcurl's own copies for a fetch (the password option, the
 * signing state) are wiped on free by the allocator installed below. The
 * CA file is read at open too, and handed to curl as a blob: a fetch opens
 * no file but the spool. */
#include "sources/source.h"
#include "sources/cred.h"
#include "sources/ptable.h"
#include "sources/s3url.h"
#include "sources/sink.h"
#include "lib/fd.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "config.h"

/* SHA-256 of the empty body: curl 7.88 signs the header but does not add
 * it, and S3 servers refuse a request without it. */
#define EMPTY_SHA256 \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

struct source {
	struct s3_endpoint ep;
	char endpoint[300];
	char region[40];
	char bucket[64];
	int virtual_style;
	char url_host[S3_HOST_MAX + 70];
	char address[64];
	char ca_file[4096];
	char access_key_id[129];
	unsigned connect_timeout_s, stall_timeout_s, timeout_s;
	struct cred *cred;
	const char *id, *secret;	/* into the profile's or cred's memory */
	char *ca_pem;			/* the CA file's bytes, or NULL */
	size_t ca_len;
};

/* ---- a wiping allocator for libcurl ------------------------------------ */

static void
wipe_free(void *p)
{
	if (p == NULL)
		return;
	explicit_bzero(p, malloc_usable_size(p));
	free(p);
}

static void *
wipe_realloc(void *p, size_t n)
{
	size_t old;
	void *q;

	if (p == NULL)
		return malloc(n);
	old = malloc_usable_size(p);
	if (n <= old && n > 0)
		return p;
	q = malloc(n ? n : 1);
	if (q == NULL)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	wipe_free(p);
	return q;
}

static char *
wipe_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_ok;		/* set once, by curl_init() */

static void
curl_init(void)
{
	/* First initialiser wins in libcurl: the console initialises it
	 * here, before any other user (hub mode) does. */
	curl_ok = curl_global_init_mem(CURL_GLOBAL_DEFAULT, malloc, wipe_free,
	    wipe_realloc, wipe_strdup, calloc) == CURLE_OK;
}

/* ---- the profile -------------------------------------------------------- */

static const char *const s3_keys[] = { "endpoint", "region", "bucket",
	"url_style", "address", "ca_file", "access_key_id", "credentials",
	"connect_timeout_s", "stall_timeout_s", "timeout_s", NULL };

static int
key_id_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 1 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			return 0;
	return 1;
}

/* Parse t into s (which may be a scratch copy for validate). */
static int
s3_parse(const json_t *t, struct source *s, const char **why)
{
	char style[16] = "virtual";
	unsigned long long x;

	memset(s, 0, sizeof(*s));
	*why = "s3 profile: unknown key (see docs/sources.md)";
	if (jsonx_only_keys(t, s3_keys) != 0)
		return -1;
	*why = "s3 profile: endpoint must be http(s)://host[:port] (lowercase "
	    "host, no path)";
	if (pt_str(t, "endpoint", s->endpoint, sizeof(s->endpoint)) != 1 ||
	    s3_parse_endpoint(s->endpoint, &s->ep) != 0)
		return -1;
	*why = "s3 profile: region must be 1..32 of [a-z0-9-]";
	if (pt_str(t, "region", s->region, sizeof(s->region)) != 1 ||
	    !s3_region_ok(s->region))
		return -1;
	*why = "s3 profile: bucket must be an S3 bucket name (3..63 of "
	    "[a-z0-9.-])";
	if (pt_str(t, "bucket", s->bucket, sizeof(s->bucket)) != 1 ||
	    !s3_bucket_ok(s->bucket))
		return -1;
	*why = "s3 profile: url_style must be \"path\" or \"virtual\"";
	if (pt_str(t, "url_style", style, sizeof(style)) < 0 ||
	    (strcmp(style, "path") != 0 && strcmp(style, "virtual") != 0))
		return -1;
	s->virtual_style = strcmp(style, "virtual") == 0;
	*why = "s3 profile: virtual-hosted style needs a DNS endpoint, not an "
	    "IP address";
	if (s->virtual_style && s->ep.ip_literal)
		return -1;
	*why = "s3 profile: address must be an IPv4 or IPv6 address";
	if (pt_str(t, "address", s->address, sizeof(s->address)) < 0 ||
	    (s->address[0] != '\0' && !s3_address_ok(s->address)))
		return -1;
	*why = "s3 profile: ca_file must be a clean absolute path";
	if (pt_str(t, "ca_file", s->ca_file, sizeof(s->ca_file)) < 0 ||
	    (s->ca_file[0] != '\0' && pt_abs_path_ok(s->ca_file, 0) != 0))
		return -1;
	*why = "s3 profile: ca_file is for an https endpoint";
	if (s->ca_file[0] != '\0' && !s->ep.https)
		return -1;
	*why = "s3 profile: access_key_id must be 1..128 printable characters "
	    "without spaces";
	if (pt_str(t, "access_key_id", s->access_key_id,
	    sizeof(s->access_key_id)) < 0 || (s->access_key_id[0] != '\0' &&
	    !key_id_ok(s->access_key_id)))
		return -1;
	*why = "s3 profile: connect_timeout_s must be an integer in 1..300";
	if (pt_uint(t, "connect_timeout_s", 1, 300, 10, &x) < 0)
		return -1;
	s->connect_timeout_s = (unsigned)x;
	*why = "s3 profile: stall_timeout_s must be an integer in 1..3600";
	if (pt_uint(t, "stall_timeout_s", 1, 3600, 30, &x) < 0)
		return -1;
	s->stall_timeout_s = (unsigned)x;
	*why = "s3 profile: timeout_s must be an integer in 1..86400";
	if (pt_uint(t, "timeout_s", 1, 86400, 3600, &x) < 0)
		return -1;
	s->timeout_s = (unsigned)x;
	*why = "s3 profile: credentials is required";
	if (json_object_get(t, "credentials") == NULL)
		return -1;
	if (cred_validate(json_object_get(t, "credentials"), why) != 0)
		return -1;
	if (s3_url_host(&s->ep, s->bucket, s->virtual_style, s->url_host,
	    sizeof(s->url_host)) != 0) {
		*why = "s3 profile: bucket and endpoint host make too long a name";
		return -1;
	}
	return 0;
}

static int
s3_validate(const json_t *t, const char **why)
{
	struct source *s = malloc(sizeof(*s));
	int r;

	if (s == NULL) {
		*why = "s3 profile: out of memory";
		return -1;
	}
	r = s3_parse(t, s, why);
	free(s);
	return r;
}

/* The CA file decides whom TLS trusts: owned by root or the console
 * account, writable by no one else, read whole (at most 1 MiB). */
static int
read_ca(struct source *s, const char **why)
{
	struct stat st;
	ssize_t n;
	int fd = open(s->ca_file, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	*why = "s3 profile: ca_file must be a regular file (at most 1 MiB) "
	    "owned by root or the console account, not writable by others";
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != getuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size <= 0 ||
	    st.st_size > (1 << 20)) {
		close(fd);
		return -1;
	}
	s->ca_pem = malloc((size_t)st.st_size);
	if (s->ca_pem == NULL) {
		close(fd);
		*why = "s3 profile: out of memory";
		return -1;
	}
	n = read_full(fd, s->ca_pem, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size)
		return -1;
	s->ca_len = (size_t)n;
	return 0;
}

/* Credentials: the secret alone when the profile names the access key
 * id, else two lines: id, then secret. */
static int
split_secret(struct source *s, const char **why)
{
	*why = "s3 credentials: expected one line (the secret access key) when "
	    "the profile names access_key_id, else two lines (access key id, "
	    "secret access key)";
	if (s->access_key_id[0] != '\0') {
		if (strchr(cred_text(s->cred), '\n') != NULL)
			return -1;
		s->id = s->access_key_id;
		s->secret = cred_text(s->cred);
		return 0;
	}
	if (cred_split2(s->cred, &s->id, &s->secret) != 0 || !key_id_ok(s->id))
		return -1;
	return 0;
}

static void s3_close(struct source *s);

static int
s3_open(const json_t *t, const char *home, struct source **out,
    const char **why)
{
	struct source *s = malloc(sizeof(*s));

	if (s == NULL) {
		*why = "s3 profile: out of memory";
		return -1;
	}
	if (s3_parse(t, s, why) != 0) {
		free(s);
		return -1;
	}
	if ((s->ca_file[0] != '\0' && read_ca(s, why) != 0) ||
	    cred_open(json_object_get(t, "credentials"), home, &s->cred,
	    why) != 0 || split_secret(s, why) != 0) {
		s3_close(s);
		return -1;
	}
	(void)pthread_once(&curl_once, curl_init);
	if (!curl_ok) {
		*why = "s3 profile: libcurl cannot be initialised";
		s3_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

static void
s3_close(struct source *s)
{
	if (s == NULL)
		return;
	cred_close(s->cred);
	free(s->ca_pem);
	explicit_bzero(s, sizeof(*s));
	free(s);
}

static size_t
s3_words(const struct source *s, const char **words, size_t max)
{
	const char *w[] = { s->endpoint, s->url_host, s->ep.host, s->bucket,
	    s->address, s->access_key_id };
	size_t i, n = 0;

	for (i = 0; i < sizeof(w) / sizeof(w[0]) && n < max; i++)
		if (w[i][0] != '\0')
			words[n++] = w[i];
	return n;
}

/* ---- a fetch ------------------------------------------------------------ */

struct xfer {
	CURL *h;
	struct sink sink;
	long status;			/* 0 until the body starts */
	enum fetch_cause body_fc;	/* why the body callback stopped */
	char errbody[S3_ERRBODY_MAX + 1];
	size_t errlen;
};

static size_t
on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t len = size * nmemb, room;

	if (x->status == 0 && (curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE,
	    &x->status) != CURLE_OK || x->status == 0))
		x->status = -1;
	if (x->status == 200) {
		x->body_fc = sink_put(&x->sink, data, len);
		return x->body_fc == FC_OK ? len : 0;
	}
	/* An error body: its head only; stop the transfer once it is full. */
	room = S3_ERRBODY_MAX - x->errlen;
	if (len > room) {
		memcpy(x->errbody + x->errlen, data, room);
		x->errlen += room;
		return 0;
	}
	memcpy(x->errbody + x->errlen, data, len);
	x->errlen += len;
	return len;
}

static enum fetch_cause
curl_cause(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return FC_TIMEOUT;
	case CURLE_FILESIZE_EXCEEDED:
		return FC_TOO_BIG;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return FC_NETWORK;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_USE_SSL_FAILED:
		return FC_TLS;
	case CURLE_WRITE_ERROR:
		return FC_IO;
	default:
		return FC_PROTOCOL;
	}
}

/* A refused option fails the fetch (libcurl built without a feature we
 * rely on): checked once, at the end of setup(). The floor every HTTPS
 * client shares (TLS, timeouts, the cap, no redirects) is https_new's
 * (lib/https.h); these are S3's own. */
#define SETOPT(h, opt, val) do { \
	if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) \
		refused = "libcurl refused option " #opt; \
} while (0)

static const char *
setup(struct source *s, struct xfer *x, const char *url, const char *id,
    const char *key, unsigned long long cap, struct curl_slist *hdrs,
    struct curl_slist *resolve, char *errbuf)
{
	struct https_opts ho = {
		/* http:// only where the endpoint says so (docs/sources.md) */
		.scheme = s->ep.https ? HTTPS_ONLY : HTTPS_OR_HTTP,
		.connect_timeout_ms = (long)s->connect_timeout_s * 1000,
		.timeout_ms = (long)s->timeout_s * 1000,
		.low_speed_bytes = 1,
		.low_speed_time_s = (long)s->stall_timeout_s,
		.max_bytes = cap > 0 ? cap : 1,
		.user_agent = "lockfile/" LOCKFILE_VERSION,
		.ca_pem = s->ca_pem,
		.ca_len = s->ca_len,
	};
	char sigv4[80];
	CURL *h;
	const char *refused = NULL;

	if (str_fmt(sigv4, sizeof(sigv4), "aws:amz:%s:s3", s->region) != STR_OK)
		return "the region, too long for its signing scope";
	if ((x->h = h = https_new(url, &ho, &refused)) == NULL)
		return refused;
	SETOPT(h, CURLOPT_PATH_AS_IS, 1L);
	SETOPT(h, CURLOPT_HTTPGET, 1L);
	SETOPT(h, CURLOPT_AWS_SIGV4, sigv4);
	SETOPT(h, CURLOPT_USERNAME, id);
	SETOPT(h, CURLOPT_PASSWORD, key);
	SETOPT(h, CURLOPT_HTTPHEADER, hdrs);
	if (resolve != NULL)
		SETOPT(h, CURLOPT_RESOLVE, resolve);
	/* curl's receive buffer, part of the console's 16 MiB budget: 256 KiB
	 * fetched as fast as 512 KiB did (bench/README.md, "bench/fetch"). */
	SETOPT(h, CURLOPT_BUFFERSIZE, 256L * 1024);
	SETOPT(h, CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(h, CURLOPT_WRITEDATA, x);
	SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
	return refused;
}

/* The cause and detail once curl_easy_perform returned rc. */
static enum fetch_cause
outcome(struct xfer *x, CURLcode rc, const char *errbuf,
    struct fetch_result *res)
{
	char code[S3_CODE_MAX + 1] = "";

	if (x->status == 0)
		(void)curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
	if (rc == CURLE_WRITE_ERROR && x->body_fc != FC_OK) {
		if (x->body_fc == FC_IO)
			str_msg(res->detail, sizeof(res->detail), "spool: %s",
			    strerror(x->sink.write_errno));
		else
			str_msg(res->detail, sizeof(res->detail), "over the "
			    "reserved %llu bytes", x->sink.cap);
		return x->body_fc;
	}
	if (x->status > 0 && x->status != 200 &&
	    (rc == CURLE_OK || rc == CURLE_WRITE_ERROR)) {
		if (s3_error_code(x->errbody, x->errlen, code, sizeof(code)) != 0)
			code[0] = '\0';
		str_msg(res->detail, sizeof(res->detail), "HTTP %ld%s%s",
		    x->status, code[0] ? " " : "", code);
		return s3_cause_for(x->status, code);
	}
	if (rc != CURLE_OK) {
		str_msg(res->detail, sizeof(res->detail), "curl %d: %s",
		    (int)rc, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		if (rc == CURLE_FILESIZE_EXCEEDED)
			str_msg(res->detail, sizeof(res->detail), "announced "
			    "size over the reserved %llu bytes", x->sink.cap);
		return curl_cause(rc);
	}
	return x->status == 200 ? FC_OK : FC_PROTOCOL;
}

static enum fetch_cause
s3_fetch(struct source *s, const char *key, int outfd, unsigned long long cap,
    struct fetch_result *res)
{
	char url[S3_HOST_MAX + 3 * 1024 + 200], rs[S3_HOST_MAX + 140];
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL, *resolve = NULL;
	struct xfer *x = NULL;
	const char *refused;
	enum fetch_cause fc;
	CURLcode rc;

	memset(res, 0, sizeof(*res));
	if (s == NULL) {
		str_msg(res->detail, sizeof(res->detail), "the profile could not "
		    "be opened at console start (see its start-up warning)");
		return FC_UNAVAILABLE;
	}
	if (s3_object_url(&s->ep, s->bucket, s->virtual_style, key, url,
	    sizeof(url)) != 0) {
		str_msg(res->detail, sizeof(res->detail), "key too long");
		return FC_PROTOCOL;
	}
	/* the exact key asked for: the object (docs/ledger.md, "Aliases") */
	if (str_fmt(res->object, sizeof(res->object), "s3:%s/%s", s->bucket,
	    key) != STR_OK)
		res->object[0] = '\0';
	/* Only headers that are sent: curl signs every header in the list,
	 * even a removal ("Accept:"), and the server then refuses. */
	hdrs = curl_slist_append(hdrs, "x-amz-content-sha256: " EMPTY_SHA256);
	if (hdrs == NULL)
		goto nomem;
	if (s->address[0] != '\0') {
		if (str_fmt(rs, sizeof(rs), "%s:%u:%s%s%s", s->url_host,
		    s->ep.port, strchr(s->address, ':') ? "[" : "", s->address,
		    strchr(s->address, ':') ? "]" : "") != STR_OK) {
			curl_slist_free_all(hdrs);
			str_msg(res->detail, sizeof(res->detail),
			    "host and address too long");
			return FC_PROTOCOL;
		}
		if ((resolve = curl_slist_append(NULL, rs)) == NULL)
			goto nomem;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		goto nomem;
	if (sink_init(&x->sink, outfd, cap) != FC_OK) {
		str_msg(res->detail, sizeof(res->detail), "spool: cannot be set "
		    "up");
		fc = FC_IO;
		goto out;
	}
	if ((refused = setup(s, x, url, s->id, s->secret, cap, hdrs, resolve,
	    errbuf)) != NULL) {
		str_msg(res->detail, sizeof(res->detail), "%s", refused);
		fc = FC_IO;
		goto out;
	}
	rc = curl_easy_perform(x->h);
	/* Scrubbed before it is cut to the detail's size, so that no prefix
	 * of a secret survives the cut. */
	cred_scrub(s->cred, errbuf, sizeof(errbuf));
	text_scrub_word(s->secret, errbuf, sizeof(errbuf));
	text_scrub_word(s->id, errbuf, sizeof(errbuf));
	fc = outcome(x, rc, errbuf, res);
	if (fc == FC_OK && (fc = sink_finish(&x->sink, res)) != FC_OK)
		str_msg(res->detail, sizeof(res->detail), "spool: %s",
		    strerror(x->sink.write_errno));
	/* Nothing of the secret or the key id in the audit. */
	cred_scrub(s->cred, res->detail, sizeof(res->detail));
	text_scrub_word(s->secret, res->detail, sizeof(res->detail));
	text_scrub_word(s->id, res->detail, sizeof(res->detail));
	goto out;
nomem:
	str_msg(res->detail, sizeof(res->detail), "out of memory");
	fc = FC_IO;
out:
	if (x != NULL) {
		if (x->h != NULL)
			curl_easy_cleanup(x->h);
		sink_free(&x->sink);
		explicit_bzero(x, sizeof(*x));
		free(x);
	}
	curl_slist_free_all(hdrs);
	curl_slist_free_all(resolve);
	explicit_bzero(errbuf, sizeof(errbuf));
	return fc;
}

static size_t
s3_ports(const struct source *s, unsigned *ports, size_t max)
{
	if (max < 1)
		return 0;
	ports[0] = s->ep.port;
	return 1;
}

const struct source_kind source_s3 = {
	.tcp_ports = s3_ports,
	.name = "s3",
	.validate = s3_validate,
	.open = s3_open,
	.fetch = s3_fetch,
	.location_words = s3_words,
	.close = s3_close,
};
