/* `lockfile plugin install|update|verify|list|remove`: the store's
 * commands, in the console account only (root is refused), never through
 * the socket (no method installs, trusts or loosens anything). They use the
 * console's home and terminal helpers (term/home.h, term/term.h), so
 * --home and the terminal behave as for the console. */
#include "store/cmd.h"
#include "store/install.h"
#include "store/pcmd.h"
#include "store/fetch.h"
#include "store/marketplace.h"
#include "term/home.h"
#include "protocol/shape.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
"usage: lockfile plugin VERB [--home DIR] [--marketplace NAME] [--from DIR]\n"
"                           [ARG]\n"
"  install NAME[@VERSION]  fetch, verify and install a plugin (the latest\n"
"                          version that is not yanked, unless named)\n"
"  update [NAME]           install newer versions; a loosened question,\n"
"                          meaning, input or limit must be typed to accept\n"
"  verify                  re-read the indexes, record yanked versions and\n"
"                          re-check every installed file and signature\n"
"  list                    the installed plugins as plugins.lock records them\n"
"  remove NAME             uninstall a plugin\n"
"  identity                the repository and owner ids each marketplace's\n"
"                          signatures carry, to pin in trust.toml\n"
"  --from DIR              read the marketplace (--marketplace, or the only\n"
"                          one) from a mirror on disk, verified as online\n"
"Exit status: 0 done, 1 refused, 64 usage, 70 cannot run.\n";

/* The ids each marketplace's signatures carry (its current index's
 * certificate, verified by the repository's name), beside what trust.toml
 * pins: for the human to confirm, then to pin. */
static int
pcmd_identity(struct pcmd *c)
{
	size_t i;
	int bad = 0;

	if (pcmd_need_trust(c) != 0)
		return PCMD_CANNOT;
	for (i = 0; i < c->trust.nmarkets; i++) {
		const struct market_conf *m = &c->trust.m[i];
		char rid[TRUST_ID_MAX], oid[TRUST_ID_MAX], why[512];
		unsigned long long v;
		if (pcmd_skip_market(c, m) || (c->market != NULL &&
		    strcmp(c->market, m->name) != 0))
			continue;
		if (market_identity(&c->trust, m, &v, rid, oid, why,
		    sizeof(why)) != 0) {
			logit("marketplace %s: %s", m->name, why);
			bad = 1;
			continue;
		}
		printf("[marketplaces.%s]  # %s, index version %llu, signed on "
		    "tag index/v%llu\n", m->name, m->repo, v, v);
		printf("repository_id = %s\nowner_id = %s\n", rid[0] ? rid :
		    "(none in the certificate)", oid[0] ? oid :
		    "(none in the certificate)");
		if (m->repo_id[0] == '\0' || m->owner_id[0] == '\0')
			printf("  trust.toml pins no ids: confirm these with the "
			    "repository's owner (e.g. the GitHub API: repos/%s, "
			    ".id and .owner.id), then pin them\n", m->repo);
		else if (strcmp(m->repo_id, rid) == 0 &&
		    strcmp(m->owner_id, oid) == 0)
			printf("  trust.toml pins the same ids\n");
		else {
			printf("  trust.toml pins OTHER ids (repository_id = %s, "
			    "owner_id = %s): its signatures are refused\n",
			    m->repo_id, m->owner_id);
			bad = 1;
		}
	}
	return bad ? PCMD_REFUSED : PCMD_OK;
}

static int
pcmd_list(struct pcmd *c)
{
	size_t i;

	if (c->st.db.n == 0)
		printf("no plugins installed\n");
	for (i = 0; i < c->st.db.n; i++) {
		const struct lock_entry *e = &c->st.db.e[i];
		struct opened_plugin op;
		const char *why = NULL;
		enum store_status st = store_open_plugin(&c->st, e->name,
		    e->version, &op, &why);
		if (st == STORE_OK)
			close(op.binfd);
		printf("%-24s %-12s %s%s  %s%s%s\n", e->name, e->version,
		    e->marketplace, e->official ? " (official)" :
		    " WARNING: unofficial marketplace",
		    st == STORE_OK ? "ok" : st == STORE_YANKED ? "YANKED" :
		    st == STORE_TAMPERED ? "TAMPERED" : "MISSING",
		    st == STORE_OK || st == STORE_YANKED ? "" : ": ",
		    st == STORE_OK || st == STORE_YANKED ? "" : why);
	}
	for (i = 0; i < c->st.db.nidx; i++)
		printf("index of %s: version %llu\n", c->st.db.idx[i].marketplace,
		    c->st.db.idx[i].version);
	return PCMD_OK;
}

static int
pcmd_remove(struct pcmd *c, const char *name)
{
	struct lockdb *db;
	struct lock_entry gone;
	const char *why;
	size_t i;

	if (!name_is_plugin(name)) {
		logit("usage: lockfile plugin remove NAME");
		return PCMD_USAGE;
	}
	if (lockdb_find_const(&c->st.db, name) == NULL) {
		logit("%s is not installed", name);
		return PCMD_REFUSED;
	}
	db = xmalloc(sizeof(*db));
	*db = c->st.db;
	for (i = 0; i < db->n; i++)
		if (strcmp(db->e[i].name, name) == 0)
			break;
	gone = db->e[i];
	memmove(&db->e[i], &db->e[i + 1], (db->n - i - 1) * sizeof(db->e[0]));
	db->n--;
	memset(&db->e[db->n], 0, sizeof(db->e[0]));
	/* The record goes first: from then on the console will not run it,
	 * whatever happens to the files. */
	if (lockdb_save(c->st.lockpath, db, &why) != 0) {
		logit("%s", why);
		free(db);
		return PCMD_CANNOT;
	}
	c->st.db = *db;
	free(db);
	if (stage_remove_version(&c->sg, gone.name, gone.version) != 0)
		logit("%s %s: its files could not all be removed (it is no "
		    "longer recorded)", gone.name, gone.version);
	printf("removed %s %s\n", gone.name, gone.version);
	return PCMD_OK;
}

static int
run_verb(struct pcmd *c, const char *verb, const char *arg)
{
	if (strcmp(verb, "install") == 0 && arg != NULL)
		return pcmd_install(c, arg);
	if (strcmp(verb, "update") == 0)
		return pcmd_update(c, arg);
	if (strcmp(verb, "verify") == 0 && arg == NULL)
		return pcmd_verify(c);
	if (strcmp(verb, "list") == 0 && arg == NULL)
		return pcmd_list(c);
	if (strcmp(verb, "remove") == 0 && arg != NULL)
		return pcmd_remove(c, arg);
	if (strcmp(verb, "identity") == 0 && arg == NULL)
		return pcmd_identity(c);
	fputs(usage_text, stderr);
	return PCMD_USAGE;
}

int
cmd_plugin(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "marketplace", required_argument, NULL, 'm' },
		{ "from", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *homearg = NULL, *verb, *arg = NULL, *swhy = NULL;
	struct pcmd *c;
	char why[512];
	int ch, rc = PCMD_CANNOT;
	size_t i;

	c = xcalloc(1, sizeof(*c));
	c->sg.storefd = c->sg.fd = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'H': homearg = optarg; break;
		case 'm': c->market = optarg; break;
		case 'f': c->from = optarg; break;
		case 'h': fputs(usage_text, stdout); free(c); return PCMD_OK;
		default: fputs(usage_text, stderr); free(c); return PCMD_USAGE;
		}
	}
	if (argc - optind < 1 || argc - optind > 2 ||
	    (c->market != NULL && !name_is_profile(c->market)) ||
	    (c->from != NULL && (c->from[0] != '/' ||
	    !trust_url_ok(c->from)))) {
		fputs(usage_text, stderr);
		free(c);
		return PCMD_USAGE;
	}
	verb = argv[optind];
	if (argc - optind == 2)
		arg = argv[optind + 1];
	if (getuid() == 0 || geteuid() == 0) {
		logit("run this as the console account, not root");
		goto out;
	}
	if (home_resolve(homearg, c->home, sizeof(c->home)) != 0)
		goto out;
	if (str_fmt(c->storedir, sizeof(c->storedir), "%s/%s", c->home,
	    LF_HOME_STORE_DIR) != STR_OK) {
		logit("home path too long");
		goto out;
	}
	/* Lock first, then read plugins.lock: what we read is what we
	 * rewrite, with no other plugin command in between. */
	if (stage_lock(&c->sg, c->storedir, why, sizeof(why)) != 0) {
		logit("%s", why);
		goto out;
	}
	if (store_open(&c->st, c->home, &swhy) != 0) {
		logit("plugins.lock: %s", swhy);
		goto out;
	}
	if (fetch_global_init() != 0) {
		logit("libcurl cannot start");
		goto out;
	}
	c->now = time(NULL);
	rc = run_verb(c, verb, arg);
	fetch_global_cleanup();
out:
	stage_end(&c->sg);
	for (i = 0; i < LOCKDB_MAX_MARKETS; i++)
		if (c->fx[i].state == 1)
			index_free(&c->fx[i].ix);
	trust_free(&c->trust);
	free(c);
	return rc;
}
