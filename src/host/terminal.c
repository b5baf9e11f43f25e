/* The terminal checks (see host/terminal.h) and the terminal rules of
 * system.toml. Boundary (seed, "The agent cannot drive the console"): the
 * human's terminal is the console account's, no agent can write to it or
 * read it, and it is not relayed by a program another account controls.
 *
 * What is visible: the terminal device (owner, group, mode) always; the
 * console's ancestors as far as /proc shows them (with hidepid only the
 * console account's own processes, which are the ones that could relay
 * its terminal without root). A relay run by root or another account above
 * an invisible ancestor is not seen: docs/isolation.md, residuals. */
#include "host/terminal.h"
#include "host/proc.h"
#include "host/relay.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/sysconf.h"
#include "lib/toml.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#define SYSTEM_TOML_MAX (64 * 1024)
#define MAX_NAMES 48
#define NAME_MAX_LEN 32
#define MAX_DEPTH 64

struct names {
	size_t n;
	char v[MAX_NAMES][NAME_MAX_LEN + 1];
};

struct term_rules {
	int x11_refuse;
	int own_multiplexer_ok;
	int unseen_relay_ok;	/* terminal.master: host/relay.c */
	struct names relays, multiplexers, x11_terminals;
};

/* Programs that hand a terminal to someone else (always refused). */
static const char *const default_relays[] = {
	"ttyd", "gotty", "wetty", "tmate", "upterm", "sshx", "teleconsole",
	"shellinaboxd", "websocketd", "socat", "conspy", "reptyr", "script",
	"asciinema", "expect", "unbuffer", "ttyrec", "termrec",
};
/* Multiplexers: refused unless they run as the console account. */
static const char *const default_multiplexers[] = {
	"tmux", "screen", "SCREEN", "zellij", "abduco", "dtach", "byobu",
	"mtm", "dvtm",
};
/* X11 terminal emulators (x11 = "refuse"). */
static const char *const default_x11_terminals[] = {
	"xterm", "uxterm", "gnome-terminal-", "gnome-terminal", "konsole",
	"xfce4-terminal", "mate-terminal", "lxterminal", "terminator", "tilix",
	"urxvt", "rxvt", "st", "alacritty", "kitty", "wezterm-gui", "terminology",
	"sakura", "qterminal", "guake", "yakuake", "x-terminal-emul",
};

static void
names_default(struct names *n, const char *const *v, size_t count)
{
	size_t i;

	n->n = 0;
	for (i = 0; i < count && i < MAX_NAMES; i++)
		ASSERT(str_fmt(n->v[n->n++], sizeof(n->v[0]), "%s", v[i]) ==
		    STR_OK);
}

static int
valid_name(const char *s, size_t len)
{
	return len >= 1 && len <= NAME_MAX_LEN && strlen(s) == len &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._+-") == len;
}

static int
names_from(const json_t *arr, struct names *n)
{
	size_t i;
	json_t *v;

	if (!json_is_array(arr) || json_array_size(arr) > MAX_NAMES)
		return -1;
	n->n = 0;
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v) || !valid_name(json_string_value(v),
		    json_string_length(v)))
			return -1;
		if (str_fmt(n->v[n->n++], sizeof(n->v[0]), "%s",
		    json_string_value(v)) != STR_OK)
			return -1;
	}
	return 0;
}

static int
word(const json_t *v, const char *a, const char *b, int *is_a)
{
	if (!json_is_string(v))
		return -1;
	if (strcmp(json_string_value(v), a) == 0)
		*is_a = 1;
	else if (strcmp(json_string_value(v), b) == 0)
		*is_a = 0;
	else
		return -1;
	return 0;
}

/* Defaults, then system.toml when it exists. 0, or -1 with why (the file
 * exists but is unsafe or invalid: the caller fails closed). */
static int
rules_load(struct term_rules *r, char *why, size_t whylen)
{
	const char *swhy = NULL, *k;
	struct toml_error terr;
	size_t len = 0;
	char *text;
	json_t *doc, *v;
	int bad = 0, b;

	memset(r, 0, sizeof(*r));
	/* X11 is refused unless system.toml allows it: other X clients of
	 * the display can read an X terminal's window and send it keys. */
	r->x11_refuse = 1;
	r->own_multiplexer_ok = 1;
	names_default(&r->relays, default_relays,
	    sizeof(default_relays) / sizeof(default_relays[0]));
	names_default(&r->multiplexers, default_multiplexers,
	    sizeof(default_multiplexers) / sizeof(default_multiplexers[0]));
	names_default(&r->x11_terminals, default_x11_terminals,
	    sizeof(default_x11_terminals) / sizeof(default_x11_terminals[0]));
	errno = 0;
	text = sysconf_read(LF_SYS_SYSTEM, SYSTEM_TOML_MAX, &len, &swhy);
	if (text == NULL) {
		if (errno == ENOENT)
			return 0;
		str_msg(why, whylen, "%s: %s", LF_SYS_SYSTEM, swhy);
		return -1;
	}
	doc = toml_parse(text, len, &terr);
	free(text);
	if (doc == NULL) {
		str_msg(why, whylen, "%s is not valid TOML (line %d: %s)",
		    LF_SYS_SYSTEM, terr.line, terr.msg);
		return -1;
	}
	json_object_foreach(doc, k, v) {
		if (strcmp(k, "x11") == 0)
			bad |= word(v, "refuse", "allow", &r->x11_refuse);
		else if (strcmp(k, "own_multiplexer") == 0) {
			bad |= word(v, "allow", "refuse", &b);
			r->own_multiplexer_ok = b;
		} else if (strcmp(k, "unseen_relay") == 0)
			bad |= word(v, "allow", "refuse", &r->unseen_relay_ok);
		else if (strcmp(k, "relays") == 0)
			bad |= names_from(v, &r->relays);
		else if (strcmp(k, "multiplexers") == 0)
			bad |= names_from(v, &r->multiplexers);
		else if (strcmp(k, "x11_terminals") == 0)
			bad |= names_from(v, &r->x11_terminals);
		else
			bad = -1;
	}
	json_decref(doc);
	if (bad) {
		str_msg(why, whylen, "%s: unknown key or bad value (docs/"
		    "isolation.md lists x11, own_multiplexer, relays, "
		    "multiplexers, x11_terminals, unseen_relay)", LF_SYS_SYSTEM);
		return -1;
	}
	return 0;
}

/* The program a process runs, as names to match: its comm up to the first
 * ':' or ' ' ("tmux: server" is tmux) and the base name of its executable
 * when readable (our own processes). */
static int
names_match(const struct names *n, const char *comm, const char *exe)
{
	char c[64];
	size_t i;

	/* comm is a proc_status name: the same size, never cut */
	ASSERT(str_fmt(c, sizeof(c), "%s", comm) == STR_OK);
	c[strcspn(c, ": ")] = '\0';
	for (i = 0; i < n->n; i++) {
		const char *w = n->v[i];
		/* comm is cut at 15 bytes by the kernel */
		if (strcmp(c, w) == 0 || (strlen(c) == 15 &&
		    strncmp(c, w, 15) == 0) || (exe[0] != '\0' &&
		    strcmp(exe, w) == 0))
			return 1;
	}
	return 0;
}

static void
exe_base(long long pid, char *out, size_t outlen)
{
	char path[64], target[PATH_MAX];
	ssize_t n;
	char *slash;

	out[0] = '\0';
	if (str_fmt(path, sizeof(path), "/proc/%lld/exe", pid) != STR_OK)
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	slash = strrchr(target, '/');
	slash = slash ? slash + 1 : target;
	n = (ssize_t)strlen(slash);
	if ((size_t)n >= outlen)
		n = (ssize_t)outlen - 1;
	memcpy(out, slash, (size_t)n);
	out[n] = '\0';
}

/* DISPLAY in the environment of a process we may read (our own). */
static int
environ_has_display(long long pid)
{
	char path[64], buf[32 * 1024];
	ssize_t n, off = 0;
	int fd;

	if (str_fmt(path, sizeof(path), "/proc/%lld/environ", pid) != STR_OK)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read_full(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	while (off < n) {
		if (strncmp(buf + off, "DISPLAY=", 8) == 0 && buf[off + 8] != '\0')
			return 1;
		off += (ssize_t)strlen(buf + off) + 1;
	}
	return 0;
}

static int
all_uids(const struct proc_status *ps, uid_t u)
{
	int i;

	for (i = 0; i < 4; i++)
		if (ps->uid[i] != (unsigned long long)u)
			return 0;
	return 1;
}

/* Walk the console's ancestors as far as /proc shows them. */
static void
check_ancestry(const struct term_rules *tr, const struct iso_agents *a,
    struct iso_report *r)
{
	long long pid = getppid();
	char relay[200] = "", x11[200] = "", seen[120] = "";
	int depth, own_mux = 0;

	if (tr->x11_refuse) {
		const char *d = getenv("DISPLAY");
		if (d != NULL && d[0] != '\0')
			str_msg(x11, sizeof(x11), "the console's environment has "
			    "DISPLAY");
	}
	for (depth = 0; depth < MAX_DEPTH && pid > 0; depth++) {
		char path[64], name[80], exe[NAME_MAX + 1];
		struct proc_status ps;

		if (str_fmt(path, sizeof(path), "/proc/%lld/status", pid) !=
		    STR_OK || proc_status_read(path, &ps) != 0)
			break;	/* hidden or gone: the walk ends here */
		exe_base(pid, exe, sizeof(exe));
		iso_escape(ps.name, name, sizeof(name));
		if (relay[0] == '\0' && names_match(&tr->relays, ps.name, exe))
			str_msg(relay, sizeof(relay), "pid %lld (%s) relays the "
			    "terminal: start the console without it", pid, name);
		if (relay[0] == '\0' &&
		    names_match(&tr->multiplexers, ps.name, exe)) {
			if (!all_uids(&ps, a->console_uid))
				str_msg(relay, sizeof(relay), "multiplexer pid %lld "
				    "(%s) runs as uid %llu, not the console account: "
				    "start it as the console account", pid, name,
				    ps.uid[0]);
			else if (!tr->own_multiplexer_ok)
				str_msg(relay, sizeof(relay), "multiplexer pid %lld "
				    "(%s): system.toml refuses multiplexers: log in as "
				    "the console account instead", pid, name);
			else
				own_mux = 1;
		}
		if (tr->x11_refuse && x11[0] == '\0') {
			if (names_match(&tr->x11_terminals, ps.name, exe))
				str_msg(x11, sizeof(x11), "pid %lld (%s) is an X11 "
				    "terminal", pid, name);
			else if (environ_has_display(pid))
				str_msg(x11, sizeof(x11), "pid %lld (%s) has DISPLAY "
				    "in its environment", pid, name);
		}
		str_msg(seen, sizeof(seen), "%d ancestor%s visible", depth + 1,
		    depth ? "s" : "");
		if (pid == 1)
			break;
		pid = ps.ppid;
	}
	if (relay[0] != '\0')
		iso_add(r, "terminal.relay", 0, "%s", relay);
	else
		iso_add(r, "terminal.relay", 1, "no relay among the console's "
		    "ancestors (%s)%s", seen[0] ? seen : "none visible",
		    own_mux ? "; a multiplexer of the console account" : "");
	if (!tr->x11_refuse)
		iso_add(r, "terminal.x11", 1, "system.toml allows X11");
	else if (x11[0] != '\0')
		iso_add(r, "terminal.x11", 0, "%s, and X11 is refused (other X "
		    "clients can read it): use a text console or tmux without "
		    "DISPLAY", x11);
	else
		iso_add(r, "terminal.x11", 1, "no X11 display seen");
}

/* The terminal's own device node. An fd opened through /dev/tty stats as
 * /dev/tty (root's, 0666), so ask the kernel which terminal it is
 * (TIOCGDEV) and find that node: one of our standard descriptors when it
 * is the same terminal, else /dev/pts/N for a pseudo-terminal. */
static int
tty_node(int fd, struct stat *st)
{
	unsigned int dev;
	unsigned maj, min;
	dev_t want;
	char path[64];
	int i;

	if (ioctl(fd, TIOCGDEV, &dev) != 0)
		return -1;
	maj = major(dev);
	min = minor(dev);
	want = makedev(maj, min);
	for (i = 0; i <= 2; i++)
		if (fstat(i, st) == 0 && S_ISCHR(st->st_mode) && st->st_rdev == want)
			return 0;
	if (maj < 136 || maj > 143)
		return -1;	/* not a pseudo-terminal: refused */
	if (str_fmt(path, sizeof(path), "/dev/pts/%u", (maj - 136) * 256 +
	    min) != STR_OK)
		return -1;
	if (stat(path, st) != 0 || !S_ISCHR(st->st_mode) || st->st_rdev != want)
		return -1;
	return 0;
}

static void
check_device(int fd, const struct iso_agents *a, struct iso_report *r)
{
	struct termios tio;
	struct stat st;
	char who[160];

	if (fd < 0 || !isatty(fd) || tcgetattr(fd, &tio) != 0) {
		iso_add(r, "terminal.device", 0, "no controlling terminal whose "
		    "echo can be switched off (su -c and runuser -c give none): "
		    "run it in tmux started as the console account (docs/host.md, "
		    "step 6)");
		return;
	}
	if (tty_node(fd, &st) != 0) {
		iso_add(r, "terminal.device", 0, "the terminal's device node "
		    "cannot be found (not a pseudo-terminal nor on stdin/out/err): "
		    "use tmux started as the console account");
		return;
	}
	iso_add(r, "terminal.device", 1, "a terminal (echo can be switched off "
	    "for typed values)");
	if (st.st_uid != a->console_uid)
		iso_add(r, "terminal.owner", 0, "the terminal belongs to uid %u, "
		    "not the console account (%u): a login stays its account's "
		    "through su; start tmux as the console account (docs/host.md)",
		    (unsigned)st.st_uid, (unsigned)a->console_uid);
	else
		iso_add(r, "terminal.owner", 1, "the terminal belongs to the "
		    "console account");
	if (st.st_mode & (S_IROTH | S_IWOTH | S_IRGRP))
		iso_add(r, "terminal.mode", 0, "the terminal is open to others "
		    "(mode %04o): chmod go-r,o-w it, or use tmux started as the "
		    "console account", (unsigned)(st.st_mode & 07777));
	else if ((st.st_mode & S_IWGRP) &&
	    iso_agent_has_gid(a, st.st_gid, who, sizeof(who)))
		iso_add(r, "terminal.mode", 0, "the terminal's group %u may write "
		    "to it and %s: chmod g-w it (mesg n)", (unsigned)st.st_gid,
		    who);
	else
		iso_add(r, "terminal.mode", 1, "mode %04o, no agent can write to "
		    "it", (unsigned)(st.st_mode & 07777));
}

int
isolation_terminal_report(int ttyfd, const struct iso_agents *a,
    struct iso_report *r)
{
	return isolation_terminal_report_as(ttyfd, a, 1, r);
}

int
isolation_terminal_report_as(int ttyfd, const struct iso_agents *a,
    int master_now, struct iso_report *r)
{
	struct term_rules tr;
	char why[ISO_DETAIL_MAX];
	size_t i;

	memset(r, 0, sizeof(*r));
	check_device(ttyfd, a, r);
	if (rules_load(&tr, why, sizeof(why)) != 0) {
		iso_add(r, "terminal.rules", 0, "%s: fix it, or remove it for the "
		    "defaults", why);
	} else {
		iso_add(r, "terminal.rules", 1, "relays and X11 rules from "
		    "defaults and %s", LF_SYS_SYSTEM);
		check_ancestry(&tr, a, r);
		if (r->n > 0 && strcmp(r->c[0].name, "terminal.device") == 0 &&
		    r->c[0].ok && master_now)
			check_master(ttyfd, a, tr.unseen_relay_ok, r);
		else if (!master_now)
			iso_add(r, "terminal.master", 1, "the console account "
			    "held the master when this terminal was first "
			    "checked");
	}
	for (i = 0; i < r->n; i++)
		if (!r->c[i].ok)
			return -1;
	return 0;
}
