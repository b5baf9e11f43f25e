/* Shape checking (see shape.h). */
#include "protocol/shape.h"
#include "lib/crypto.h"
#include "lib/escape.h"
#include "lib/str.h"

#include <stdio.h>
#include <string.h>

static int
charset(const char *s, size_t maxlen, const char *first, const char *rest)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > maxlen)
		return 0;
	if (strchr(first, s[0]) == NULL)
		return 0;
	for (i = 1; i < n; i++)
		if (strchr(rest, s[i]) == NULL)
			return 0;
	return 1;
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define DIGIT "0123456789"

int
name_is_plugin(const char *s)
{
	return charset(s, 32, LOWER, LOWER DIGIT "-");
}

int
name_is_profile(const char *s)
{
	return charset(s, 64, LOWER DIGIT, LOWER DIGIT "_-");
}

int
name_is_input(const char *s)
{
	return charset(s, 32, LOWER, LOWER DIGIT "_");
}

int
version_is_valid(const char *s)
{
	int part = 0, digits = 0;
	const char *p;

	if (strlen(s) > 20)
		return 0;
	for (p = s; ; p++) {
		if (*p >= '0' && *p <= '9') {
			if (digits == 1 && p[-1] == '0')
				return 0;	/* leading zero */
			if (++digits > 6)
				return 0;
			continue;
		}
		if (digits == 0)
			return 0;
		if (*p == '.' && part < 2) {
			part++;
			digits = 0;
			continue;
		}
		return *p == '\0' && part == 2;
	}
}

int
text_is_manifest(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && text_is_plain(s, n);
}

static int
fail(char *where, size_t wherelen, const char *path)
{
	if (wherelen > 0)
		str_msg(where, wherelen, "%s", path[0] ? path : "(top)");
	return -1;
}

static int
check(const struct shape *s, const json_t *v, const char *path, char *where,
    size_t wherelen)
{
	char sub[256];
	size_t i;

	switch (s->kind) {
	case SK_OBJECT: {
		const char *key;
		json_t *val;

		if (!json_is_object(v))
			return fail(where, wherelen, path);
		/* no key outside the list */
		json_object_foreach((json_t *)v, key, val) {
			for (i = 0; i < s->nfields; i++)
				if (strcmp(key, s->fields[i].key) == 0)
					break;
			if (i == s->nfields) {
				str_msg(sub, sizeof(sub), "%s.(unknown key)", path);
				return fail(where, wherelen, sub);
			}
		}
		for (i = 0; i < s->nfields; i++) {
			const json_t *f = json_object_get(v, s->fields[i].key);
			str_msg(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "",
			    s->fields[i].key);
			if (f == NULL) {
				if (s->fields[i].required)
					return fail(where, wherelen, sub);
				continue;
			}
			if (check(s->fields[i].shape, f, sub, where, wherelen) != 0)
				return -1;
		}
		return 0;
	}
	case SK_ARRAY:
		if (!json_is_array(v) || json_array_size(v) > s->max_items)
			return fail(where, wherelen, path);
		for (i = 0; i < json_array_size(v); i++) {
			str_msg(sub, sizeof(sub), "%s[%zu]", path, i);
			if (check(s->items, json_array_get(v, i), sub, where,
			    wherelen) != 0)
				return -1;
		}
		return 0;
	case SK_BOOL:
		return json_is_boolean(v) ? 0 : fail(where, wherelen, path);
	case SK_TRUE:
		return json_is_true(v) ? 0 : fail(where, wherelen, path);
	case SK_INT:
		if (!json_is_integer(v) || json_integer_value(v) < s->min ||
		    json_integer_value(v) > s->max)
			return fail(where, wherelen, path);
		return 0;
	case SK_BIT:
		if (json_is_null(v))
			return 0;
		if (json_is_integer(v) && (json_integer_value(v) == 0 ||
		    json_integer_value(v) == 1))
			return 0;
		return fail(where, wherelen, path);
	default:
		break;
	}

	/* string kinds */
	if (!json_is_string(v))
		return fail(where, wherelen, path);
	const char *str = json_string_value(v);
	if (strlen(str) != json_string_length(v))
		return fail(where, wherelen, path);	/* embedded NUL */
	int ok = 0;
	switch (s->kind) {
	case SK_ENUM:
		for (i = 0; s->values[i] != NULL; i++)
			if (strcmp(str, s->values[i]) == 0)
				ok = 1;
		break;
	case SK_ID:
		ok = id_is_valid(str, s->prefix);
		break;
	case SK_NAME:
		ok = name_is_plugin(str);
		break;
	case SK_PROFILE:
		ok = name_is_profile(str);
		break;
	case SK_INPUT_NAME:
		ok = name_is_input(str);
		break;
	case SK_VERSION:
		ok = version_is_valid(str);
		break;
	case SK_TEXT:
		ok = text_is_manifest(str, (size_t)s->max);
		break;
	default:
		ok = 0;
	}
	return ok ? 0 : fail(where, wherelen, path);
}

int
shape_check(const struct shape *s, const json_t *v, char *where,
    size_t wherelen)
{
	if (wherelen > 0)
		where[0] = '\0';
	return check(s, v, "", where, wherelen);
}
