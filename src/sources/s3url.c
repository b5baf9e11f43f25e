/* S3 request text (see s3url.h). */
#include "sources/s3url.h"
#include "lib/num.h"
#include "lib/str.h"

#include <stdio.h>
#include <string.h>

static int
is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Dotted decimal, four parts of 0..255 without leading zeros. */
static int
ipv4_ok(const char *s, size_t n)
{
	unsigned parts = 0, val = 0, digits = 0;
	size_t i;

	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (digits == 0 || val > 255 || parts == 4)
				return 0;
			parts++;
			val = digits = 0;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || (digits == 1 && val == 0))
			return 0;
		val = val * 10 + (unsigned)(s[i] - '0');
		if (++digits > 3)
			return 0;
	}
	return parts == 4;
}

/* Hex digits, colons and an optional embedded IPv4; shape only (curl and
 * the kernel parse it for real). */
static int
ipv6_ok(const char *s, size_t n)
{
	size_t i, colons = 0;

	if (n < 2 || n > 45)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == ':')
			colons++;
		else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		    c == '.'))
			return 0;
	}
	return colons >= 2;
}

/* DNS name: labels of [a-z0-9-], not starting or ending with '-'. */
static int
dns_ok(const char *s, size_t n)
{
	size_t i, label = 0;

	if (n == 0 || n > S3_HOST_MAX)
		return 0;
	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (label == 0 || label > 63 || s[i - 1] == '-')
				return 0;
			label = 0;
			continue;
		}
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return 0;
		if (label == 0 && s[i] == '-')
			return 0;
		label++;
	}
	return 1;
}

int
s3_parse_endpoint(const char *s, struct s3_endpoint *ep)
{
	const char *h, *e, *p;
	size_t hl;

	memset(ep, 0, sizeof(*ep));
	if (strncmp(s, "https://", 8) == 0) {
		ep->https = 1;
		h = s + 8;
	} else if (strncmp(s, "http://", 7) == 0) {
		h = s + 7;
	} else {
		return -1;
	}
	if (h[0] == '[') {
		e = strchr(h, ']');
		if (e == NULL || !ipv6_ok(h + 1, (size_t)(e - h - 1)))
			return -1;
		e++;
		ep->ip_literal = 1;
	} else {
		e = h + strcspn(h, ":/");
		if (!dns_ok(h, (size_t)(e - h)))
			return -1;
		ep->ip_literal = ipv4_ok(h, (size_t)(e - h));
	}
	hl = (size_t)(e - h);
	if (hl >= sizeof(ep->host))
		return -1;
	memcpy(ep->host, h, hl);
	ep->host[hl] = '\0';
	ep->port = ep->https ? 443 : 80;
	p = e;
	if (*p == ':') {
		char digits[8];
		unsigned long long port;
		size_t dl = strcspn(p + 1, "/");
		if (dl == 0 || dl >= sizeof(digits))
			return -1;
		memcpy(digits, p + 1, dl);
		digits[dl] = '\0';
		if (parse_u64(digits, 1, 65535, &port) != 0)
			return -1;
		ep->port = (unsigned)port;
		ep->port_given = 1;
		p += 1 + dl;
	}
	if (*p == '/')
		p++;
	return *p == '\0' ? 0 : -1;
}

int
s3_bucket_ok(const char *b)
{
	size_t n = strlen(b), i;

	if (n < 3 || n > 63 || !is_lower_alnum(b[0]) ||
	    !is_lower_alnum(b[n - 1]) || strstr(b, "..") != NULL ||
	    ipv4_ok(b, n))
		return 0;
	for (i = 0; i < n; i++)
		if (!is_lower_alnum(b[i]) && b[i] != '-' && b[i] != '.')
			return 0;
	return 1;
}

int
s3_region_ok(const char *r)
{
	size_t n = strlen(r), i;

	if (n < 1 || n > 32)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_lower_alnum(r[i]) && r[i] != '-')
			return 0;
	return 1;
}

int
s3_address_ok(const char *a)
{
	size_t n = strlen(a);

	return ipv4_ok(a, n) || ipv6_ok(a, n);
}

int
s3_encode_key(const char *key, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;
	const unsigned char *p;

	for (p = (const unsigned char *)key; *p; p++) {
		int plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		    *p == '.' || *p == '~' || *p == '/';
		if (o + (plain ? 1 : 3) >= outlen)
			return -1;
		if (plain) {
			out[o++] = (char)*p;
		} else {
			out[o++] = '%';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
		}
	}
	if (o >= outlen)
		return -1;
	out[o] = '\0';
	return (int)o;
}

int
s3_url_host(const struct s3_endpoint *ep, const char *bucket,
    int virtual_style, char *out, size_t outlen)
{
	enum str_err r = virtual_style ?
	    str_fmt(out, outlen, "%s.%s", bucket, ep->host) :
	    str_fmt(out, outlen, "%s", ep->host);

	return r == STR_OK ? 0 : -1;
}

int
s3_object_url(const struct s3_endpoint *ep, const char *bucket,
    int virtual_style, const char *key, char *out, size_t outlen)
{
	char host[S3_HOST_MAX + 70], enc[3 * 1024 + 1], port[8] = "";
	enum str_err r;

	if (s3_url_host(ep, bucket, virtual_style, host, sizeof(host)) != 0 ||
	    s3_encode_key(key, enc, sizeof(enc)) < 0)
		return -1;
	if (ep->port_given &&
	    str_fmt(port, sizeof(port), ":%u", ep->port) != STR_OK)
		return -1;
	if (virtual_style)
		r = str_fmt(out, outlen, "%s://%s%s/%s", ep->https ? "https" :
		    "http", host, port, enc);
	else
		r = str_fmt(out, outlen, "%s://%s%s/%s/%s", ep->https ? "https" :
		    "http", host, port, bucket, enc);
	return r == STR_OK ? 0 : -1;
}

int
s3_error_code(const char *body, size_t len, char *code, size_t codelen)
{
	static const char open_tag[] = "<Code>", close_tag[] = "</Code>";
	const char *p, *q;
	size_t n, i;

	if (len > S3_ERRBODY_MAX)
		len = S3_ERRBODY_MAX;
	p = memmem(body, len, open_tag, sizeof(open_tag) - 1);
	if (p == NULL)
		return -1;
	p += sizeof(open_tag) - 1;
	q = memmem(p, len - (size_t)(p - body), close_tag,
	    sizeof(close_tag) - 1);
	if (q == NULL)
		return -1;
	n = (size_t)(q - p);
	if (n == 0 || n > S3_CODE_MAX || n >= codelen)
		return -1;
	for (i = 0; i < n; i++) {
		char c = p[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '.'))
			return -1;
	}
	memcpy(code, p, n);
	code[n] = '\0';
	return 0;
}

static int
code_in(const char *code, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(code, *list) == 0)
			return 1;
	return 0;
}

enum fetch_cause
s3_cause_for(long status, const char *code)
{
	static const char *const auth[] = { "InvalidAccessKeyId",
	    "SignatureDoesNotMatch", "AuthorizationHeaderMalformed",
	    "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
	    "RequestTimeTooSkewed", "InvalidSecurity", "MissingSecurityHeader",
	    NULL };
	static const char *const missing[] = { "NoSuchKey", "NoSuchBucket",
	    "NoSuchVersion", NULL };

	if (code == NULL)
		code = "";
	if (code_in(code, auth) || status == 401)
		return FC_BAD_CREDENTIALS;
	if (code_in(code, missing) || status == 404 || status == 410)
		return FC_MISSING;
	if (status == 403)
		return FC_DENIED;
	return FC_PROTOCOL;
}
