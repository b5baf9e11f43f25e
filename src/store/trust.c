/* The trust configuration (see trust.h). */
#include "store/trust.h"
#include "protocol/shape.h"
#include "sigstore/sigstore.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/sysconf.h"
#include "lib/toml.h"
#include "lib/str.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRUST_TOML_MAX (64 * 1024)

/* A TOML string read as a C string: no NUL inside, at most max bytes. */
static const char *
str_of(const json_t *v, size_t max)
{
	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

/* https://, file:/// or an absolute path; printable ASCII without spaces,
 * quotes, backslashes, query or fragment, no "..". Checked again by the
 * fetcher for its scheme. */
int
trust_url_ok(const char *u)
{
	size_t i, n = strlen(u);

	if (n == 0 || n >= TRUST_URL_MAX || strstr(u, "..") != NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (u[i] <= 0x20 || u[i] >= 0x7f || u[i] == '"' ||
		    u[i] == '\\' || u[i] == '?' || u[i] == '#' || u[i] == '\'')
			return 0;
	if (strncmp(u, "https://", 8) == 0)
		return n > 8 && u[8] != '/';
	if (strncmp(u, "file:///", 8) == 0)
		return 1;
	return u[0] == '/';
}

/* A GitHub numeric id: a TOML integer of at least 1, kept in decimal as
 * the certificate spells it. */
static int
id_of(const json_t *v, char out[TRUST_ID_MAX])
{
	if (!json_is_integer(v) || json_integer_value(v) < 1)
		return -1;
	return str_fmt(out, TRUST_ID_MAX, "%lld",
	    (long long)json_integer_value(v)) == STR_OK ? 0 : -1;
}

static int
parse_market(const char *name, const json_t *tab, struct market_conf *m,
    char *why, size_t whylen)
{
	const char *k, *s;
	json_t *v;
	int have_url = 0, have_repo = 0, have_off = 0;

	memset(m, 0, sizeof(*m));
	if (strlen(name) >= sizeof(m->name) || !name_is_profile(name)) {
		str_msg(why, whylen, "trust.toml: a marketplace name is not "
		    "[a-z0-9][a-z0-9_-]* of at most 64 characters");
		return -1;
	}
	if (str_fmt(m->name, sizeof(m->name), "%s", name) != STR_OK)
		return -1;	/* not reached: the length is checked above */
	if (!json_is_object(tab)) {
		str_msg(why, whylen, "trust.toml: marketplaces.%s is not a "
		    "table", m->name);
		return -1;
	}
	json_object_foreach((json_t *)tab, k, v) {
		if (strcmp(k, "url") == 0 && (s = str_of(v, TRUST_URL_MAX - 1)) &&
		    trust_url_ok(s) && str_fmt(m->url, sizeof(m->url), "%s", s) ==
		    STR_OK) {
			have_url = 1;
		} else if (strcmp(k, "repository") == 0 &&
		    (s = str_of(v, REPO_MAX)) && repo_is_valid(s) &&
		    str_fmt(m->repo, sizeof(m->repo), "%s", s) == STR_OK) {
			have_repo = 1;
		} else if (strcmp(k, "official") == 0 && json_is_boolean(v)) {
			m->official = json_is_true(v);
			have_off = 1;
		} else if (strcmp(k, "repository_id") == 0 &&
		    id_of(v, m->repo_id) == 0) {
			continue;
		} else if (strcmp(k, "owner_id") == 0 &&
		    id_of(v, m->owner_id) == 0) {
			continue;
		} else if (strcmp(k, "index_floor") == 0 && json_is_integer(v) &&
		    json_integer_value(v) >= 1 &&
		    (unsigned long long)json_integer_value(v) <=
		    INDEX_MAX_VERSION) {
			m->index_floor = (unsigned long long)json_integer_value(v);
		} else {
			str_msg(why, whylen, "trust.toml: marketplaces.%s: an "
			    "unknown key or an invalid url, repository, "
			    "repository_id, owner_id, index_floor or official",
			    m->name);
			return -1;
		}
	}
	if (!have_url || !have_repo || !have_off) {
		str_msg(why, whylen, "trust.toml: marketplaces.%s needs url, "
		    "repository and official", m->name);
		return -1;
	}
	return 0;
}

int
trust_parse(const char *text, size_t len, struct trust *t, char *why,
    size_t whylen)
{
	struct toml_error terr;
	json_t *doc, *v, *mk;
	const char *k, *s;
	int ret = -1;

	t->release_repo[0] = '\0';
	t->release_repo_id[0] = t->release_owner_id[0] = '\0';
	t->release_url[0] = '\0';
	t->nmarkets = 0;
	doc = toml_parse(text, len, &terr);
	if (doc == NULL) {
		str_msg(why, whylen, "trust.toml line %d: %s", terr.line,
		    terr.msg);
		return -1;
	}
	json_object_foreach(doc, k, v) {
		if (strcmp(k, "release_repository") == 0 &&
		    (s = str_of(v, REPO_MAX)) && repo_is_valid(s) &&
		    str_fmt(t->release_repo, sizeof(t->release_repo), "%s", s) ==
		    STR_OK) {
			continue;
		} else if (strcmp(k, "release_url") == 0 &&
		    (s = str_of(v, TRUST_URL_MAX - 1)) && trust_url_ok(s) &&
		    str_fmt(t->release_url, sizeof(t->release_url), "%s", s) ==
		    STR_OK) {
			continue;
		} else if (strcmp(k, "marketplaces") == 0 && json_is_object(v)) {
			continue;
		} else if (strcmp(k, "release_repository_id") == 0 &&
		    id_of(v, t->release_repo_id) == 0) {
			continue;
		} else if (strcmp(k, "release_owner_id") == 0 &&
		    id_of(v, t->release_owner_id) == 0) {
			continue;
		} else {
			str_msg(why, whylen, "trust.toml: an unknown key, or an "
			    "invalid release_repository, release_repository_id, "
			    "release_owner_id, release_url or marketplaces");
			goto out;
		}
	}
	if (t->release_repo[0] == '\0') {
		str_msg(why, whylen, "trust.toml: release_repository missing");
		goto out;
	}
	mk = json_object_get(doc, "marketplaces");
	if (mk != NULL) {
		if (json_object_size(mk) > LOCKDB_MAX_MARKETS) {
			str_msg(why, whylen, "trust.toml: more than %d "
			    "marketplaces", LOCKDB_MAX_MARKETS);
			goto out;
		}
		json_object_foreach(mk, k, v) {
			if (parse_market(k, v, &t->m[t->nmarkets], why,
			    whylen) != 0)
				goto out;
			t->nmarkets++;
		}
	}
	ret = 0;
out:
	if (ret != 0)
		t->nmarkets = 0;
	json_decref(doc);
	return ret;
}

int
trust_load(struct trust *t, char *why, size_t whylen)
{
	const char *swhy = NULL;
	char *text = NULL, *root = NULL;
	size_t len = 0, rlen = 0;
	int err, ret = -1;

	memset(t, 0, sizeof(*t));
	text = sysconf_read(LF_SYS_TRUST, TRUST_TOML_MAX, &len, &swhy);
	if (text == NULL) {
		str_msg(why, whylen, "system configuration %s: %s", LF_SYS_TRUST,
		    swhy ? swhy : "unreadable");
		goto out;
	}
	if (trust_parse(text, len, t, why, whylen) != 0)
		goto out;
	root = sysconf_read(LF_SYS_TRUSTED_ROOT, SIGSTORE_MAX_ROOT, &rlen, &swhy);
	if (root == NULL) {
		str_msg(why, whylen, "system configuration %s: %s",
		    LF_SYS_TRUSTED_ROOT, swhy ? swhy : "unreadable");
		goto out;
	}
	err = sigstore_root_parse((const uint8_t *)root, rlen, &t->root);
	if (err != SIGSTORE_OK) {
		str_msg(why, whylen, "%s refused: %s (%s)", LF_SYS_TRUSTED_ROOT,
		    sigstore_errname(err), sigstore_strerror(err));
		t->root = NULL;
		goto out;
	}
	ret = 0;
out:
	if (ret != 0)
		trust_free(t);
	free(text);
	free(root);
	return ret;
}

void
trust_free(struct trust *t)
{
	if (t->root != NULL)
		sigstore_root_free(t->root);
	memset(t, 0, sizeof(*t));
}

const struct market_conf *
trust_market(const struct trust *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nmarkets; i++)
		if (strcmp(t->m[i].name, name) == 0)
			return &t->m[i];
	return NULL;
}

static int
verify_as(const struct trust *t, const struct market_conf *m, const char *tag,
    const uint8_t sha[SHA256_LEN], const uint8_t *bundle, size_t bundlelen,
    int pin_ids, struct sigstore_result *res, char *why, size_t whylen)
{
	struct sigstore_policy_buf pbuf;
	struct sigstore_policy pol;
	struct sigstore_bundle *b = NULL;
	int err;

	ASSERT(t->root != NULL);
	err = sigstore_policy_github_release(&pol, &pbuf, m->repo, tag);
	if (pin_ids) {
		pol.source_repo_id = m->repo_id;
		pol.source_owner_id = m->owner_id;
	}
	if (err == SIGSTORE_OK)
		err = sigstore_bundle_parse(bundle, bundlelen, &b);
	if (err == SIGSTORE_OK)
		err = sigstore_verify(t->root, b, sha, &pol, res);
	if (b != NULL)
		sigstore_bundle_free(b);
	if (err != SIGSTORE_OK) {
		str_msg(why, whylen, "signature refused for tag %s: %s (%s)",
		    tag, sigstore_errname(err), sigstore_strerror(err));
		return -1;
	}
	return 0;
}

int
trust_verify(const struct trust *t, const struct market_conf *m,
    const char *tag, const uint8_t sha[SHA256_LEN], const uint8_t *bundle,
    size_t bundlelen, char *why, size_t whylen)
{
	/* A name can change hands; without the ids, nothing verifies. */
	if (m->repo_id[0] == '\0' || m->owner_id[0] == '\0') {
		/* make install's trust.toml pins none (docs/host.md, step
		 * 8): name the command that shows them, offline too; the
		 * --marketplace word only when there is a choice */
		if (t->nmarkets > 1)
			str_msg(why, whylen, "trust.toml pins no repository_id "
			    "and owner_id for marketplace %s: lockfile plugin "
			    "identity --marketplace %s [--from DIR] shows the ones "
			    "its signatures carry; pin them as root (docs/host.md, "
			    "step 8)", m->name, m->name);
		else
			str_msg(why, whylen, "trust.toml pins no repository_id "
			    "and owner_id for marketplace %s: lockfile plugin "
			    "identity [--from DIR] shows the ones its signatures "
			    "carry; pin them as root (docs/host.md, step 8)",
			    m->name);
		return -1;
	}
	return verify_as(t, m, tag, sha, bundle, bundlelen, 1, NULL, why,
	    whylen);
}

int
trust_verify_names(const struct trust *t, const struct market_conf *m,
    const char *tag, const uint8_t sha[SHA256_LEN], const uint8_t *bundle,
    size_t bundlelen, char *repo_id, char *owner_id, char *why,
    size_t whylen)
{
	struct sigstore_result res;

	repo_id[0] = owner_id[0] = '\0';
	if (verify_as(t, m, tag, sha, bundle, bundlelen, 0, &res, why,
	    whylen) != 0)
		return -1;
	if (str_fmt(repo_id, TRUST_ID_MAX, "%s", res.repo_id) != STR_OK ||
	    str_fmt(owner_id, TRUST_ID_MAX, "%s", res.owner_id) != STR_OK)
		repo_id[0] = owner_id[0] = '\0';
	return 0;
}
