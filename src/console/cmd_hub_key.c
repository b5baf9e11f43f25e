/* `lockfile hub-key` (docs/hub.md, "Keys"): make this console's
 * instance key when it has none, and print it with its fingerprint. */
#include "console/hub.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/str.h"
#include "term/home.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

int
cmd_hub_key(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char usage[] =
	    "usage: lockfile hub-key [--home DIR]\n\n"
	    "Hub mode (docs/hub.md): make this console's instance key when it\n"
	    "has none, and print it with its fingerprint: enroll it on the hub\n"
	    "(lockhub enroll instance NAME KEY --state DIR) and pin it in each\n"
	    "approver's lox (lox enroll --instance NAME=KEY). Run as the\n"
	    "console account.\n"
	    "Exit status: 0 printed, 64 usage, 70 the key cannot be made or "
	    "read.\n";
	char home[PATH_MAX], path[PATH_MAX + 64], dir[PATH_MAX + 64];
	char text[HW_KEY_TEXT_LEN + 1], fp[HW_FP_LEN + 1];
	const char *homearg = NULL;
	struct hw_keypair kp;
	enum hw_key_err ke;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'H': homearg = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 64;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 64;
	}
	if (getuid() == 0) {
		logit("run it as the console account, never as root");
		return 70;
	}
	if (home_resolve(homearg, home, sizeof(home)) != 0 ||
	    hub_key_path(home, path, sizeof(path)) != 0 ||
	    str_fmt(dir, sizeof(dir), "%s/.local/share/lockfile/hub", home) !=
	    STR_OK || mkdir_p(dir, 0700) != 0)
		return 70;
	ke = hw_key_load(path, HW_ROLE_INSTANCE, &kp);
	if (ke == HW_KEY_MISSING) {
		hw_key_generate(&kp);
		ke = hw_key_save(path, HW_ROLE_INSTANCE, &kp);
		if (ke == HW_KEY_OK)
			printf("made the instance key %s\n", path);
	}
	if (ke != HW_KEY_OK) {
		logit("%s: %s", path, hw_key_err_text(ke));
		return 70;
	}
	hw_key_text(kp.pk, text);
	hw_fingerprint(kp.pk, fp);
	printf("instance-key %s\nfingerprint %s\n", text, fp);
	hw_key_free(&kp);
	return 0;
}
