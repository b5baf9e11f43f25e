/* ofd-share: a plugin must not be able to change the console's view of the
 * input, nor what the next plugin gets on any descriptor. If sandbox_run()
 * handed a plugin the caller's input descriptor, or one /dev/null
 * description for every run's stdin, the plugin's lseek and F_SETFL would
 * land in the console and in every later plugin.
 *
 *   ofd-share POISON CHECK     (as the console account; prints TAP)
 *
 * POISON (c-input-poison) seeks its fd 3 to the end and sets O_NONBLOCK,
 * O_DIRECT and O_APPEND on it, and O_NONBLOCK|O_APPEND on every other fd
 * it holds (0, 1, 2; 6 and 7 for protocol 2); CHECK (c-input-check)
 * answers 1 only when all of them are clean and fd 3 is at offset 0. Both
 * run on one input descriptor and one sandbox, as a plan with two plugins
 * would, for protocol 1 and protocol 2. */
#include "sandbox/sandbox.h"
#include "lib/log.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum outcome
run(struct sandbox *sb, const char *plugin, int input, int protocol,
    unsigned long long *stderr_bytes)
{
	struct plugin_run r;
	struct plugin_result res;

	memset(&r, 0, sizeof(r));
	r.binfd = open(plugin, O_RDONLY | O_CLOEXEC);
	if (r.binfd < 0)
		fatal_errno("open %s", plugin);
	r.inputfd = input;
	r.protocol = protocol;
	r.limits.cpu_s = 5;
	r.limits.memory_bytes = 256ULL << 20;
	r.limits.wall_ms = 10000;
	r.argv0 = "plugin";
	sandbox_run(sb, &r, &res);
	close(r.binfd);
	*stderr_bytes = res.stderr_bytes;
	return res.outcome;
}

int
main(int argc, char **argv)
{
	static const char content[] = "LOCKFILE input for ofd-share\n";
	char path[] = "/tmp/lf-ofd-share-XXXXXX", why[128];
	struct sandbox sb;
	enum outcome o;
	unsigned long long eb = 0;
	int fd, in, fl, proto;
	off_t pos;

	log_init("ofd-share");
	if (argc != 3) {
		fputs("usage: ofd-share POISON CHECK\n", stderr);
		return 64;
	}
	tap_plan(7);
	if (sandbox_open(&sb) != 0) {
		tap_okwhy(0, sb.why, "sandbox opens");
		return tap_done();
	}
	tap_ok(1, "sandbox opens");
	if ((fd = mkstemp(path)) < 0 ||
	    write(fd, content, sizeof(content) - 1) != (ssize_t)sizeof(content) - 1)
		fatal_errno("temporary input");
	close(fd);
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || unlink(path) != 0)
		fatal_errno("reopen %s", path);
	fl = fcntl(in, F_GETFL);

	for (proto = 1; proto <= 2; proto++) {
		const char *fds = proto == 1 ? "0-3" : "0-3, 6, 7";

		o = run(&sb, argv[1], in, proto, &eb);
		snprintf(why, sizeof(why), "outcome %s", outcome_name(o));
		tap_okwhy(o == OUT_ANSWER_1, why, "protocol %d: input-poison "
		    "ran and changed fds %s", proto, fds);
		if (proto == 1) {
			pos = lseek(in, 0, SEEK_CUR);
			snprintf(why, sizeof(why), "offset now %lld", (long long)pos);
			tap_okwhy(pos == 0, why, "the console's input offset "
			    "is unchanged by the plugin");
			snprintf(why, sizeof(why), "flags 0%o, were 0%o",
			    fcntl(in, F_GETFL), fl);
			tap_okwhy(fcntl(in, F_GETFL) == fl, why, "the "
			    "console's input status flags are unchanged by the "
			    "plugin");
		}
		o = run(&sb, argv[2], in, proto, &eb);
		/* input-check's stderr bytes: the first unclean fd + 1. */
		snprintf(why, sizeof(why), "outcome %s, stderr %llu bytes",
		    outcome_name(o), eb);
		tap_okwhy(o == OUT_ANSWER_1, why, "protocol %d: the next "
		    "plugin gets fresh descriptions on fds %s (stdin "
		    "included), fd 3 at offset 0", proto, fds);
	}
	close(in);
	sandbox_close(&sb);
	return tap_done();
}
