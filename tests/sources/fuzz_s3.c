/* libFuzzer target for the S3 text a server or a profile controls: an
 * error body (only its <Code> is kept), endpoints, keys and URLs, and the
 * strict validation of s3 and sftp profile tables. The first byte picks
 * the part; the rest is the input. Run through tests/fuzz/run-fuzzer
 * (corpus: tests/sources/corpus/s3). */
#include "sources/s3url.h"
#include "sources/source.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *
cstr(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s == NULL)
		abort();
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char code[S3_CODE_MAX + 1], url[8192], enc[4096];
	struct s3_endpoint ep;
	const char *why;
	json_t *t;
	char *s, *nl;

	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0: {
		/* exact-size copy: an overread shows under ASan */
		char *body = malloc(size - 1 ? size - 1 : 1);
		if (body == NULL)
			abort();
		memcpy(body, data + 1, size - 1);
		if (s3_error_code(body, size - 1, code, sizeof(code)) == 0) {
			size_t i, n = strlen(code);
			if (n == 0 || n > S3_CODE_MAX)
				abort();
			for (i = 0; i < n; i++)
				if (!((code[i] >= 'A' && code[i] <= 'Z') ||
				    (code[i] >= 'a' && code[i] <= 'z') ||
				    (code[i] >= '0' && code[i] <= '9') ||
				    code[i] == '.'))
					abort();
			(void)s3_cause_for(403, code);
		}
		free(body);
		break;
	}
	case 1:
		/* endpoint, newline, bucket, newline, key */
		s = cstr(data + 1, size - 1);
		nl = strchr(s, '\n');
		if (nl != NULL)
			*nl = '\0';
		if (s3_parse_endpoint(s, &ep) == 0 && nl != NULL) {
			char *bucket = nl + 1, *key = strchr(bucket, '\n');
			if (key != NULL) {
				*key++ = '\0';
				if (s3_bucket_ok(bucket) &&
				    s3_object_url(&ep, bucket, data[0] & 4, key, url,
				    sizeof(url)) == 0 && strlen(url) >= sizeof(url))
					abort();
			}
		}
		free(s);
		break;
	case 2:
		s = cstr(data + 1, size - 1);
		if (s3_encode_key(s, enc, sizeof(enc)) >= 0) {
			const char *p;
			for (p = enc; *p; p++)
				if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
					abort();	/* encoded once, all printable */
		}
		free(s);
		break;
	default:
		t = json_loadb((const char *)data + 1, size - 1,
		    JSON_REJECT_DUPLICATES, NULL);
		if (t != NULL) {
			why = NULL;
			if (source_kind_find("s3")->validate(t, &why) != 0 &&
			    why == NULL)
				abort();
			why = NULL;
			if (source_kind_find("sftp")->validate(t, &why) != 0 &&
			    why == NULL)
				abort();
			json_decref(t);
		}
		break;
	}
	return 0;
}
