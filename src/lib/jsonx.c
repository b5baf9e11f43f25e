/* Strict JSON (see jsonx.h). */
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <stdlib.h>
#include <string.h>

int
jsonx_depth(const char *data, size_t len, int max_depth)
{
	int depth = 0, max = 0, in_str = 0, esc = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = data[i];
		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"')
			in_str = 1;
		else if (c == '[' || c == '{') {
			if (++depth > max_depth)
				return -1;
			if (depth > max)
				max = depth;
		} else if (c == ']' || c == '}')
			depth--;
	}
	return max;
}

json_t *
jsonx_parse(const char *data, size_t len, size_t max_len, int max_depth)
{
	json_error_t err;

	if (len > max_len)
		return NULL;
	if (memchr(data, '\0', len) != NULL)
		return NULL;
	if (jsonx_depth(data, len, max_depth) < 0)
		return NULL;
	return json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
	    &err);
}

char *
jsonx_dump_line(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENCODE_ANY | JSON_ENSURE_ASCII), *out, *o;
	const char *p;
	size_t ndel = 0;

	if (s == NULL)
		fatal("json_dumps failed");
	/* JSON_ENSURE_ASCII escapes every byte above 0x7f and the C0 controls,
	 * but not DEL, which a string (an MCP request id, say) may carry: it
	 * can only stand inside a string here, so it is escaped as \u007f and
	 * every line written is printable ASCII (docs/mcp.md). */
	for (p = s; (p = strchr(p, 0x7f)) != NULL; p++)
		ndel++;
	if (ndel == 0)
		return s;
	out = xmalloc(strlen(s) + 5 * ndel + 1);
	for (p = s, o = out; *p != '\0'; p++) {
		if (*p == 0x7f) {
			memcpy(o, "\\u007f", 6);
			o += 6;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	free(s);
	return out;
}

int
jsonx_exact_keys(const json_t *obj, const char *const *keys)
{
	size_t n = 0;

	if (!json_is_object(obj))
		return -1;
	for (; keys[n] != NULL; n++)
		if (json_object_get(obj, keys[n]) == NULL)
			return -1;
	return json_object_size(obj) == n ? 0 : -1;
}

int
jsonx_only_keys(const json_t *obj, const char *const *allowed)
{
	const char *k;
	json_t *v;

	if (!json_is_object(obj))
		return -1;
	json_object_foreach((json_t *)obj, k, v) {
		size_t i;

		for (i = 0; allowed[i] != NULL; i++)
			if (strcmp(k, allowed[i]) == 0)
				break;
		if (allowed[i] == NULL)
			return -1;
	}
	return 0;
}
