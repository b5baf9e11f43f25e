/* lox attach: reach the running console's terminal.
 *
 *   lox attach [--instance NAME]
 *
 * docker attach with lox's detach keys (ctrl-] twice: control characters,
 * which no printable text contains) and without signal proxying: ctrl-c
 * reaches the console as a key, as on its own terminal. */
#include "config.h"
#include "lox/lox.h"

#include <string.h>
#include <unistd.h>

int
cmd_attach(struct lox *l, int argc, char **argv)
{
	struct argv a = { 0 };
	const char *v;
	int k, r, ret = LOX_EX_USAGE;

	for (k = 1; k < argc; k++) {
		if ((r = lox_opt(argc, argv, &k, "--instance", &v)) != 0) {
			if (r < 0 || lox_set_instance(l, v) != 0)
				return LOX_EX_USAGE;
		} else {
			lox_err("refused: lox attach %s", argv[k]);
			return LOX_EX_USAGE;
		}
	}
	if (!l->dry_run && (!isatty(0) || !isatty(1))) {
		lox_err("lox attach needs a terminal");
		return LOX_EX_USAGE;
	}
	argv_add(&a, l->docker);
	argv_add(&a, "attach");
	argv_add(&a, "--detach-keys");
	argv_add(&a, LOX_DETACH_KEYS);
	argv_add(&a, "--sig-proxy=false");
	argv_add(&a, l->container);
	ret = lox_exec(l, &a);
	argv_free(&a);
	return ret;
}
