/* lox's hub state: the directory, hub.toml and the device key (see
 * hub.h). hub.toml is lox's own file, written by `lox enroll`; it is read
 * strictly (unknown keys refused) and every value is checked before use. */
#include "config.h"
#include "lox/hub.h"
#include "lib/fd.h"
#include "lib/mkdir.h"
#include "lib/str.h"
#include "lib/toml.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#define CFG_MAX (64 * 1024)

/* An absolute path of printable ASCII without quotes or backslashes, so
 * it is written back to TOML as it is. */
static int
path_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= PATH_MAX || s[0] != '/')
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
			return 0;
	return 1;
}

/* A TOML string as a C string: NULL when it is not a string or holds a
 * NUL (toml.h: "\u0000" decodes to one). */
static const char *
cstr(const json_t *v)
{
	if (!json_is_string(v) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

static int
state_dir(struct loxhub *h)
{
	const char *env = getenv("LOX_HOME");
	struct passwd *pw;
	struct stat st;

	if (env != NULL && env[0] != '\0') {
		if (str_fmt(h->dir, sizeof(h->dir), "%s", env) != STR_OK)
			return -1;
	} else {
		/* The account's own home from the password database. */
		pw = getpwuid(getuid());
		if (pw == NULL || str_fmt(h->dir, sizeof(h->dir),
		    "%s/.config/lox", pw->pw_dir) != STR_OK) {
			lox_err("no home directory for this account: set LOX_HOME");
			return -1;
		}
	}
	if (str_fmt(h->key_path, sizeof(h->key_path), "%s/device.key",
	    h->dir) != STR_OK || str_fmt(h->cfg_path, sizeof(h->cfg_path),
	    "%s/hub.toml", h->dir) != STR_OK) {
		lox_err("LOX_HOME: the path is too long");
		return -1;
	}
	if (mkdir_p(h->dir, 0700) != 0) {
		lox_err("cannot create %s", h->dir);
		return -1;
	}
	if (lstat(h->dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		lox_err("%s must be a directory of this account, mode 0700",
		    h->dir);
		return -1;
	}
	return 0;
}

static int
read_cfg(struct loxhub *h)
{
	struct toml_error terr;
	struct stat st;
	json_t *root, *v;
	const char *k;
	char *text;
	ssize_t n;
	int fd, ret = -1;

	fd = open(h->cfg_path, OPEN_RO_SAFE);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		lox_err("%s cannot be read", h->cfg_path);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		lox_err("%s must be this account's, not writable by others",
		    h->cfg_path);
		close(fd);
		return -1;
	}
	text = calloc(1, CFG_MAX + 1);
	if (text == NULL)
		return -1;
	n = read_full(fd, text, CFG_MAX + 1);
	close(fd);
	if (n < 0 || n > CFG_MAX) {
		lox_err("%s: too large or unreadable", h->cfg_path);
		free(text);
		return -1;
	}
	root = toml_parse(text, (size_t)n, &terr);
	free(text);
	if (root == NULL) {
		lox_err("%s: not valid TOML", h->cfg_path);
		return -1;
	}
	json_object_foreach(root, k, v) {
		if (strcmp(k, "url") == 0 && cstr(v) != NULL &&
		    hc_url_ok(cstr(v)) == 0) {
			if (str_fmt(h->url, sizeof(h->url), "%s", cstr(v)) !=
			    STR_OK)
				goto bad;
		} else if (strcmp(k, "ca_file") == 0 && cstr(v) != NULL &&
		    path_ok(cstr(v))) {
			if (str_fmt(h->ca_file, sizeof(h->ca_file), "%s",
			    cstr(v)) != STR_OK)
				goto bad;
		} else if (strcmp(k, "instances") == 0 && json_is_object(v)) {
			const char *name;
			json_t *key;
			json_object_foreach(v, name, key) {
				if (h->ninst == LOX_MAX_INSTANCES ||
				    !hw_text_ok(HW_T_INSTANCE, name, strlen(name)) ||
				    cstr(key) == NULL ||
				    hw_key_parse_text(cstr(key),
				    h->inst[h->ninst].pk) != 0 ||
				    str_fmt(h->inst[h->ninst].name,
				    sizeof(h->inst[0].name), "%s", name) != STR_OK)
					goto bad;
				h->ninst++;
			}
		} else {
			goto bad;
		}
	}
	ret = 0;
	goto out;
bad:
	lox_err("%s: only url, ca_file and [instances] NAME = \"ed25519:...\" "
	    "(as lox enroll writes them)", h->cfg_path);
out:
	json_decref(root);
	return ret;
}

int
loxhub_load(struct loxhub *h, int need_key, int need_url)
{
	enum hw_key_err ke;

	memset(h, 0, sizeof(*h));
	if (state_dir(h) != 0 || read_cfg(h) != 0)
		return -1;
	if (need_key) {
		ke = hw_key_load(h->key_path, HW_ROLE_DEVICE, &h->key);
		if (ke != HW_KEY_OK) {
			lox_err("%s: %s (lox enroll makes it)", h->key_path,
			    hw_key_err_text(ke));
			return -1;
		}
	}
	if (need_url && h->url[0] == '\0') {
		lox_err("no hub URL: lox enroll --hub URL");
		return -1;
	}
	if (str_fmt(h->hc.url, sizeof(h->hc.url), "%s", h->url) != STR_OK)
		return -1;
	h->hc.key = &h->key;
	h->hc.ca_file = h->ca_file[0] != '\0' ? h->ca_file : NULL;
	h->hc.connect_timeout_ms = 10000;
	return 0;
}

void
loxhub_free(struct loxhub *h)
{
	hw_key_free(&h->key);
}

int
loxhub_save(const struct loxhub *h)
{
	char tmp[PATH_MAX + 32], text[HW_KEY_TEXT_LEN + 1];
	struct buf *b = buf_new(CFG_MAX);
	size_t i;
	int fd, rc = 0;

	rc |= buf_printf(b, "# lox's hub settings (docs/hub.md, \"lox\"), "
	    "written by lox enroll.\n");
	if (h->url[0] != '\0')
		rc |= buf_printf(b, "url = \"%s\"\n", h->url);
	if (h->ca_file[0] != '\0')
		rc |= buf_printf(b, "ca_file = \"%s\"\n", h->ca_file);
	rc |= buf_printf(b, "\n[instances]\n");
	for (i = 0; i < h->ninst; i++) {
		hw_key_text(h->inst[i].pk, text);
		rc |= buf_printf(b, "%s = \"%s\"\n", h->inst[i].name, text);
	}
	if (rc != 0 || str_fmt(tmp, sizeof(tmp), "%s.tmp", h->cfg_path) !=
	    STR_OK) {
		buf_free(b);
		lox_err("%s: cannot be written", h->cfg_path);
		return -1;
	}
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_full(fd, buf_data(b), buf_len(b)) != 0 ||
	    fsync(fd) != 0 || close(fd) != 0 || rename(tmp, h->cfg_path) != 0) {
		buf_free(b);
		(void)unlink(tmp);
		lox_err("%s: cannot be written", h->cfg_path);
		return -1;
	}
	buf_free(b);
	return 0;
}

enum lox_ticket
loxhub_check(const struct loxhub *h, const uint8_t *d, size_t len,
    struct hw_ticket *t)
{
	size_t i;

	if (hw_ticket_parse(d, len, t) != HW_OK)
		return LOX_TICKET_UNPARSED;
	for (i = 0; i < h->ninst; i++)
		if (strcmp(h->inst[i].name, t->instance) == 0)
			break;
	if (i == h->ninst)
		return LOX_TICKET_UNPINNED;
	/* The key lox pinned, never the one the ticket names. */
	if (sodium_memcmp(h->inst[i].pk, t->instance_key, HW_KEY_LEN) != 0 ||
	    hw_verify(d, t->signed_len, t->sig, h->inst[i].pk) != HW_OK)
		return LOX_TICKET_FORGED;
	return LOX_TICKET_OK;
}

int
loxhub_pending(struct loxhub *h, struct hw_list *l, struct buf **raw)
{
	enum hc_err e;

	e = hc_call(&h->hc, "GET", "/v1/pending", NULL, 0, HW_MAX_LIST, 30000,
	    raw, NULL);
	if (e != HC_OK) {
		lox_err("%s: %s", h->url, hc_err_text(e));
		return -1;
	}
	if (hw_list_parse(buf_data(*raw), buf_len(*raw), l) != HW_OK) {
		lox_err("%s: the list of tickets does not parse", h->url);
		buf_free(*raw);
		*raw = NULL;
		return -1;
	}
	return 0;
}
