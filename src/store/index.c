/* Marketplace index parsing (see index.h and docs/marketplace.md). */
#include "store/index.h"
#include "protocol/shape.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
index_tag(unsigned long long version, char *out, size_t outlen)
{
	return str_fmt(out, outlen, "index/v%llu", version) == STR_OK ? 0 : -1;
}

int
plugin_tag(const char *name, const char *version, char *out, size_t outlen)
{
	if (!name_is_plugin(name) || !version_is_valid(version))
		return -1;
	return str_fmt(out, outlen, "%s/v%s", name, version) == STR_OK ? 0 : -1;
}

static int
gh_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 100 || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
			return 0;
		if (c == '.' && i + 1 < n && s[i + 1] == '.')
			return 0;
	}
	return 1;
}

int
repo_is_valid(const char *s)
{
	const char *slash = strchr(s, '/');

	if (slash == NULL || strlen(s) > REPO_MAX)
		return 0;
	return gh_name(s, (size_t)(slash - s)) &&
	    gh_name(slash + 1, strlen(slash + 1));
}

/* Every part is at most 6 digits (version_is_valid), so no overflow. */
static void
version_parts(const char *s, unsigned long v[3])
{
	int i = 0;

	v[0] = v[1] = v[2] = 0;
	for (; *s != '\0'; s++) {
		if (*s == '.')
			i++;
		else if (i < 3)
			v[i] = v[i] * 10 + (unsigned long)(*s - '0');
	}
}

int
version_cmp(const char *a, const char *b)
{
	unsigned long x[3], y[3];
	int i;

	version_parts(a, x);
	version_parts(b, y);
	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static int
get_hash(const json_t *o, const char *k, uint8_t out[SHA256_LEN])
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_string(v) || json_string_length(v) != SHA256_HEX_LEN)
		return -1;
	return hex_decode(json_string_value(v), out, SHA256_LEN);
}

static int
parse_version_entry(const char *name, const char *version, const json_t *v,
    struct index_entry *e)
{
	static const char *const keys[] = { "manifest_sha256",
	    "binary_sha256", "yanked", NULL };

	if (!json_is_object(v) || jsonx_exact_keys(v, keys) != 0 ||
	    strlen(version) >= sizeof(e->version) || !version_is_valid(version))
		return -1;
	memset(e, 0, sizeof(*e));
	if (str_fmt(e->name, sizeof(e->name), "%s", name) != STR_OK ||
	    str_fmt(e->version, sizeof(e->version), "%s", version) != STR_OK)
		return -1;
	if (get_hash(v, "manifest_sha256", e->manifest_sha256) != 0 ||
	    get_hash(v, "binary_sha256", e->binary_sha256) != 0 ||
	    !json_is_boolean(json_object_get(v, "yanked")))
		return -1;
	e->yanked = json_is_true(json_object_get(v, "yanked"));
	return 0;
}

static int
parse_plugins(const json_t *plugins, struct mindex *ix, const char **why)
{
	const char *name, *version;
	json_t *versions, *v;

	*why = "index plugins is not an object of at most 256 plugins";
	if (!json_is_object(plugins) ||
	    json_object_size(plugins) > INDEX_MAX_PLUGINS)
		return -1;
	json_object_foreach((json_t *)plugins, name, versions) {
		/* "index" is the index's own tag prefix: no plugin takes it. */
		*why = "index plugin name invalid";
		if (strlen(name) >= sizeof(ix->e[0].name) ||
		    !name_is_plugin(name) || strcmp(name, "index") == 0)
			return -1;
		*why = "index plugin has no versions, or too many";
		if (!json_is_object(versions) || json_object_size(versions) == 0 ||
		    json_object_size(versions) > INDEX_MAX_VERSIONS)
			return -1;
		json_object_foreach(versions, version, v) {
			*why = "index has too many plugin versions";
			if (ix->n >= INDEX_MAX_ENTRIES)
				return -1;
			*why = "index version entry invalid";
			if (parse_version_entry(name, version, v,
			    &ix->e[ix->n]) != 0)
				return -1;
			ix->n++;
		}
	}
	return 0;
}

int
index_parse(const char *data, size_t len, struct mindex *ix, const char **why)
{
	static const char *const top[] = { "schema", "repository", "version",
	    "expires", "plugins", NULL };
	json_t *doc = NULL, *v;
	int ret = -1;

	memset(ix, 0, sizeof(*ix));
	*why = "index is larger than its limit";
	if (len > INDEX_MAX_BYTES)
		goto out;
	*why = "index is not strict JSON";
	doc = jsonx_parse(data, len, INDEX_MAX_BYTES, 4);
	if (doc == NULL || !json_is_object(doc))
		goto out;
	*why = "index keys are not exactly the documented ones";
	if (jsonx_exact_keys(doc, top) != 0)
		goto out;
	*why = "index schema is not 1";
	v = json_object_get(doc, "schema");
	if (!json_is_integer(v) || json_integer_value(v) != 1)
		goto out;
	*why = "index repository is not OWNER/REPO";
	v = json_object_get(doc, "repository");
	if (!json_is_string(v) || json_string_length(v) > REPO_MAX ||
	    strlen(json_string_value(v)) != json_string_length(v) ||
	    !repo_is_valid(json_string_value(v)))
		goto out;
	if (str_fmt(ix->repo, sizeof(ix->repo), "%s", json_string_value(v)) !=
	    STR_OK)
		goto out;
	*why = "index version is not an integer in [1, 2^53)";
	v = json_object_get(doc, "version");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    (unsigned long long)json_integer_value(v) > INDEX_MAX_VERSION)
		goto out;
	ix->version = (unsigned long long)json_integer_value(v);
	*why = "index expires is not a positive integer (Unix seconds)";
	v = json_object_get(doc, "expires");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > (1LL << 40))
		goto out;
	ix->expires = (long long)json_integer_value(v);
	ix->e = xcalloc(INDEX_MAX_ENTRIES, sizeof(*ix->e));
	if (parse_plugins(json_object_get(doc, "plugins"), ix, why) != 0)
		goto out;
	sha256_mem(data, len, ix->sha256);
	*why = NULL;
	ret = 0;
out:
	if (ret != 0)
		index_free(ix);
	json_decref(doc);
	return ret;
}

void
index_free(struct mindex *ix)
{
	free(ix->e);
	memset(ix, 0, sizeof(*ix));
}

const struct index_entry *
index_find(const struct mindex *ix, const char *name, const char *version)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		if (strcmp(ix->e[i].name, name) == 0 &&
		    strcmp(ix->e[i].version, version) == 0)
			return &ix->e[i];
	return NULL;
}

const struct index_entry *
index_latest(const struct mindex *ix, const char *name)
{
	const struct index_entry *best = NULL;
	size_t i;

	for (i = 0; i < ix->n; i++) {
		const struct index_entry *e = &ix->e[i];
		if (strcmp(e->name, name) != 0 || e->yanked)
			continue;
		if (best == NULL || version_cmp(e->version, best->version) > 0)
			best = e;
	}
	return best;
}

int
index_has(const struct mindex *ix, const char *name)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		if (strcmp(ix->e[i].name, name) == 0)
			return 1;
	return 0;
}
