/* Strict profile-table readers (see ptable.h). */
#include "sources/ptable.h"

#include <string.h>

int
pt_str(const json_t *t, const char *key, char *out, size_t outlen)
{
	const json_t *v = json_object_get(t, key);
	const char *s;
	size_t n, i;

	if (v == NULL)
		return 0;
	if (!json_is_string(v))
		return -1;
	s = json_string_value(v);
	n = json_string_length(v);
	if (strlen(s) != n || n + 1 > outlen)
		return -1;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return -1;
	memcpy(out, s, n + 1);
	return 1;
}

int
pt_uint(const json_t *t, const char *key, unsigned long long min,
    unsigned long long max, unsigned long long def, unsigned long long *out)
{
	const json_t *v = json_object_get(t, key);

	*out = def;
	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (unsigned long long)json_integer_value(v) < min ||
	    (unsigned long long)json_integer_value(v) > max)
		return -1;
	*out = (unsigned long long)json_integer_value(v);
	return 1;
}

int
pt_bool(const json_t *t, const char *key, int def, int *out)
{
	const json_t *v = json_object_get(t, key);

	*out = def;
	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return -1;
	*out = json_is_true(v);
	return 1;
}

/* Components between slashes: none empty, ".", or "..". */
static int
clean_components(const char *s)
{
	const char *p = s;

	for (;;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return -1;
		if (e == NULL)
			return 0;
		p = e + 1;
	}
}

static int
printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return -1;
	return 0;
}

int
pt_home_path_ok(const char *s)
{
	if (strncmp(s, "~/", 2) != 0 || printable(s) != 0)
		return -1;
	return clean_components(s + 2);
}

int
pt_abs_path_ok(const char *s, int allow_root)
{
	if (s[0] != '/' || printable(s) != 0)
		return -1;
	if (s[1] == '\0')
		return allow_root ? 0 : -1;
	return clean_components(s + 1);
}
