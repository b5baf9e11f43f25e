/* The signed hub client (see hubclient.h). */
#include "config.h"
#include "hubclient/hubclient.h"
#include "hubwire/msg.h"
#include "lib/crypto.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <sodium.h>

#define AUTH_HEADER	"Lockhub-Auth: "

const char *
hc_err_text(enum hc_err e)
{
	switch (e) {
	case HC_OK: return "ok";
	case HC_NO_DATA: return "nothing yet";
	case HC_UNREACHABLE: return "the hub cannot be reached";
	/* TLS is the usual cause on a first deployment (a private CA not
	 * given): named, with the remedy (docs/hub.md, "Deployment"). */
	case HC_TLS_UNTRUSTED: return "the hub cannot be reached: TLS: its "
	    "certificate is not trusted (give its CA: the console's --hub-ca, "
	    "lox enroll --ca; the certificate must name the URL's host)";
	case HC_TLS_CA_FILE: return "the hub cannot be reached: TLS: the CA "
	    "file cannot be used (a PEM certificate: --hub-ca, lox enroll --ca)";
	case HC_TLS_HANDSHAKE: return "the hub cannot be reached: TLS: the "
	    "handshake failed (is it TLS on that port? https:// needs "
	    "lockhub serve --tls-cert)";
	case HC_REFUSED: return "the hub refused the request";
	case HC_NOT_FOUND: return "the hub does not know it";
	case HC_CONFLICT: return "already there";
	case HC_BUSY: return "the hub is busy";
	case HC_PROTOCOL: return "the hub answered something unexpected";
	}
	return "unknown";
}

int
hc_url_ok(const char *url)
{
	static const char host_chars[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-";
	const char *p;
	size_t n;

	if (url == NULL || strlen(url) > HC_MAX_URL)
		return -1;
	if (strncmp(url, "https://", 8) == 0)
		p = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		p = url + 7;
	else
		return -1;
	if (*p == '[') {
		n = strspn(p + 1, "0123456789abcdefABCDEF:.");
		if (n == 0 || p[1 + n] != ']')
			return -1;
		p += n + 2;
	} else {
		n = strspn(p, host_chars);
		if (n == 0)
			return -1;
		p += n;
	}
	if (*p == ':') {
		char digits[6];
		unsigned long long port;
		n = strspn(p + 1, "0123456789");
		if (n == 0 || n >= sizeof(digits))
			return -1;
		memcpy(digits, p + 1, n);
		digits[n] = '\0';
		if (parse_u64(digits, 1, 65535, &port) != 0)
			return -1;
		p += 1 + n;
	}
	if (*p == '/' && p[1] == '\0')
		p++;
	return *p == '\0' ? 0 : -1;
}

static long long
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t
on_data(char *d, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;

	if (buf_append(b, d, size * n) != 0)
		return 0;	/* over the cap: libcurl stops */
	return size * n;
}

/* libcurl's TLS failures, apart from the others (no route, refused,
 * timed out): HC_UNREACHABLE. */
static enum hc_err
tls_cause(CURLcode rc)
{
	switch (rc) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		return HC_TLS_UNTRUSTED;
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CRL_BADFILE:
		return HC_TLS_CA_FILE;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_USE_SSL_FAILED:
		return HC_TLS_HANDSHAKE;
	default:
		return HC_UNREACHABLE;
	}
}

#define SETOPT(h, opt, val) do { \
	if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) \
		goto out; } while (0)

enum hc_err
hc_call(const struct hubclient *c, const char *method, const char *path,
    const uint8_t *body, size_t len, size_t max_reply, long timeout_ms,
    struct buf **reply, long *status)
{
	char url[HC_MAX_URL + 300], *hdr = NULL;
	struct hw_request q;
	struct buf *signed_req = NULL, *got = NULL;
	struct curl_slist *hl = NULL;
	size_t b64len;
	long st = 0;
	enum hc_err ret = HC_UNREACHABLE;
	CURL *h = NULL;

	if (reply != NULL)
		*reply = NULL;
	if (status != NULL)
		*status = 0;
	memset(&q, 0, sizeof(q));
	if (str_fmt(q.method, sizeof(q.method), "%s", method) != STR_OK ||
	    str_fmt(q.path, sizeof(q.path), "%s", path) != STR_OK ||
	    str_fmt(url, sizeof(url), "%.*s%s", (int)(strlen(c->url) -
	    (c->url[0] != '\0' && c->url[strlen(c->url) - 1] == '/')), c->url,
	    path) != STR_OK)
		return HC_PROTOCOL;
	hw_hash(body, len, q.body_hash);
	q.time_ms = (uint64_t)wall_ms();
	random_bytes(q.nonce, sizeof(q.nonce));
	memcpy(q.key, c->key->pk, HW_KEY_LEN);
	if (hw_request_encode(&q, c->key->sk, &signed_req) != HW_OK)
		return HC_PROTOCOL;
	b64len = sodium_base64_ENCODED_LEN(buf_len(signed_req),
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	hdr = xcalloc(1, sizeof(AUTH_HEADER) + b64len);
	memcpy(hdr, AUTH_HEADER, sizeof(AUTH_HEADER) - 1);
	sodium_bin2base64(hdr + sizeof(AUTH_HEADER) - 1, b64len,
	    buf_data(signed_req), buf_len(signed_req),
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	buf_free(signed_req);
	got = buf_new(max_reply);
	hl = curl_slist_append(hl, hdr);
	hl = curl_slist_append(hl, "Content-Type: application/octet-stream");
	hl = curl_slist_append(hl, "Expect:");
	if (hl == NULL)
		fatal_f("out of memory");
	{
		/* The floor (lib/https.h); http:// stays allowed for a hub
		 * behind a TLS-terminating proxy (hc_url_ok, docs/hub.md). */
		struct https_opts ho = {
			.scheme = HTTPS_OR_HTTP,
			.connect_timeout_ms = c->connect_timeout_ms > 0 ?
			    c->connect_timeout_ms : 10000L,
			.timeout_ms = timeout_ms,
			.max_bytes = max_reply > 0 ? max_reply : 1,
			.user_agent = "lockfile-hub/" LOCKFILE_VERSION,
			.ca_file = c->ca_file,
			.ca_pem = c->ca_pem,
			.ca_len = c->ca_pem_len,
		};
		const char *hwhy;
		if ((h = https_new(url, &ho, &hwhy)) == NULL) {
			logit("hub client: %s", hwhy);
			goto out;
		}
	}
	SETOPT(h, CURLOPT_HTTPHEADER, hl);
	SETOPT(h, CURLOPT_WRITEFUNCTION, on_data);
	SETOPT(h, CURLOPT_WRITEDATA, got);
	if (strcmp(method, "POST") == 0) {
		SETOPT(h, CURLOPT_POST, 1L);
		SETOPT(h, CURLOPT_POSTFIELDS, len > 0 ? (const char *)body : "");
		SETOPT(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	} else if (strcmp(method, "GET") != 0) {
		ret = HC_PROTOCOL;
		goto out;
	}
	{
		CURLcode rc = curl_easy_perform(h);
		if (rc == CURLE_WRITE_ERROR ||
		    rc == CURLE_FILESIZE_EXCEEDED) {
			ret = HC_PROTOCOL;	/* the reply passed its cap */
			goto out;
		}
		if (rc != CURLE_OK) {
			ret = tls_cause(rc);
			goto out;
		}
	}
	if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st) != CURLE_OK)
		goto out;
	switch (st) {
	case 200: case 201: ret = HC_OK; break;
	case 204: ret = HC_NO_DATA; break;
	case 400: case 401: case 403: case 413: ret = HC_REFUSED; break;
	case 404: ret = HC_NOT_FOUND; break;
	case 409: ret = HC_CONFLICT; break;
	/* 502, 504: a balancer whose hub instance went away or did not
	 * answer; another one will (docs/hub.md, "Operating several hubs") */
	case 429: case 502: case 503: case 504: ret = HC_BUSY; break;
	default: ret = HC_PROTOCOL; break;
	}
	if (ret == HC_OK && reply != NULL) {
		*reply = got;
		got = NULL;
	}
out:
	if (status != NULL)
		*status = st;
	buf_free(got);
	curl_slist_free_all(hl);
	curl_easy_cleanup(h);
	sodium_memzero(hdr, strlen(hdr));
	free(hdr);
	return ret;
}
