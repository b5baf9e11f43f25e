/* libFuzzer target for plugins.lock parsing (src/store/lockdb.c,
 * lockdb_parse: what lockdb_load reads; the console trusts nothing else
 * about installed plugins). Beyond "no crash, no leak, no overread": a
 * refusal leaves a static reason and an empty database; an accepted one
 * has every name, version and marketplace in its alphabet, one entry per
 * plugin, counts under their caps, and survives lockdb_save + lockdb_load
 * unchanged (the writer and the reader agree on every field). */
#include "store/lockdb.h"
#include "protocol/shape.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_lockdb: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[PATH_MAX];

static void
cleanup(void)
{
	char tmp[PATH_MAX + 8];

	(void)unlink(path);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp))
		(void)unlink(tmp);
	(void)rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* The round trip writes one small file per accepted input: tmpfs. */
	if (snprintf(dir, sizeof(dir), "%s", access("/dev/shm", W_OK) == 0 ?
	    "/dev/shm/fuzz-lockdb.XXXXXX" : "/tmp/fuzz-lockdb.XXXXXX") >=
	    (int)sizeof(dir) || mkdtemp(dir) == NULL ||
	    snprintf(path, sizeof(path), "%s/plugins.lock", dir) >=
	    (int)sizeof(path)) {
		perror("fuzz_lockdb: scratch directory");
		exit(1);
	}
	atexit(cleanup);
	return 0;
}

static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s >= 0x7f)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lockdb db, again, empty;
	const char *why = NULL;
	size_t i, j;

	if (lockdb_parse((const char *)data, size, &db, &why) != 0) {
		CHECK(why != NULL && printable(why));
		CHECK(memcmp(&db, &empty, sizeof(db)) == 0);
		return 0;
	}
	CHECK(why == NULL);
	CHECK(db.n <= LOCKDB_MAX_PLUGINS && db.nidx <= LOCKDB_MAX_MARKETS);
	for (i = 0; i < db.n; i++) {
		const struct lock_entry *e = &db.e[i];
		CHECK(name_is_plugin(e->name) && version_is_valid(e->version));
		CHECK(name_is_profile(e->marketplace));
		CHECK((e->official == 0 || e->official == 1) &&
		    (e->yanked == 0 || e->yanked == 1));
		CHECK(lockdb_find_const(&db, e->name) == e);
		for (j = 0; j < i; j++)
			CHECK(strcmp(db.e[j].name, e->name) != 0);
	}
	for (i = 0; i < db.nidx; i++)
		CHECK(name_is_profile(db.idx[i].marketplace));

	CHECK(lockdb_save(path, &db, &why) == 0);
	CHECK(lockdb_load(path, &again, &why) == 0);
	CHECK(memcmp(&db, &again, sizeof(db)) == 0);
	return 0;
}
