/* The approvers confirmed on the console's terminal (docs/hub.md, "Keys",
 * "Passkeys"): a device key or a passkey counts only once a human typed
 * its fingerprint here; the "confirmed" file of the hub state directory
 * keeps the lines typed so far. */
#include "console/hub.h"
#include "lib/clock.h"
#include "lib/fd.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
line_in(const char *text, size_t len, const char *line)
{
	char nl[160];

	if (str_fmt(nl, sizeof(nl), "\n%s", line) != STR_OK)
		return 0;
	return memmem(text, len, nl, strlen(nl)) != NULL;
}

/* One approver's key: confirmed when its "NAME FINGERPRINT" line (for a
 * passkey "passkey:NAME FINGERPRINT") is in the file, else asked here and
 * appended. 1 confirmed, 0 not, -1 the file cannot be written. */
static int
confirm_one(struct console_hub *h, const char *path, const char *text,
    size_t len, const char *tag, const char *name, const uint8_t key[32],
    const char *what, const char *where)
{
	char fp[HW_FP_LEN + 1], want[128], line[128];
	long n;
	int afd;

	hw_fingerprint(key, fp);
	if (str_fmt(want, sizeof(want), "%s%s %s\n", tag, name, fp) != STR_OK)
		return -1;
	/* a whole line of the file: at its start or after a newline */
	if (text != NULL && len > 0 && (strncmp(text, want,
	    strlen(want)) == 0 || line_in(text, len, want)))
		return 1;
	term_printf(h->term, "hub %s %s: %s is new here.\n  Type its "
	    "fingerprint as %s printed it\n  (Enter: not now; its decisions "
	    "do not count until then): ", tag[0] ? "passkey" : "approver",
	    name, what, where);
	term_flush_input(h->term);
	n = term_read_line(h->term, line, sizeof(line), 1,
	    now_ms() + 10 * 60 * 1000);
	if (n <= 0 || strcmp(line, fp) != 0) {
		term_printf(h->term, "  not confirmed: %s's decisions do not "
		    "count\n", name);
		return 0;
	}
	afd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (afd < 0 || write_full(afd, want, strlen(want)) != 0 ||
	    fsync(afd) != 0) {
		if (afd >= 0)
			close(afd);
		return -1;
	}
	close(afd);
	term_printf(h->term, "  confirmed: %s's decisions count\n", name);
	return 1;
}

/* The approvers whose fingerprints a human typed on this terminal: a new
 * device key, or a new passkey (its id's fingerprint), counts only after
 * that (docs/hub.md, "Keys", "Passkeys"). A key that changed is asked
 * again. */
int
hub_confirm_approvers(struct console_hub *h)
{
	const struct policy_hub *ph = &h->pol->hub;
	char path[PATH_MAX + 32], *text = NULL;
	size_t i, len = 0;
	int fd, r, nconf = 0;

	if (str_fmt(path, sizeof(path), "%s/confirmed", h->dir) != STR_OK)
		return -1;
	fd = open(path, OPEN_RO_SAFE);
	if (fd >= 0) {
		text = xcalloc(1, 64 * 1024 + 1);
		if (check_fd_owner_mode(fd, geteuid(), 1) == 0) {
			ssize_t n = read_full(fd, text, 64 * 1024);
			len = n > 0 ? (size_t)n : 0;
		}
		close(fd);
	}
	for (i = 0; i < ph->napprovers + ph->npasskeys; i++) {
		int pk = i >= ph->napprovers;
		size_t j = pk ? i - ph->napprovers : i;

		r = pk ? confirm_one(h, path, text, len, "passkey:",
		    ph->passkeys[j].name, ph->passkeys[j].key.id, "the passkey",
		    "the hub's page") : confirm_one(h, path, text, len, "",
		    ph->approvers[j].name, ph->approvers[j].pk,
		    "its device key", "`lox enroll`");
		if (r < 0) {
			free(text);
			return -1;
		}
		if (pk)
			h->pk_confirmed[j] = r;
		else
			h->confirmed[j] = r;
		nconf += r;
	}
	free(text);
	if (nconf == 0)
		term_printf(h->term, "WARNING: no approver is confirmed: no "
		    "decision can count\n");
	return 0;
}

