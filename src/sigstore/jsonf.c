/* Typed field access on strict JSON (parsed by lib/jsonx): the one place
 * the verifier turns JSON values into C values, each with its limit. */
#include "sigstore/internal.h"

#include <limits.h>
#include <string.h>

#include "lib/num.h"

static int
listed(const char *key, const char *const *list)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(key, *list) == 0)
			return 1;
	return 0;
}

int
jf_keys(const json_t *o, const char *const *required,
    const char *const *optional)
{
	const char *const *r;
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return SIGSTORE_E_SHAPE;
	for (r = required; r != NULL && *r != NULL; r++)
		if (jf_get(o, *r) == NULL)
			return SIGSTORE_E_SHAPE;
	json_object_foreach((json_t *)o, key, v) {
		if (!listed(key, required) && !listed(key, optional))
			return SIGSTORE_E_SHAPE;
	}
	return SIGSTORE_OK;
}

/* proto3 JSON writes an unset field as absent; a JSON null means the
 * same, and nothing else. */
const json_t *
jf_get(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return v == NULL || json_is_null(v) ? NULL : v;
}

const char *
jf_str(const json_t *o, const char *key, size_t max)
{
	const json_t *v = jf_get(o, key);
	const char *s;
	size_t n;

	if (!json_is_string(v))
		return NULL;
	s = json_string_value(v);
	n = json_string_length(v);
	if (n > max || strlen(s) != n)
		return NULL;
	return s;
}

int
jf_b64(const json_t *o, const char *key, size_t max, uint8_t **out,
    size_t *outlen)
{
	const json_t *v = jf_get(o, key);

	*out = NULL;
	*outlen = 0;
	if (!json_is_string(v))
		return SIGSTORE_E_SHAPE;
	return sig_b64_decode(json_string_value(v), json_string_length(v),
	    max, out, outlen);
}

int
jf_b64_fixed(const json_t *o, const char *key, uint8_t *out, size_t len)
{
	const json_t *v = jf_get(o, key);

	if (!json_is_string(v))
		return SIGSTORE_E_SHAPE;
	return sig_b64_decode_fixed(json_string_value(v),
	    json_string_length(v), out, len);
}

int
jf_i64(const json_t *o, const char *key, int64_t min, int64_t max,
    int64_t *out)
{
	unsigned long long v;
	const char *s = jf_str(o, key, 20);

	/* Every int64 we read is non-negative; "-1" fails like any other
	 * non-decimal text. */
	if (s == NULL || min < 0)
		return SIGSTORE_E_SHAPE;
	if (parse_u64(s, (unsigned long long)min, (unsigned long long)max,
	    &v) != 0)
		return SIGSTORE_E_SHAPE;
	*out = (int64_t)v;
	return SIGSTORE_OK;
}
