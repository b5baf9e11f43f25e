/* The ledger unit tests' helpers (ledger_test.h). */
#include "ledger_test.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static long long
fake_now(void *ctx)
{
	return ((struct fake *)ctx)->t;
}

int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
	    (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");

	assert_non_null(e);
	/* tmpfs when there is one: 100 000 fsyncs stay fast */
	assert_true(strlen(base) < 200);
	strcpy(e->dir, base);
	strcat(e->dir, "/test-ledger.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	e->dirfd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(e->dirfd >= 0);
	e->clock.t = T0;
	e->clk.now_s = fake_now;
	e->clk.ctx = &e->clock;
	*state = e;
	return 0;
}

int
teardown(void **state)
{
	struct env *e = *state;
	char cmd[300];

	close(e->dirfd);
	assert_true(strlen(e->dir) + 10 < sizeof(cmd));
	strcpy(cmd, "rm -rf ");
	strcat(cmd, e->dir);
	assert_int_equal(system(cmd), 0);
	free(e);
	return 0;
}

void
path_of(const struct env *e, const char *name, char *out, size_t outlen)
{
	assert_true(strlen(e->dir) + strlen(name) + 2 <= outlen);
	strcpy(out, e->dir);
	strcat(out, "/");
	strcat(out, name);
}

uint8_t *
slurp(const struct env *e, const char *name, size_t *len)
{
	char p[512];
	struct stat st;
	uint8_t *b;
	int fd;

	path_of(e, name, p, sizeof(p));
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	assert_non_null(b);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

void
spill(const struct env *e, const char *name, const uint8_t *b, size_t len)
{
	char p[512];
	int fd;

	path_of(e, name, p, sizeof(p));
	fd = open(p, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

struct ledger *
must_open(struct env *e, unsigned long long window)
{
	struct ledger *l = NULL;
	struct ledger_problem p;
	int created;
	enum ledger_err r = ledger_open(&l, e->dirfd, &e->clk, window, &created,
	    &p);

	if (r != LEDGER_OK)
		fail_msg("ledger_open: %s: %s", ledger_err_name(r), p.msg);
	return l;
}

void
must_record(struct ledger *l, uid_t uid, const char *profile, const char *key,
    const uint8_t *sha, unsigned answers)
{
	struct ledger_problem p;
	enum ledger_err r = ledger_record(l, uid, profile, key, NULL, sha, answers,
	    &p);

	if (r != LEDGER_OK)
		fail_msg("ledger_record: %s: %s", ledger_err_name(r), p.msg);
}

void
sha_of(int n, uint8_t out[SHA256_LEN])
{
	char s[32];

	assert_true(n >= 0 && n < 100000000);
	memset(s, 0, sizeof(s));
	s[0] = 'c';
	for (int i = 1; n > 0 || i == 1; i++, n /= 10)
		s[i] = (char)('0' + n % 10);
	sha256_mem(s, strlen(s), out);
}

int
str_ok(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, cap, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < cap;
}

unsigned long long
window_answers(struct ledger *l, uid_t uid, const char *profile,
    const char *key)
{
	struct ledger_usage u;

	ledger_window_usage(l, uid, profile, key, &u);
	return u.answers;
}

/* A small ledger of a few plans, closed; its bytes returned. */
uint8_t *
small_ledger(struct env *e, size_t *len)
{
	struct ledger *l = must_open(e, W);
	uint8_t sha[SHA256_LEN];

	sha_of(1, sha);
	must_record(l, 1002, "invoices", "2024/a.pdf", sha, 3);
	e->clock.t += 10;
	must_record(l, 1002, "invoices", "2024/b.pdf", NULL, 1);
	e->clock.t += 10;
	must_record(l, 1003, "invoices", "2024/a.pdf", sha, 2);
	ledger_close(l);
	return slurp(e, LF_LEDGER_FILE, len);
}

/* Chain each line of text (lines without their chains) as a writer would. */
size_t
chain_lines(const char *text, char *buf, size_t cap)
{
	char *s = strdup(text), *line, *save = NULL;
	uint8_t chain[SHA256_LEN];
	size_t n = 0;

	assert_non_null(s);
	memset(chain, 0, sizeof(chain));
	for (line = strtok_r(s, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		uint8_t in[SHA256_LEN + 512];
		size_t ll = strlen(line);
		assert_true(ll < 512 && n + ll + 80 < cap);
		memcpy(in, chain, SHA256_LEN);
		memcpy(in + SHA256_LEN, line, ll);
		sha256_mem(in, SHA256_LEN + ll, chain);
		memcpy(buf + n, line, ll);
		n += ll;
		buf[n++] = ' ';
		hex_encode(chain, SHA256_LEN, buf + n);
		n += 64;
		buf[n++] = '\n';
	}
	free(s);
	return n;
}

int
holds(const uint8_t *b, size_t len, const char *needle)
{
	return memmem(b, len, needle, strlen(needle)) != NULL;
}

void
hex_of(const void *p, size_t n, char *out)
{
	hex_encode((const uint8_t *)p, n, out);
}
