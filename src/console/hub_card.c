/* The CARD a console posts after its ticket (docs/hub.md, "Passkeys"):
 * the lines of its own approval card, drawn by the same renderer as the
 * card on its terminal (approval_show, in RENDER_ASCII: every byte from
 * outside escaped), so the hub's page shows what the console drew and
 * there is no second renderer in JavaScript. */
#include "console/approval.h"
#include "console/hub.h"
#include "lib/log.h"
#include "lib/render.h"
#include "lib/str.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#define CARD_TEXT_MAX	(128 * 1024)

/* Draw the card into an unlinked file of the hub state directory (the
 * confined console has no memfd), then read it back. */
static char *
draw(const struct console_hub *h, const struct card *c, size_t *len)
{
	char path[PATH_MAX + 64], *text;
	uint8_t r[8];
	struct term t;
	ssize_t n;
	int fd;

	randombytes_buf(r, sizeof(r));
	if (str_fmt(path, sizeof(path), "%s/card.%02x%02x%02x%02x%02x%02x",
	    h->dir, r[0], r[1], r[2], r[3], r[4], r[5]) != STR_OK)
		return NULL;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return NULL;
	(void)unlink(path);
	memset(&t, 0, sizeof(t));
	t.fd = fd;
	t.intr_fd = t.peer_fd = t.winch_fd = -1;
	t.render_flags = RENDER_ASCII;	/* the CARD's alphabet */
	approval_show(&t, c);
	text = calloc(1, CARD_TEXT_MAX + 1);
	if (text == NULL || lseek(fd, 0, SEEK_SET) != 0 ||
	    (n = read(fd, text, CARD_TEXT_MAX)) < 0) {
		close(fd);
		free(text);
		return NULL;
	}
	close(fd);
	*len = (size_t)n;
	return text;
}

int
hub_card_lines(const struct console_hub *h, const struct card *c,
    struct hw_card *out)
{
	size_t len = 0, i = 0, n;
	char *text = draw(h, c, &len), *p, *nl;

	out->nlines = 0;
	if (text == NULL)
		return -1;
	/* the card's first line is a blank one before its title */
	for (p = text; p < text + len && *p == '\n'; p++)
		;
	while (p < text + len && out->nlines < HW_MAX_CARD_LINES) {
		char *line = out->lines[out->nlines];

		nl = memchr(p, '\n', (size_t)(text + len - p));
		n = nl != NULL ? (size_t)(nl - p) : (size_t)(text + len - p);
		if (out->nlines == HW_MAX_CARD_LINES - 1 && nl != NULL &&
		    nl + 1 < text + len) {
			/* a card too long for a phone: the rest is lox's */
			(void)!str_fmt(line, HW_MAX_CARD_LINE + 1, "... (the "
			    "rest of this card: lox tickets)");
			out->nlines++;
			break;
		}
		if (n > HW_MAX_CARD_LINE)
			n = HW_MAX_CARD_LINE;
		/* RENDER_ASCII escaped everything; a byte outside the
		 * CARD's alphabet is a bug, shown as '?', never sent raw */
		for (i = 0; i < n; i++)
			line[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
		line[n] = '\0';
		out->nlines++;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	sodium_memzero(text, len);
	free(text);
	return 0;
}
