/* Scrubbing (see scrub.h). Deliberately coarse: anything that looks like a
 * URL, an absolute path, a host name, an IP address or a long hex/base64 run
 * (key ids, hashes) is replaced by a tag; the listed words go first. */
#include "console/scrub.h"
#include "lib/escape.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int
word_char(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '-' || c == '_' || c == ':' ||
	    c == '%' || c == '+' || c == '=' || c == '~' || c == '@';
}

/* Length of a token starting at s that must go, and its tag; 0 if none. */
static size_t
sensitive(const char *s, const char **tag)
{
	size_t n = 0, dots = 0, alnum = 0, hex = 0, digits = 0;

	/* scheme://... */
	const char *p = s;
	while (isalpha((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	if (p > s && strncmp(p, "://", 3) == 0) {
		p += 3;
		while (*p && !isspace((unsigned char)*p) && *p != '"' && *p != '\'')
			p++;
		*tag = "<url>";
		return (size_t)(p - s);
	}
	/* absolute path */
	if (s[0] == '/' || (s[0] == '~' && s[1] == '/')) {
		p = s;
		while (*p && !isspace((unsigned char)*p) && *p != '"' &&
		    *p != '\'' && *p != ',' && *p != ';' && *p != ')')
			p++;
		*tag = "<path>";
		return (size_t)(p - s);
	}
	/* host names, IPs, user@host, long hex or base64 runs */
	while (word_char((unsigned char)s[n])) {
		if (s[n] == '.')
			dots++;
		if (isalnum((unsigned char)s[n]))
			alnum++;
		if (isxdigit((unsigned char)s[n]))
			hex++;
		if (isdigit((unsigned char)s[n]))
			digits++;
		n++;
	}
	while (n > 0 && (s[n - 1] == '.' || s[n - 1] == ':'))
		n--;	/* sentence punctuation stays */
	if (n == 0)
		return 0;
	if (memchr(s, '@', n) != NULL) {
		*tag = "<host>";
		return n;
	}
	if (dots >= 1 && alnum >= 3 && n >= 4) {
		/* "a.b" with letters on both sides: a host or an address */
		const char *dot = memchr(s, '.', n);
		if (dot > s && dot + 1 < s + n && isalnum((unsigned char)dot[1])) {
			*tag = "<host>";
			return n;
		}
	}
	if (n >= 16 && hex == n) {
		*tag = "<id>";
		return n;
	}
	/* a long run of letters and digits (a key id, a token); a long word
	 * without digits (SignatureDoesNotMatch) is kept */
	if (n >= 20 && alnum >= 16 && digits >= 3) {
		*tag = "<id>";
		return n;
	}
	return 0;
}

void
scrub_text(const char *in, const char *const *words, size_t nwords,
    char *out, size_t outlen)
{
	size_t inlen = strlen(in), i = 0, o = 0, w;
	char *tmp = malloc(inlen + 1);

	if (tmp == NULL || outlen == 0) {
		if (outlen > 0)
			out[0] = '\0';
		free(tmp);
		return;
	}
	while (i < inlen && o + 16 < inlen + 1 + 16) {
		const char *tag = NULL;
		size_t n = 0;

		for (w = 0; w < nwords; w++) {
			size_t wl = words[w] ? strlen(words[w]) : 0;
			if (wl >= 2 && strncmp(in + i, words[w], wl) == 0) {
				n = wl;
				tag = "<location>";
				break;
			}
		}
		if (n == 0 && (i == 0 || !word_char((unsigned char)in[i - 1])))
			n = sensitive(in + i, &tag);
		if (n > 0 && tag != NULL) {
			size_t tl = strlen(tag);
			if (o + tl > inlen)
				break;
			memcpy(tmp + o, tag, tl);
			o += tl;
			i += n;
			continue;
		}
		if (o >= inlen)
			break;
		tmp[o++] = in[i++];
	}
	tmp[o] = '\0';
	escape_text(tmp, o, out, outlen);
	free(tmp);
}
