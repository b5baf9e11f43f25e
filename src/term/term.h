/* The console's terminal: the human's, never the agent's. Everything an
 * agent wrote reaches it only through term_untrusted(), rendered by
 * lib/render.h: readable text as it is, and no control character, escape
 * sequence, bidirectional or invisible character raw.
 * Input is flushed before each question so type-ahead cannot answer it;
 * secret values are read with echo off, straight into the caller's locked
 * buffer. */
#ifndef LOCKFILE_TERM_TERM_H
#define LOCKFILE_TERM_TERM_H

#include <stddef.h>
#include <termios.h>

struct term {
	int fd;
	struct termios saved;
	int have_saved;
	int intr_fd;	/* -1, or an fd (the console's signalfd) whose being
			 * readable ends a read at once (TERM_ENDED): a
			 * SIGTERM must not wait for the human's decision */
	int peer_fd;	/* -1, or the requesting agent's connection: its
			 * hang-up ends a read at once (TERM_PEER_GONE), so a
			 * plan whose agent went away is withdrawn, not
			 * fetched */
	unsigned render_flags;	/* for render_text(): RENDER_ASCII when the
				 * locale is not UTF-8 (lib/render.h) */
	int master_ok;	/* term_human_here found the pty's master held by
			 * the console account (term/human.h) */
	int winch_fd;	/* -1, or a signalfd of SIGWINCH: a window change
			 * (docker attach resizes the terminal) asks for a
			 * redraw (TERM_REDRAW) */
	int redraw;	/* set by a caller that can redraw: a SIGWINCH or a
			 * ctrl-L ends a read with TERM_REDRAW; otherwise
			 * both are ignored */
};

/* Open the controlling terminal. 0, or -1 with a static reason. */
int term_open(struct term *t, const char **why);
void term_close(struct term *t);

/* Console text (never agent text). */
void term_printf(struct term *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Agent-supplied bytes, rendered (lib/render.h); at most max bytes of
 * them (and never more than TERM_UNTRUSTED_MAX), a cut marked "...". */
#define TERM_UNTRUSTED_MAX 4096
void term_untrusted(struct term *t, const char *s, size_t len, size_t max);

void term_flush_input(struct term *t);
/* Forget the window changes so far: a resize before a question (an attach
 * while nothing waited) does not redraw it. */
void term_redraw_reset(struct term *t);

/* What term_read_line() returns instead of a line's length: all
 * negative, so "n < 0" is "no line". */
enum term_read_end {
	TERM_TIMEOUT = -1,	/* the deadline passed */
	TERM_ENDED = -2,	/* end of input, an error, or intr_fd readable */
	TERM_TOO_LONG = -3,	/* longer than cap (the rest is discarded) */
	TERM_PEER_GONE = -4,	/* peer_fd hung up */
	TERM_REDRAW = -5,	/* t->redraw set, and the window changed or
				 * ctrl-L was typed: the line is discarded */
};

/* Read one line (without its newline) before deadline_ms (monotonic).
 * Returns its length or one of enum term_read_end. With echo 0 the
 * terminal does not echo and buf is the only copy. */
long term_read_line(struct term *t, char *buf, size_t cap, int echo,
    long long deadline_ms);

#endif
