/* lockfile plugin install | update | verify: read the signed indexes,
 * verify, then write. The order is the point: every file is downloaded
 * into the staging directory and checked (index, both signatures, both
 * hashes against the index, the manifest's own binary hash, strict
 * manifest, static ELF), every loosening is accepted on the terminal, and
 * only then do verified versions move into place and plugins.lock is
 * rewritten atomically. Any refusal before that point leaves the store and
 * plugins.lock as they were. */
#include "store/install.h"
#include "store/pcmd.h"
#include "store/loosen.h"
#include "store/marketplace.h"
#include "host/report.h"
#include "protocol/shape.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/render.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct change {
	const struct market_conf *m;
	struct index_entry ie;		/* what is installed */
	int has_old;
	struct lock_entry old;		/* what it replaces */
	int oldm_ok;
	struct manifest oldm, newm;
};

/* ---- indexes ---- */

/* The index of m, fetched once per command; NULL when refused. */
static const struct mindex *
get_index(struct pcmd *c, const struct market_conf *m)
{
	struct fetched *f;
	char why[512];

	ASSERT(m >= c->trust.m && m < c->trust.m + c->trust.nmarkets);
	f = &c->fx[m - c->trust.m];
	if (f->state == 0) {
		f->m = m;
		if (market_fetch_index(&c->trust, m, &c->st.db, c->now, &f->ix,
		    why, sizeof(why)) == 0) {
			f->state = 1;
		} else {
			f->state = -1;
			logit("marketplace %s refused: %s", m->name, why);
		}
	}
	return f->state == 1 ? &f->ix : NULL;
}

static int
record_index(struct lockdb *db, const char *market, const struct mindex *ix)
{
	struct lock_index *x = NULL;
	size_t i;

	for (i = 0; i < db->nidx; i++)
		if (strcmp(db->idx[i].marketplace, market) == 0)
			x = &db->idx[i];
	if (x == NULL) {
		if (db->nidx >= LOCKDB_MAX_MARKETS)
			return -1;
		x = &db->idx[db->nidx++];
		memset(x, 0, sizeof(*x));
		if (str_fmt(x->marketplace, sizeof(x->marketplace), "%s",
		    market) != STR_OK)
			return -1;
	}
	x->version = ix->version;
	memcpy(x->sha256, ix->sha256, SHA256_LEN);
	return 0;
}

/* What the accepted index of m says of every installed plugin from m: its
 * yanked flag; a version the index no longer lists, or lists with other
 * hashes, is recorded as withdrawn. */
static void
refresh_from_index(struct lockdb *db, const struct market_conf *m,
    const struct mindex *ix)
{
	size_t i;

	for (i = 0; i < db->n; i++) {
		struct lock_entry *e = &db->e[i];
		const struct index_entry *ie;
		if (strcmp(e->marketplace, m->name) != 0)
			continue;
		e->official = m->official;
		ie = index_find(ix, e->name, e->version);
		if (ie == NULL || !ct_equal(ie->manifest_sha256,
		    e->manifest_sha256, SHA256_LEN) ||
		    !ct_equal(ie->binary_sha256, e->binary_sha256, SHA256_LEN)) {
			printf("withdrawn %s %s: the index of %s %s; recorded "
			    "as yanked (the console refuses it)\n", e->name,
			    e->version, m->name, ie == NULL ? "no longer lists "
			    "it" : "names other hashes for it");
			e->yanked = 1;
			continue;
		}
		if (ie->yanked && !e->yanked)
			printf("yanked %s %s: yanked upstream; recorded (the "
			    "console refuses it)\n", e->name, e->version);
		e->yanked = ie->yanked;
	}
}

/* Record every index accepted in this command, with what it says. */
static int
record_indexes(struct pcmd *c, struct lockdb *db)
{
	size_t i;

	for (i = 0; i < c->trust.nmarkets; i++) {
		if (c->fx[i].state != 1)
			continue;
		if (record_index(db, c->trust.m[i].name, &c->fx[i].ix) != 0) {
			logit("plugins.lock holds too many marketplaces");
			return -1;
		}
		refresh_from_index(db, &c->trust.m[i], &c->fx[i].ix);
	}
	return 0;
}

/* Installed plugins whose marketplace trust.toml no longer names cannot
 * be verified: recorded as withdrawn. Returns how many. */
static size_t
orphans(struct pcmd *c, struct lockdb *db)
{
	size_t i, n = 0;

	for (i = 0; i < db->n; i++) {
		struct lock_entry *e = &db->e[i];
		if (trust_market(&c->trust, e->marketplace) != NULL)
			continue;
		if (!e->yanked)
			printf("withdrawn %s %s: marketplace %s is no longer in "
			    "trust.toml; recorded as yanked\n", e->name,
			    e->version, e->marketplace);
		e->yanked = 1;
		n++;
	}
	return n;
}

/* Whatever else a command refuses, every index it accepted is recorded
 * with what it says (yanks, withdrawn versions, the new rollback
 * baseline), each marketplace on its own: a marketplace that cannot be
 * read, a plugin that fails its checks or a loosening not accepted must
 * not keep another index's yank from reaching plugins.lock. Plugin
 * entries and files are left as they are. Called on every way out of
 * install, update and verify; after a commit it finds nothing new. */
static void
record_accepted(struct pcmd *c, int with_orphans)
{
	struct lockdb *db;
	const char *why;

	if (c->trust.root == NULL)
		return;		/* no trust configuration: nothing read */
	db = xmalloc(sizeof(*db));
	*db = c->st.db;
	if (with_orphans)
		(void)orphans(c, db);
	if (record_indexes(c, db) == 0 &&
	    memcmp(db, &c->st.db, sizeof(*db)) != 0) {
		if (lockdb_save(c->st.lockpath, db, &why) != 0)
			logit("%s", why);
		else
			c->st.db = *db;
	}
	free(db);
}

/* The marketplaces whose index was refused in this command, named on
 * stderr; 1 when there was one. */
static int
report_unread(const struct pcmd *c)
{
	char names[LOCKDB_MAX_MARKETS * 70] = "";
	size_t i;

	for (i = 0; i < c->trust.nmarkets; i++)
		if (c->fx[i].state == -1)
			str_msg(names + strlen(names), sizeof(names) -
			    strlen(names), "%s%s", names[0] ? ", " : "",
			    c->trust.m[i].name);
	if (names[0] == '\0')
		return 0;
	logit("not read: %s (what the other marketplaces' indexes say is "
	    "recorded)", names);
	return 1;
}

/* ---- changes ---- */

static int
stage_change(struct pcmd *c, struct change *ch)
{
	char why[512];
	int fd, ret;

	fd = stage_plugin_dir(&c->sg, ch->ie.name, ch->ie.version, why,
	    sizeof(why));
	if (fd < 0) {
		logit("%s", why);
		return -1;
	}
	ret = market_fetch_plugin(&c->trust, ch->m, &ch->ie, fd, &ch->newm,
	    why, sizeof(why));
	close(fd);
	if (ret != 0) {
		logit("%s %s from %s refused: %s", ch->ie.name, ch->ie.version,
		    ch->m->name, why);
		return -1;
	}
	if (ch->has_old) {
		char owhy[256];
		int ofd = stage_open_installed(&c->sg, ch->old.name,
		    ch->old.version);
		ch->oldm_ok = ofd >= 0 && market_read_manifest(ofd,
		    ch->old.manifest_sha256, &ch->oldm, owhy,
		    sizeof(owhy)) == 0;
		if (ofd >= 0)
			close(ofd);
	}
	return 0;
}

/* 1 when the change may go ahead. */
static int
accept_change(const struct change *ch)
{
	char why[ISO_DETAIL_MAX + 128];
	int r;

	if (!ch->has_old || (ch->oldm_ok &&
	    manifest_is_tightening(&ch->oldm, &ch->newm)))
		return 1;
	r = loosen_ask(ch->m->name, ch->m->official, ch->oldm_ok ? &ch->oldm :
	    NULL, ch->old.version, &ch->newm, why, sizeof(why));
	if (r < 0)
		logit("%s %s -> %s loosens its question, meanings, inputs or "
		    "limits; accepting needs the console terminal (%s): "
		    "refused", ch->ie.name, ch->old.version, ch->ie.version, why);
	else if (r == 0)
		logit("%s %s -> %s: the loosening was not accepted", ch->ie.name,
		    ch->old.version, ch->ie.version);
	return r == 1;
}

static void
set_entry(struct lockdb *db, const struct change *ch)
{
	struct lock_entry *e = lockdb_find(db, ch->ie.name);

	if (e == NULL) {
		ASSERT(db->n < LOCKDB_MAX_PLUGINS);
		e = &db->e[db->n++];
	}
	memset(e, 0, sizeof(*e));
	/* index entries and lock entries hold the same names and versions */
	ASSERT(str_fmt(e->name, sizeof(e->name), "%s", ch->ie.name) ==
	    STR_OK);
	ASSERT(str_fmt(e->version, sizeof(e->version), "%s",
	    ch->ie.version) == STR_OK);
	memcpy(e->manifest_sha256, ch->ie.manifest_sha256, SHA256_LEN);
	memcpy(e->binary_sha256, ch->ie.binary_sha256, SHA256_LEN);
	ASSERT(str_fmt(e->marketplace, sizeof(e->marketplace), "%s",
	    ch->m->name) == STR_OK);
	e->official = ch->m->official;
	e->yanked = 0;
}

/* Move every staged change into place, record them and the indexes, save
 * plugins.lock, then remove what they replaced. db is the record to write
 * (a copy of the loaded one, maybe already edited). */
static int
commit(struct pcmd *c, struct lockdb *db, struct change *chs, size_t n)
{
	char why[512];
	const char *swhy;
	size_t i, moved = 0;
	int ret = -1;

	for (i = 0; i < n; i++)
		set_entry(db, &chs[i]);
	if (record_indexes(c, db) != 0)
		return -1;
	if (n == 0 && memcmp(db, &c->st.db, sizeof(*db)) == 0)
		return 0;	/* nothing changed: nothing written */
	for (moved = 0; moved < n; moved++) {
		if (stage_commit(&c->sg, chs[moved].ie.name,
		    chs[moved].ie.version, why, sizeof(why)) != 0) {
			logit("%s", why);
			goto out;
		}
	}
	if (lockdb_save(c->st.lockpath, db, &swhy) != 0) {
		logit("%s", swhy);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (chs[i].has_old && strcmp(chs[i].old.version,
		    chs[i].ie.version) != 0 && stage_remove_version(&c->sg,
		    chs[i].old.name, chs[i].old.version) != 0)
			logit("%s %s: the replaced version could not be removed "
			    "(it is no longer recorded)", chs[i].old.name,
			    chs[i].old.version);
	c->st.db = *db;
	ret = 0;
out:
	if (ret != 0)	/* unrecorded, so never trusted; still, tidy up */
		for (i = 0; i < moved; i++)
			(void)stage_remove_version(&c->sg, chs[i].ie.name,
			    chs[i].ie.version);
	return ret;
}

/* "installed NAME VERSION" or "updated NAME OLD -> NEW" (oldversion
 * not NULL): the words in the order they are read (issue 32). */
static void
print_installed(const struct change *ch, const char *verb,
    const char *oldversion)
{
	char q[PROTO_MAX_MANIFEST_TEXT * 4 + 8];

	/* the human's terminal: rendered as every screen is
	 * (docs/rendering.md) */
	render_text(ch->newm.question, strlen(ch->newm.question),
	    render_locale_flags(), 0, q, sizeof(q), NULL);
	printf("%s %s %s%s%s from %s%s\n  question: %s\n", verb, ch->ie.name,
	    oldversion ? oldversion : "", oldversion ? " -> " : "",
	    ch->ie.version, ch->m->name, ch->m->official ? " (official)" :
	    " WARNING: unofficial marketplace", q);
}

/* ---- install ---- */

static int
parse_spec(const char *spec, char *name, size_t nlen, char *version,
    size_t vlen)
{
	const char *at = strchr(spec, '@');
	size_t n = at ? (size_t)(at - spec) : strlen(spec);

	version[0] = '\0';
	if (n == 0 || n >= nlen)
		return -1;
	memcpy(name, spec, n);
	name[n] = '\0';
	if (!name_is_plugin(name))
		return -1;
	if (at == NULL)
		return 0;
	if (strlen(at + 1) >= vlen || !version_is_valid(at + 1))
		return -1;
	return str_fmt(version, vlen, "%s", at + 1) == STR_OK ? 0 : -1;
}

/* The marketplace to install name from: the one it is installed from, the
 * one named with --marketplace, or the only one that lists it. */
static const struct market_conf *
choose_market(struct pcmd *c, const char *name, const struct lock_entry *cur)
{
	const struct market_conf *m = NULL, *found = NULL;
	size_t i, nfound = 0, nmarkets = 0;
	int failed = 0;

	if (cur != NULL || c->market != NULL) {
		const char *want = cur ? cur->marketplace : c->market;
		if (cur && c->market && strcmp(c->market, cur->marketplace)) {
			logit("%s is installed from %s: remove it first", name,
			    cur->marketplace);
			return NULL;
		}
		m = trust_market(&c->trust, want);
		if (m == NULL)
			logit("marketplace %s is not in trust.toml", want);
		else if (pcmd_skip_market(c, m)) {
			logit("%s is installed from %s, not from the mirrored "
			    "marketplace %s", name, want, c->only->name);
			return NULL;
		}
		return m != NULL && get_index(c, m) != NULL ? m : NULL;
	}
	for (i = 0; i < c->trust.nmarkets; i++) {
		const struct mindex *ix;
		if (pcmd_skip_market(c, &c->trust.m[i]))
			continue;
		nmarkets++;
		ix = get_index(c, &c->trust.m[i]);
		if (ix == NULL)
			failed = 1;
		else if (index_has(ix, name)) {
			found = &c->trust.m[i];
			nfound++;
		}
	}
	if (failed) {
		/* the marketplace's own refusal is logged above; the choice
		 * exists only with several (issue 32) */
		if (nmarkets > 1)
			logit("not every marketplace could be read: name one with "
			    "--marketplace");
		return NULL;
	}
	if (nfound == 0)
		logit("%s is in no marketplace of trust.toml", name);
	else if (nfound > 1)
		logit("%s is in several marketplaces: choose one with "
		    "--marketplace", name);
	return nfound == 1 ? found : NULL;
}

int
pcmd_install(struct pcmd *c, const char *spec)
{
	char name[33], version[21];
	const struct lock_entry *cur;
	const struct index_entry *ie;
	const struct mindex *ix;
	struct lockdb *db = NULL;
	struct change *ch = NULL;
	int rc = PCMD_REFUSED;

	if (parse_spec(spec, name, sizeof(name), version, sizeof(version))) {
		logit("usage: lockfile plugin install NAME[@VERSION]");
		return PCMD_USAGE;
	}
	if (pcmd_need_trust(c) != 0)
		return PCMD_CANNOT;
	cur = lockdb_find_const(&c->st.db, name);
	ch = xcalloc(1, sizeof(*ch));
	db = xmalloc(sizeof(*db));
	if ((ch->m = choose_market(c, name, cur)) == NULL)
		goto out;
	ix = get_index(c, ch->m);
	ie = version[0] ? index_find(ix, name, version) : index_latest(ix, name);
	if (ie == NULL || ie->yanked) {
		logit("%s%s%s: %s in marketplace %s", name, version[0] ? "@" : "",
		    version, ie ? "yanked (withdrawn)" : version[0] ?
		    "no such version" : "every version is yanked", ch->m->name);
		goto out;
	}
	if (cur != NULL && strcmp(cur->version, ie->version) == 0) {
		if (ct_equal(cur->manifest_sha256, ie->manifest_sha256,
		    SHA256_LEN) && ct_equal(cur->binary_sha256,
		    ie->binary_sha256, SHA256_LEN)) {
			printf("%s %s is already installed\n", name, ie->version);
			rc = PCMD_OK;
		} else
			logit("%s %s: the index names other hashes than the "
			    "installed ones; recorded as withdrawn", name,
			    ie->version);
		goto out;
	}
	ch->ie = *ie;
	if (cur != NULL) {
		ch->has_old = 1;
		ch->old = *cur;
	} else if (c->st.db.n >= LOCKDB_MAX_PLUGINS) {
		logit("plugins.lock is full (%d plugins)", LOCKDB_MAX_PLUGINS);
		goto out;
	}
	if (stage_change(c, ch) != 0 || !accept_change(ch))
		goto out;
	*db = c->st.db;
	if (commit(c, db, ch, 1) != 0)
		goto out;
	print_installed(ch, "installed", NULL);
	rc = PCMD_OK;
out:
	record_accepted(c, 0);
	free(ch);
	free(db);
	return rc;
}

/* ---- update ---- */

int
pcmd_update(struct pcmd *c, const char *name)
{
	struct change *chs = NULL;
	struct lockdb *db = NULL;
	size_t i, n = 0, nchecked = 0;
	int failed = 0, changed = 0, rc = PCMD_REFUSED;

	if (name != NULL && lockdb_find_const(&c->st.db, name) == NULL) {
		logit("%s is not installed", name);
		return PCMD_REFUSED;
	}
	if (pcmd_need_trust(c) != 0)
		return PCMD_CANNOT;
	chs = xcalloc(LOCKDB_MAX_PLUGINS, sizeof(*chs));
	db = xmalloc(sizeof(*db));
	*db = c->st.db;
	(void)orphans(c, db);
	for (i = 0; i < c->st.db.n; i++) {
		const struct lock_entry *e = &c->st.db.e[i];
		const struct market_conf *m = trust_market(&c->trust,
		    e->marketplace);
		const struct index_entry *latest;
		const struct mindex *ix;
		if ((name != NULL && strcmp(e->name, name) != 0) || m == NULL ||
		    pcmd_skip_market(c, m))
			continue;
		if ((ix = get_index(c, m)) == NULL) {
			logit("%s %s: not updated (marketplace %s could not be "
			    "read)", e->name, e->version, m->name);
			failed = 1;	/* its plugins stay as they are */
			continue;
		}
		nchecked++;
		latest = index_latest(ix, e->name);
		if (latest == NULL || version_cmp(latest->version,
		    e->version) <= 0) {
			printf("%s %s: no newer version in %s\n", e->name,
			    e->version, m->name);
			continue;
		}
		chs[n].m = m;
		chs[n].ie = *latest;
		chs[n].has_old = 1;
		chs[n].old = *e;
		n++;
	}
	for (i = 0; i < n; i++)
		if (stage_change(c, &chs[i]) != 0)
			goto out;
	for (i = 0; i < n; i++)
		if (!accept_change(&chs[i]))
			goto out;
	if (commit(c, db, chs, n) != 0)
		goto out;
	for (i = 0; i < n; i++)
		print_installed(&chs[i], "updated", chs[i].old.version);
	if (nchecked == 0 && c->st.db.n == 0)
		printf("no plugins installed\n");
	changed = 1;
	rc = failed ? PCMD_REFUSED : PCMD_OK;
out:
	if (!changed)
		logit("no plugin was changed");
	record_accepted(c, 1);
	if (failed)
		(void)report_unread(c);
	free(chs);
	free(db);
	return rc;
}

/* ---- verify ---- */

int
pcmd_verify(struct pcmd *c)
{
	int tampered[LOCKDB_MAX_PLUGINS];
	struct lockdb *db = NULL;
	size_t i, bad = 0;
	int failed = 0;

	memset(tampered, 0, sizeof(tampered));
	if (c->st.db.n == 0) {
		printf("no plugins installed\n");
		return PCMD_OK;
	}
	if (pcmd_need_trust(c) != 0)
		return PCMD_CANNOT;
	/* Every index first; one that is refused keeps no other from being
	 * recorded (record_accepted), and its plugins' files are still
	 * checked below. */
	for (i = 0; i < c->st.db.n; i++) {
		const struct market_conf *m = trust_market(&c->trust,
		    c->st.db.e[i].marketplace);
		if (m != NULL && !pcmd_skip_market(c, m) &&
		    get_index(c, m) == NULL)
			failed = 1;
	}
	db = xmalloc(sizeof(*db));
	*db = c->st.db;
	bad += orphans(c, db);
	/* The installed files, against the record and their signatures. */
	for (i = 0; i < db->n; i++) {
		const struct lock_entry *e = &db->e[i];
		const struct market_conf *m = trust_market(&c->trust,
		    e->marketplace);
		struct manifest man;
		char why[512];
		int fd;
		if (m == NULL)
			continue;
		fd = stage_open_installed(&c->sg, e->name, e->version);
		if (fd < 0) {
			str_msg(why, sizeof(why), "its directory is missing or "
			    "unsafe");
		} else if (market_check_plugin(&c->trust, m, e->name,
		    e->version, e->manifest_sha256, e->binary_sha256, fd, &man,
		    why, sizeof(why)) == 0) {
			close(fd);
			continue;
		}
		if (fd >= 0)
			close(fd);
		printf("TAMPERED %s %s: %s\n", e->name, e->version, why);
		tampered[i] = 1;
		bad++;
	}
	if (commit(c, db, NULL, 0) != 0) {
		free(db);
		return PCMD_REFUSED;
	}
	if (failed)
		(void)report_unread(c);
	for (i = 0; i < c->st.db.n; i++) {
		const struct lock_entry *e = &c->st.db.e[i];
		printf("%s %s %s from %s%s\n", tampered[i] ? "TAMPERED" :
		    e->yanked ? "yanked" : "ok",
		    e->name, e->version, e->marketplace, e->official ?
		    " (official)" : " WARNING: unofficial marketplace");
	}
	free(db);
	return bad || failed ? PCMD_REFUSED : PCMD_OK;
}
