/* The console terminal (see term.h). */
#include "term/term.h"
#include "lib/clock.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/render.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#define CTRL_L '\014'

/* SIGWINCH blocked and read from a signalfd: `docker attach` (lox attach)
 * resizes the container's terminal, and the card waiting there is drawn
 * again for the human who just arrived (docs/docker.md). The calling
 * thread's mask: the console's other threads block every signal. Without
 * it (-1) nothing is redrawn on a resize. */
static int
winch_open(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* Read every queued SIGWINCH, after a short pause in which the resizes
 * of one attach (docker resizes twice) arrive: one redraw for them all. */
static void
winch_drain(int fd, int pause_ms)
{
	struct signalfd_siginfo si;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	do {
		while (read(fd, &si, sizeof(si)) == sizeof(si))
			;
	} while (poll(&p, 1, pause_ms) == 1);
}

void
term_redraw_reset(struct term *t)
{
	if (t->fd >= 0 && t->winch_fd >= 0)
		winch_drain(t->winch_fd, 0);
}

int
term_open(struct term *t, const char **why)
{
	memset(t, 0, sizeof(*t));
	t->intr_fd = -1;
	t->peer_fd = -1;
	t->winch_fd = winch_open();
	t->render_flags = render_locale_flags();
	/* The key check's Unicode data, opened before any self-confinement
	 * (a failure shows on each card as "could not be checked"). */
	(void)render_init(NULL);
	t->fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->fd < 0) {
		if (t->winch_fd >= 0)
			close(t->winch_fd);
		t->winch_fd = -1;
		/* su -c, runuser -c and a service give none; name what
		 * does (docs/host.md, step 6; issue 32) */
		*why = "no controlling terminal (the console needs its human): "
		    "su -c and runuser -c give none; run it in tmux started as "
		    "the console account: runuser -l lockfile -c 'tmux "
		    "new-session -A -s console' (docs/host.md, step 6)";
		return -1;
	}
	if (tcgetattr(t->fd, &t->saved) == 0)
		t->have_saved = 1;
	return 0;
}

void
term_close(struct term *t)
{
	if (t->fd < 0)
		return;
	if (t->winch_fd >= 0)
		close(t->winch_fd);
	t->winch_fd = -1;
	if (t->have_saved)
		(void)tcsetattr(t->fd, TCSANOW, &t->saved);
	close(t->fd);
	t->fd = -1;
}

void
term_printf(struct term *t, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	str_vmsg(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	(void)write_full(t->fd, buf, strlen(buf));
}

void
term_untrusted(struct term *t, const char *s, size_t len, size_t max)
{
	/* An escape is at most four bytes per input byte (\xHH, \u{XXXX}
	 * for two or three, \u{XXXXX} for four). */
	char out[4 * TERM_UNTRUSTED_MAX + 8];
	size_t n = len;

	if (max > TERM_UNTRUSTED_MAX)
		max = TERM_UNTRUSTED_MAX;
	if (n > max) {
		/* cut on a character, not inside one */
		n = max;
		while (n > 0 && n > max - 3 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	render_text(s, n, t->render_flags, 0, out, sizeof(out), NULL);
	(void)write_full(t->fd, out, strlen(out));
	if (n < len)
		(void)write_full(t->fd, "...", 3);
}

void
term_flush_input(struct term *t)
{
	(void)tcflush(t->fd, TCIFLUSH);
}

long
term_read_line(struct term *t, char *buf, size_t cap, int echo,
    long long deadline_ms)
{
	struct termios tio;
	size_t len = 0;
	int too_long = 0, restore = 0;
	long ret = TERM_ENDED;

	if (!echo && t->have_saved) {
		tio = t->saved;
		tio.c_lflag &= (tcflag_t)~(ECHO | ECHONL);
		tio.c_lflag |= ICANON;
		if (tcsetattr(t->fd, TCSAFLUSH, &tio) == 0)
			restore = 1;
	} else if (t->redraw && t->have_saved) {
		/* ctrl-L ends the line as Enter does (an extra end-of-line
		 * character), so it is read at once, not after Enter. */
		tio = t->saved;
		tio.c_cc[VEOL] = CTRL_L;
		if (tcsetattr(t->fd, TCSANOW, &tio) == 0)
			restore = 2;
	}
	for (;;) {
		struct pollfd pfd[4] = {
			{ .fd = t->fd, .events = POLLIN },
			{ .fd = t->intr_fd, .events = POLLIN },	/* -1: ignored */
			/* POLLHUP only: a client that merely shut down its writing
			 * side still waits for the answer */
			{ .fd = t->peer_fd, .events = 0 },
			{ .fd = t->winch_fd, .events = POLLIN },
		};
		long long left = deadline_ms - now_ms();
		char c;
		ssize_t n;

		if (left <= 0) {
			ret = TERM_TIMEOUT;
			break;
		}
		n = poll(pfd, 4, left > 1000 ? 1000 : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (pfd[1].revents & POLLIN)) {
			/* error, or a signal to stop: the signal stays queued for
			 * the main loop, which ends the session */
			ret = TERM_ENDED;
			break;
		}
		if (pfd[2].revents & (POLLHUP | POLLERR)) {
			ret = TERM_PEER_GONE;
			break;
		}
		if (pfd[3].revents & POLLIN) {
			winch_drain(t->winch_fd, 150);
			if (t->redraw) {
				ret = TERM_REDRAW;
				break;
			}
		}
		if (n == 0 || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		/* One byte at a time: nothing of a secret lands in a stdio
		 * buffer, only in buf. */
		n = read(t->fd, &c, 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			ret = TERM_ENDED;
			break;
		}
		if (c == '\n' || c == '\r') {
			ret = too_long ? TERM_TOO_LONG : (long)len;
			break;
		}
		if (c == CTRL_L && restore == 2) {
			ret = TERM_REDRAW;
			break;
		}
		if (len + 1 < cap)
			buf[len++] = c;
		else
			too_long = 1;
		explicit_bzero(&c, 1);
	}
	if (cap > 0)
		buf[len < cap ? len : cap - 1] = '\0';
	if (restore == 1) {
		(void)tcsetattr(t->fd, TCSAFLUSH, &t->saved);
		term_printf(t, "\n");
	} else if (restore == 2) {
		(void)tcsetattr(t->fd, TCSANOW, &t->saved);
	}
	return ret;
}
