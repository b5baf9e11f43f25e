/* Release manifest parsing (see manifest.h and docs/releases.md). */
#include "update/manifest.h"
#include "protocol/shape.h"
#include "lib/jsonx.h"
#include "lib/paths.h"
#include "lib/str.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
	[RELART_BIN] = "bin",
	[RELART_SHARE] = "share",
	[RELART_PLUGIN] = "plugin",
	[RELART_IMAGE] = "image",
	[RELART_TRUST] = "trust",
	[RELART_TMPFILES] = "tmpfiles",
	[RELART_SOURCE] = "source",
	[RELART_INFO] = "info",
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

const char *
relart_kind_name(enum relart_kind k)
{
	return (size_t)k < NKINDS ? kind_names[k] : "?";
}

int
relart_installed(const struct relart *a)
{
	return a->kind == RELART_BIN || a->kind == RELART_SHARE;
}

int
release_tag_valid(const char *tag, char *version, size_t versionlen)
{
	size_t n = strlen(tag);

	if (n < 2 || n >= TAG_MAX || tag[0] != 'v' ||
	    !version_is_valid(tag + 1) || n - 1 >= versionlen)
		return 0;
	memcpy(version, tag + 1, n);	/* with its NUL */
	return 1;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int
relart_name_valid(const char *name, enum relart_kind kind)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > RELMAN_NAME_MAX || strstr(name, "..") != NULL ||
	    ends_with(name, LF_BUNDLE_SUFFIX) ||
	    strcmp(name, RELMAN_FILE) == 0 || strcmp(name, "install.sh") == 0)
		return 0;
	if (!((name[0] >= 'a' && name[0] <= 'z') ||
	    (name[0] >= '0' && name[0] <= '9')))
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_')
			continue;
		if (c == '.' && kind != RELART_BIN)
			continue;
		return 0;
	}
	return 1;
}

/* A JSON string as a C string of at most max bytes, no NUL inside. */
static const char *
cstr(const json_t *v, size_t max)
{
	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

static int
parse_kind(const char *s, enum relart_kind *k)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (strcmp(s, kind_names[i]) == 0) {
			*k = (enum relart_kind)i;
			return 0;
		}
	return -1;
}

static int
parse_artifact(const char *name, const json_t *v, struct relart *a)
{
	static const char *const keys[] = { "kind", "size", "sha256", NULL };
	const char *s;
	const json_t *x;

	memset(a, 0, sizeof(*a));
	if (!json_is_object(v) || jsonx_exact_keys(v, keys) != 0)
		return -1;
	s = cstr(json_object_get(v, "kind"), 16);
	if (s == NULL || parse_kind(s, &a->kind) != 0 ||
	    !relart_name_valid(name, a->kind))
		return -1;
	if (str_fmt(a->name, sizeof(a->name), "%s", name) != STR_OK)
		return -1;
	x = json_object_get(v, "size");
	if (!json_is_integer(x) || json_integer_value(x) < 0 ||
	    (unsigned long long)json_integer_value(x) > RELMAN_MAX_SIZE)
		return -1;
	a->size = (unsigned long long)json_integer_value(x);
	s = cstr(json_object_get(v, "sha256"), SHA256_HEX_LEN);
	if (s == NULL || strlen(s) != SHA256_HEX_LEN ||
	    hex_decode(s, a->sha256, SHA256_LEN) != 0)
		return -1;
	return 0;
}

enum relman_status
relman_parse(const char *data, size_t len, struct relman *m, const char **why)
{
	static const char *const top[] = { "schema", "repository", "tag",
	    "commit", "source_date_epoch", "artifacts", NULL };
	json_t *doc = NULL, *v, *arts;
	const char *s, *name;
	enum relman_status ret = RELMAN_E_INVALID;

	memset(m, 0, sizeof(*m));
	*why = "release manifest is larger than its limit";
	if (len > RELMAN_MAX_BYTES)
		goto out;
	*why = "release manifest is not strict JSON";
	doc = jsonx_parse(data, len, RELMAN_MAX_BYTES, 3);
	if (doc == NULL || !json_is_object(doc))
		goto out;
	*why = "release manifest keys are not exactly the documented ones";
	if (jsonx_exact_keys(doc, top) != 0)
		goto out;
	*why = "release manifest schema is not 1";
	v = json_object_get(doc, "schema");
	if (!json_is_integer(v) || json_integer_value(v) != 1)
		goto out;
	*why = "release manifest repository is not OWNER/REPO";
	s = cstr(json_object_get(doc, "repository"), REPO_MAX);
	if (s == NULL || !repo_is_valid(s))
		goto out;
	if (str_fmt(m->repo, sizeof(m->repo), "%s", s) != STR_OK)
		goto out;
	*why = "release manifest tag is not vX.Y.Z";
	s = cstr(json_object_get(doc, "tag"), TAG_MAX - 1);
	if (s == NULL || !release_tag_valid(s, m->version, sizeof(m->version)))
		goto out;
	if (str_fmt(m->tag, sizeof(m->tag), "%s", s) != STR_OK)
		goto out;
	*why = "release manifest commit is not 40 lowercase hex digits";
	s = cstr(json_object_get(doc, "commit"), 40);
	if (s == NULL || strlen(s) != 40 || !is_lower_hex(s, 40))
		goto out;
	if (str_fmt(m->commit, sizeof(m->commit), "%s", s) != STR_OK)
		goto out;
	*why = "release manifest source_date_epoch is not Unix seconds";
	v = json_object_get(doc, "source_date_epoch");
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > (1LL << 40))
		goto out;
	m->source_date_epoch = (long long)json_integer_value(v);
	*why = "release manifest artifacts is not an object of 1 to 64";
	arts = json_object_get(doc, "artifacts");
	if (!json_is_object(arts) || json_object_size(arts) == 0 ||
	    json_object_size(arts) > RELMAN_MAX_ARTIFACTS)
		goto out;
	*why = "release manifest artifact invalid (name, kind, size or sha256)";
	json_object_foreach(arts, name, v) {
		if (parse_artifact(name, v, &m->a[m->n]) != 0)
			goto out;
		m->n++;
	}
	sha256_mem(data, len, m->sha256);
	*why = NULL;
	ret = RELMAN_OK;
out:
	if (ret != RELMAN_OK)
		memset(m, 0, sizeof(*m));
	json_decref(doc);
	return ret;
}

const struct relart *
relman_find(const struct relman *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->a[i].name, name) == 0)
			return &m->a[i];
	return NULL;
}

const char *
relman_missing_exe(const struct relman *m)
{
	static const char *const exes[] = { LF_EXE_ALL };
	size_t i;

	for (i = 0; i < sizeof(exes) / sizeof(exes[0]); i++) {
		const struct relart *a = relman_find(m, exes[i]);
		if (a == NULL || a->kind != RELART_BIN)
			return exes[i];
	}
	return NULL;
}
