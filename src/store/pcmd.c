/* What the plugin commands share (pcmd.h): the trust configuration,
 * loaded once, and which marketplaces a command with --from may read. */
#include "store/pcmd.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdio.h>

int
pcmd_need_trust(struct pcmd *c)
{
	char why[512];

	if (c->trust.root != NULL)
		return 0;
	if (trust_load(&c->trust, why, sizeof(why)) != 0) {
		logit("trust configuration: %s", why);
		return -1;
	}
	if (c->from != NULL) {
		struct market_conf *m = NULL;
		if (c->market != NULL)
			m = (struct market_conf *)trust_market(&c->trust,
			    c->market);
		else if (c->trust.nmarkets == 1)
			m = &c->trust.m[0];
		if (m == NULL) {
			logit("--from: %s", c->market != NULL ? "that "
			    "marketplace is not in trust.toml" : "name the "
			    "marketplace it mirrors with --marketplace");
			trust_free(&c->trust);
			return -1;
		}
		/* The mirror stands for m's location only: its index and
		 * files are verified exactly as online (m's repository and
		 * ids, the trusted root, freeze and rollback). */
		if (str_fmt(m->url, sizeof(m->url), "%s", c->from) != STR_OK) {
			logit("--from: the path is too long");
			trust_free(&c->trust);
			return -1;
		}
		c->only = m;
		printf("reading marketplace %s from the mirror %s\n", m->name,
		    c->from);
	}
	return 0;
}

int
pcmd_skip_market(const struct pcmd *c, const struct market_conf *m)
{
	return c->only != NULL && m != c->only;
}
