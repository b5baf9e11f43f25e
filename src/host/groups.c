/* Which groups the agents may have (see host/agents.h), from the password
 * and group databases; an agent whose groups cannot be known counts as
 * having every group (fail closed). */
#include "host/agents.h"
#include "lib/log.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ENUM 100000		/* password entries walked */

static int
user_has_gid(const char *name, gid_t primary, gid_t g)
{
	gid_t small[64], *groups = small;
	int n = 64, i, found = 0;

	if (primary == g)
		return 1;
	if (getgrouplist(name, primary, groups, &n) < 0) {
		if (n <= 64 || n > 65536)
			return 1;	/* cannot list: fail closed */
		groups = xcalloc((size_t)n, sizeof(gid_t));
		if (getgrouplist(name, primary, groups, &n) < 0) {
			free(groups);
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		if (groups[i] == g)
			found = 1;
	if (groups != small)
		free(groups);
	return found;
}

static int
uid_has_gid(const struct iso_agents *a, uid_t uid, gid_t g, char *who,
    size_t wholen)
{
	struct passwd *pw;

	if (uid == a->console_uid || uid == 0)
		return 0;
	pw = getpwuid(uid);
	if (pw == NULL) {
		str_msg(who, wholen, "allowed uid %u has no account, so its "
		    "groups cannot be known", (unsigned)uid);
		return 1;
	}
	if (user_has_gid(pw->pw_name, pw->pw_gid, g)) {
		str_msg(who, wholen, "agent uid %u has group %u", (unsigned)uid,
		    (unsigned)g);
		return 1;
	}
	return 0;
}

/* The password database, walked for an account other than the console
 * account and root (with primary, only those whose primary group it is)
 * that has group g: 1 with who ("<what>uid N has group G"), 1 when there
 * are more than MAX_ENUM accounts (fail closed), else 0. */
static int
walk_accounts(const struct iso_agents *a, const gid_t *primary, gid_t g,
    const char *what, char *who, size_t wholen)
{
	struct passwd *pw;
	size_t n = 0;
	int found = 0;

	setpwent();
	while (!found && (pw = getpwent()) != NULL && n++ < MAX_ENUM)
		if ((primary == NULL || pw->pw_gid == *primary) &&
		    pw->pw_uid != a->console_uid && pw->pw_uid != 0 &&
		    user_has_gid(pw->pw_name, pw->pw_gid, g)) {
			str_msg(who, wholen, "%suid %u has group %u", what,
			    (unsigned)pw->pw_uid, (unsigned)g);
			found = 1;
		}
	endpwent();
	if (n >= MAX_ENUM) {
		str_msg(who, wholen, "too many accounts to check");
		return 1;
	}
	return found;
}

/* Every account but the console account and root: a listed member of g,
 * or an account with g as its primary or supplementary group. */
static int
anyone_has_gid(const struct iso_agents *a, gid_t g, char *who, size_t wholen)
{
	struct passwd *con = getpwuid(a->console_uid);
	char conname[256] = "";
	struct group *gr;
	char **m;

	if (con != NULL && str_fmt(conname, sizeof(conname), "%s",
	    con->pw_name) != STR_OK) {
		str_msg(who, wholen, "the console account's name is too long "
		    "to compare");
		return 1;
	}
	gr = getgrgid(g);
	for (m = gr != NULL ? gr->gr_mem : NULL; m != NULL && *m != NULL; m++)
		if (strcmp(*m, conname) != 0 && strcmp(*m, "root") != 0) {
			str_msg(who, wholen, "group %u has members other than "
			    "the console account", (unsigned)g);
			return 1;
		}
	return walk_accounts(a, NULL, g, "", who, wholen);
}

int
iso_agent_has_gid(const struct iso_agents *a, gid_t g, char *who,
    size_t wholen)
{
	size_t i;
	struct passwd *pw;
	struct group *gr;
	int found = 0;

	if (a->everyone)
		return anyone_has_gid(a, g, who, wholen);
	for (i = 0; i < a->nallowed; i++)
		if (uid_has_gid(a, a->allowed[i], g, who, wholen))
			return 1;
	if (!a->have_clients_gid)
		return 0;
	if (g == a->clients_gid) {
		str_msg(who, wholen, "group %u is the clients group", (unsigned)g);
		return 1;
	}
	/* Members of the clients group: listed in it, or with it as their
	 * primary group. */
	gr = getgrgid(a->clients_gid);
	if (gr != NULL) {
		char **names, **m;
		size_t k = 0;
		for (m = gr->gr_mem; m != NULL && *m != NULL; m++)
			k++;
		/* getpwnam below reuses NSS buffers: copy the names first. */
		names = xcalloc(k + 1, sizeof(char *));
		for (i = 0; i < k; i++)
			names[i] = xstrdup(gr->gr_mem[i]);
		for (i = 0; i < k && !found; i++) {
			pw = getpwnam(names[i]);
			if (pw != NULL)
				found = uid_has_gid(a, pw->pw_uid, g, who, wholen);
		}
		for (i = 0; i < k; i++)
			free(names[i]);
		free(names);
		if (found)
			return 1;
	}
	return walk_accounts(a, &a->clients_gid, g, "agent ", who, wholen);
}

