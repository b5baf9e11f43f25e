/* `lockfile policy show|approve`: the human reviews an edit of the policy
 * on the console terminal and types to accept it; only then does the
 * console use it. Nothing through the socket can do this. */
#include "term/home.h"
#include "console/cmd.h"
#include "console/policy.h"
#include "term/human.h"
#include "term/term.h"
#include "lib/clock.h"
#include "lib/escape.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/render.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIFF_MAX_LINES 2000

struct lines {
	size_t n;
	const char *s[DIFF_MAX_LINES];
	size_t len[DIFF_MAX_LINES];
};

/* The line of text starting at *pos (its length in *n, the newline not
 * counted), and *pos moved past it; NULL once the text is done. */
static const char *
next_line(const char *text, size_t len, size_t *pos, size_t *n)
{
	const char *s = text + *pos, *nl;

	if (*pos >= len)
		return NULL;
	nl = memchr(s, '\n', len - *pos);
	*n = nl ? (size_t)(nl - s) : len - *pos;
	*pos += *n + 1;
	return s;
}

static int
split(const char *text, size_t len, struct lines *l)
{
	size_t pos = 0, n;
	const char *s;

	l->n = 0;
	while ((s = next_line(text, len, &pos, &n)) != NULL) {
		if (l->n >= DIFF_MAX_LINES)
			return -1;
		l->s[l->n] = s;
		l->len[l->n++] = n;
	}
	return 0;
}

/* Every byte of the line, escaped, in pieces: nothing past a cut may hide
 * a change. */
static void
show_line(struct term *t, char mark, const char *s, size_t len)
{
	size_t off = 0;

	term_printf(t, "%c ", mark);
	do {
		size_t n = len - off > 1024 ? 1024 : len - off;
		term_untrusted(t, s + off, n, 1024);
		off += n;
	} while (off < len);
	term_printf(t, "\n");
}

/* Each line of text, marked, in full. */
static void
show_all(struct term *t, char mark, const char *text, size_t len)
{
	size_t pos = 0, n;
	const char *s;

	while ((s = next_line(text, len, &pos, &n)) != NULL)
		show_line(t, mark, s, n);
}

static int
same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->s[i], b->s[j], a->len[i]) == 0;
}

/* A line diff (LCS) of the approved and the edited policy. */
static void
show_diff(struct term *t, const char *old, size_t oldlen, const char *new,
    size_t newlen)
{
	static struct lines a, b;
	unsigned short *tab;
	size_t i, j, w;

	if (old == NULL) {
		show_all(t, '+', new, newlen);
		return;
	}
	/* Too many lines for the table: both versions, every line, rather
	 * than a card that hides anything. */
	if (split(old, oldlen, &a) != 0 || split(new, newlen, &b) != 0) {
		term_printf(t, "(too many lines for a diff: the approved policy "
		    "in full, then the edited one)\n");
		show_all(t, '-', old, oldlen);
		show_all(t, '+', new, newlen);
		return;
	}
	w = b.n + 1;
	tab = xcalloc((a.n + 1) * w, sizeof(*tab));
	for (i = a.n; i-- > 0;)
		for (j = b.n; j-- > 0;)
			tab[i * w + j] = same(&a, i, &b, j) ?
			    (unsigned short)(tab[(i + 1) * w + j + 1] + 1) :
			    (tab[(i + 1) * w + j] > tab[i * w + j + 1] ?
			    tab[(i + 1) * w + j] : tab[i * w + j + 1]);
	for (i = 0, j = 0; i < a.n || j < b.n;) {
		if (i < a.n && j < b.n && same(&a, i, &b, j)) {
			show_line(t, ' ', a.s[i], a.len[i]);
			i++, j++;
		} else if (j < b.n && (i == a.n ||
		    tab[i * w + j + 1] >= tab[(i + 1) * w + j])) {
			show_line(t, '+', b.s[j], b.len[j]);
			j++;
		} else {
			show_line(t, '-', a.s[i], a.len[i]);
			i++;
		}
	}
	free(tab);
}

static int
write_atomic(const char *path, const char *text, size_t len)
{
	char tmp[PATH_MAX + 80], dir[PATH_MAX + 64];
	char *slash;
	int fd, dfd;

	if (str_fmt(tmp, sizeof(tmp), "%s.tmp", path) != STR_OK ||
	    str_fmt(dir, sizeof(dir), "%s", path) != STR_OK)
		return -1;
	slash = strrchr(dir, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	if (mkdir_p(dir, 0700) != 0)
		return -1;
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_full(fd, text, len) != 0 || fsync(fd) != 0) {
		close(fd);
		(void)unlink(tmp);
		return -1;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		(void)unlink(tmp);
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) != 0) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	close(dfd);
	return 0;
}

/* What the console would refuse at start (a local directory another
 * account may read, a path that does not exist), refused here first, with
 * the path and the reason. 0, or -1 after saying why. */
static int
check_profiles(const struct policy *pol)
{
	char why[1200];
	size_t i;
	int bad = 0;

	for (i = 0; i < pol->nprofiles; i++) {
		const struct profile *pr = &pol->profiles[i];
		if (pr->kind->check == NULL ||
		    pr->kind->check(pr->table, why, sizeof(why)) == 0)
			continue;
		logit("the policy is refused: profiles.%s: %s", pr->name, why);
		bad = 1;
	}
	return bad ? -1 : 0;
}

int
cmd_policy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char home[PATH_MAX], edit[PATH_MAX + 64], approved[PATH_MAX + 64];
	char why[512], fp[SHA256_HEX_LEN + 1], answer[64];
	const char *homearg = NULL, *verb, *rwhy;
	char *text = NULL, *old = NULL;
	size_t len = 0, oldlen = 0;
	struct policy pol;
	struct term t;
	int c, rc = 70;

	optind = 1;
	/* Options before or after the verb: `policy approve --home DIR`, as
	 * docs/console.md writes it. */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H': homearg = optarg; break;
		case 'h':
			printf("usage: lockfile policy show|approve [--home DIR]\n"
			    "  show     print the approved policy and whether the edit "
			    "differs\n"
			    "  approve  review the edited policy on this terminal and "
			    "type to accept it\n");
			return 0;
		default: return 64;
		}
	}
	if (optind + 1 != argc)
		return 64;
	verb = argv[optind];
	if (getuid() == 0) {
		logit("run this as the console account, not root");
		return 70;
	}
	if (home_resolve(homearg, home, sizeof(home)) != 0)
		return 70;
	policy_paths(home, edit, sizeof(edit), approved, sizeof(approved));
	old = policy_read_file(approved, &oldlen, &rwhy);

	if (strcmp(verb, "show") == 0) {
		char safe[POLICY_MAX_BYTES * 4 + 8];
		const char *line;
		if (old == NULL) {
			printf("no approved policy\n");
			rc = 1;
			goto out;
		}
		sha256_mem(old, oldlen, pol.fingerprint);
		hex_encode(pol.fingerprint, SHA256_LEN, fp);
		printf("approved policy (fingerprint %s):\n", fp);
		/* Line by line, each rendered on its own as every screen
		 * renders (docs/rendering.md): a literal "\x0a" in the text
		 * stays text, never a line break; names in their own script. */
		unsigned rflags = render_locale_flags();
		for (size_t pos = 0, n; (line = next_line(old, oldlen, &pos,
		    &n)) != NULL;) {
			render_text(line, n, rflags, 0, safe, sizeof(safe), NULL);
			printf("   %s\n", safe);
			/* A name in it gets the card's key check: one
			 * warning line under the line (docs/rendering.md). */
			if (render_key_warning(line, n, rflags, safe,
			    sizeof(safe)) != 0)
				printf("   WARNING %s\n", safe);
		}
		text = policy_read_file(edit, &len, &rwhy);
		if (text != NULL && (len != oldlen || memcmp(text, old, len) != 0))
			printf("the edited policy %s differs: review it with "
			    "`lockfile policy approve`\n", edit);
		rc = 0;
		goto out;
	}
	if (strcmp(verb, "approve") != 0)
		return 64;

	text = policy_read_file(edit, &len, &rwhy);
	if (text == NULL) {
		logit("%s: %s", edit, rwhy);
		goto out;
	}
	if (policy_parse(text, len, home, &pol, why, sizeof(why)) != 0) {
		logit("the policy is refused: %s", why);
		rc = 65;
		goto out;
	}
	if (check_profiles(&pol) != 0) {
		policy_free(&pol);
		rc = 65;
		goto out;
	}
	policy_free(&pol);
	if (old != NULL && oldlen == len && memcmp(old, text, len) == 0) {
		printf("the policy is already approved\n");
		rc = 0;
		goto out;
	}
	if (term_open(&t, &rwhy) != 0 || !isatty(t.fd)) {
		logit("approval needs the console terminal: %s", rwhy);
		goto out;
	}
	/* The human types here (term/human.h): the console's own terminal
	 * checks, before anything is shown. The new policy is not approved
	 * yet, so its agents are not trusted: every account but ours and root
	 * counts as one. */
	if (term_human_here(&t, NULL, why, sizeof(why)) != 0) {
		logit("%s", why);
		term_close(&t);
		goto out;
	}
	term_printf(&t, "=== policy change (%s) ===\n", old ? "diff against the "
	    "approved policy" : "no policy approved yet");
	show_diff(&t, old, oldlen, text, len);
	term_flush_input(&t);
	term_printf(&t, "Type 'approve' to make this the console's policy: ");
	if (term_read_line(&t, answer, sizeof(answer), 1,
	    now_ms() + 600 * 1000) < 0 || strcmp(answer, "approve") != 0) {
		term_printf(&t, "not approved\n");
		term_close(&t);
		rc = 1;
		goto out;
	}
	if (write_atomic(approved, text, len) != 0) {
		logit_errno("cannot write the approved policy");
		term_close(&t);
		goto out;
	}
	sha256_mem(text, len, pol.fingerprint);
	hex_encode(pol.fingerprint, SHA256_LEN, fp);
	term_printf(&t, "approved (fingerprint %s); restart the console to use "
	    "it\n", fp);
	term_close(&t);
	rc = 0;
out:
	free(text);
	free(old);
	return rc;
}
