/* plugins.lock reading and atomic writing (see lockdb.h). */
#include "store/lockdb.h"
#include "protocol/shape.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
get_str(const json_t *o, const char *k, char *out, size_t outlen)
{
	const json_t *v = json_object_get(o, k);
	size_t n;

	if (!json_is_string(v))
		return -1;
	n = json_string_length(v);
	if (n == 0 || n >= outlen || strlen(json_string_value(v)) != n)
		return -1;
	memcpy(out, json_string_value(v), n + 1);
	return 0;
}

static int
get_hash(const json_t *o, const char *k, uint8_t out[SHA256_LEN])
{
	char hex[SHA256_HEX_LEN + 1];

	if (get_str(o, k, hex, sizeof(hex)) != 0)
		return -1;
	return hex_decode(hex, out, SHA256_LEN);
}

static int
market_name_ok(const char *s)
{
	return name_is_profile(s);	/* same alphabet: [a-z0-9][a-z0-9_-]* */
}

int
lockdb_parse(const char *data, size_t len, struct lockdb *db,
    const char **why)
{
	json_t *doc, *arr, *v;
	size_t i;
	int ret = -1;

	memset(db, 0, sizeof(*db));
	*why = "plugins.lock is not strict JSON";
	doc = jsonx_parse(data, len, LOCKDB_MAX_BYTES, 5);
	if (doc == NULL || !json_is_object(doc) ||
	    json_integer_value(json_object_get(doc, "schema")) != 1)
		goto out;
	*why = "plugins.lock entry invalid";
	arr = json_object_get(doc, "plugins");
	if (!json_is_array(arr) || json_array_size(arr) > LOCKDB_MAX_PLUGINS)
		goto out;
	json_array_foreach(arr, i, v) {
		struct lock_entry *e = &db->e[i];
		if (get_str(v, "name", e->name, sizeof(e->name)) != 0 ||
		    !name_is_plugin(e->name) ||
		    get_str(v, "version", e->version, sizeof(e->version)) != 0 ||
		    !version_is_valid(e->version) ||
		    get_hash(v, "manifest_sha256", e->manifest_sha256) != 0 ||
		    get_hash(v, "binary_sha256", e->binary_sha256) != 0 ||
		    get_str(v, "marketplace", e->marketplace,
		    sizeof(e->marketplace)) != 0 ||
		    !market_name_ok(e->marketplace) ||
		    !json_is_boolean(json_object_get(v, "official")) ||
		    !json_is_boolean(json_object_get(v, "yanked")))
			goto out;
		e->official = json_is_true(json_object_get(v, "official"));
		e->yanked = json_is_true(json_object_get(v, "yanked"));
		if (lockdb_find_const(db, e->name) != NULL &&
		    lockdb_find_const(db, e->name) != e)
			goto out;	/* one entry per name */
		db->n++;
	}
	*why = "plugins.lock index record invalid";
	arr = json_object_get(doc, "indexes");
	if (arr != NULL) {
		if (!json_is_array(arr) || json_array_size(arr) > LOCKDB_MAX_MARKETS)
			goto out;
		json_array_foreach(arr, i, v) {
			struct lock_index *x = &db->idx[i];
			json_t *ver = json_object_get(v, "version");
			if (get_str(v, "marketplace", x->marketplace,
			    sizeof(x->marketplace)) != 0 ||
			    !market_name_ok(x->marketplace) ||
			    !json_is_integer(ver) || json_integer_value(ver) < 0 ||
			    get_hash(v, "sha256", x->sha256) != 0)
				goto out;
			x->version = (unsigned long long)json_integer_value(ver);
			db->nidx++;
		}
	}
	*why = NULL;
	ret = 0;
out:
	if (ret != 0)
		memset(db, 0, sizeof(*db));
	json_decref(doc);
	return ret;
}

int
lockdb_load(const char *path, struct lockdb *db, const char **why)
{
	char *data = NULL;
	struct stat st;
	int fd, ret = -1;

	memset(db, 0, sizeof(*db));
	fd = open(path, OPEN_RO_SAFE);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		*why = "plugins.lock cannot be opened";
		return -1;
	}
	*why = "plugins.lock is not a regular file of sane size";
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    st.st_size > LOCKDB_MAX_BYTES)
		goto out;
	*why = "plugins.lock is writable by others";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		goto out;
	data = xmalloc((size_t)st.st_size + 1);
	*why = "plugins.lock cannot be read";
	if (read_full(fd, data, (size_t)st.st_size) != st.st_size)
		goto out;
	ret = lockdb_parse(data, (size_t)st.st_size, db, why);
out:
	free(data);
	close(fd);
	return ret;
}

static json_t *
hexstr(const uint8_t h[SHA256_LEN])
{
	char hex[SHA256_HEX_LEN + 1];

	hex_encode(h, SHA256_LEN, hex);
	return json_string(hex);
}

int
lockdb_save(const char *path, const struct lockdb *db, const char **why)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *text = NULL, *slash;
	json_t *doc = json_object(), *arr = json_array(), *idx = json_array();
	size_t i;
	int fd = -1, dfd = -1, ret = -1;

	for (i = 0; i < db->n; i++) {
		const struct lock_entry *e = &db->e[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(e->name));
		json_object_set_new(o, "version", json_string(e->version));
		json_object_set_new(o, "manifest_sha256", hexstr(e->manifest_sha256));
		json_object_set_new(o, "binary_sha256", hexstr(e->binary_sha256));
		json_object_set_new(o, "marketplace", json_string(e->marketplace));
		json_object_set_new(o, "official", json_boolean(e->official));
		json_object_set_new(o, "yanked", json_boolean(e->yanked));
		json_array_append_new(arr, o);
	}
	for (i = 0; i < db->nidx; i++) {
		const struct lock_index *x = &db->idx[i];
		json_t *o = json_object();
		json_object_set_new(o, "marketplace", json_string(x->marketplace));
		json_object_set_new(o, "version", json_integer((json_int_t)x->version));
		json_object_set_new(o, "sha256", hexstr(x->sha256));
		json_array_append_new(idx, o);
	}
	json_object_set_new(doc, "schema", json_integer(1));
	json_object_set_new(doc, "plugins", arr);
	json_object_set_new(doc, "indexes", idx);
	text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (text == NULL)
		fatal("json_dumps failed");

	*why = "plugins.lock path too long";
	if (str_fmt(tmp, sizeof(tmp), "%s.tmp", path) != STR_OK ||
	    str_fmt(dir, sizeof(dir), "%s", path) != STR_OK)
		goto out;
	slash = strrchr(dir, '/');
	if (slash == NULL)
		memcpy(dir, ".", 2);
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	*why = "cannot write plugins.lock";
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || write_full(fd, text, strlen(text)) != 0 ||
	    write_full(fd, "\n", 1) != 0 || fsync(fd) != 0)
		goto out;
	if (close(fd) != 0) {
		fd = -1;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto out;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) != 0)
		goto out;
	*why = NULL;
	ret = 0;
out:
	if (fd >= 0) {
		close(fd);
		(void)unlink(tmp);
	}
	if (dfd >= 0)
		close(dfd);
	free(text);
	json_decref(doc);
	return ret;
}

const struct lock_entry *
lockdb_find_const(const struct lockdb *db, const char *name)
{
	size_t i;

	for (i = 0; i < db->n; i++)
		if (strcmp(db->e[i].name, name) == 0)
			return &db->e[i];
	return NULL;
}

struct lock_entry *
lockdb_find(struct lockdb *db, const char *name)
{
	return (struct lock_entry *)lockdb_find_const(db, name);
}
