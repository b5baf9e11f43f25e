/* The pieces of an S3 request that are plain text processing, kept apart
 * from libcurl so they can be unit-tested and fuzzed: the endpoint, bucket
 * and region grammars, the key's percent-encoding (exactly once: every
 * byte but A-Z a-z 0-9 - _ . ~ /), the object URL in path or
 * virtual-hosted style, and the <Code> of an error body, the only part of
 * a server's error text that is ever kept (for the audit). */
#ifndef LOCKFILE_SOURCES_S3URL_H
#define LOCKFILE_SOURCES_S3URL_H

#include <stddef.h>

#include "sources/source.h"

#define S3_HOST_MAX 253
#define S3_CODE_MAX 64
#define S3_ERRBODY_MAX 4096

struct s3_endpoint {
	int https;
	int ip_literal;			/* an IPv4 or [IPv6] address */
	char host[S3_HOST_MAX + 3];	/* lowercase; IPv6 with brackets */
	unsigned port;			/* explicit, or 443 / 80 */
	int port_given;
};

/* "http[s]://host[:port]" with an optional final "/". 0 or -1. */
int s3_parse_endpoint(const char *s, struct s3_endpoint *ep);
/* Bucket names as S3 defines them: 3..63 of [a-z0-9.-], a letter or digit
 * at each end, no "..", not an IPv4 address. 1 when valid. */
int s3_bucket_ok(const char *b);
/* Region: 1..32 of [a-z0-9-]. 1 when valid. */
int s3_region_ok(const char *r);
/* An IPv4 or IPv6 literal (no brackets), for `address`. 1 when valid. */
int s3_address_ok(const char *a);

/* Percent-encode key into out. Returns the length, or -1 if it does not
 * fit. */
int s3_encode_key(const char *key, char *out, size_t outlen);
/* The host curl connects to: the endpoint's, or bucket.host. */
int s3_url_host(const struct s3_endpoint *ep, const char *bucket,
    int virtual_style, char *out, size_t outlen);
/* scheme://host[:port]/[bucket/]encoded-key. 0 or -1 (too long). */
int s3_object_url(const struct s3_endpoint *ep, const char *bucket,
    int virtual_style, const char *key, char *out, size_t outlen);

/* The first <Code>X</Code> of an error body, X being 1..64 of
 * [A-Za-z0-9.]; only the first S3_ERRBODY_MAX bytes are looked at.
 * 0 with code set, or -1. */
int s3_error_code(const char *body, size_t len, char *code, size_t codelen);
/* The audit cause for an HTTP status that is not 200, with its code
 * (NULL or "" when none). */
enum fetch_cause s3_cause_for(long status, const char *code);

#endif
