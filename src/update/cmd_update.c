/* `lockfile update`: as root, on the installed system (docs/releases.md).
 * Never reachable from the socket: it is a command of its own, run by
 * root, and nothing the console or an agent does starts it. */
#include "config.h"
#include "update/cmd.h"
#include "update/update.h"
#include "update/manifest.h"
#include "store/fetch.h"
#include "lib/log.h"
#include "lib/num.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
"usage: lockfile update [--check] [--version vX.Y.Z] [--prefix DIR]\n"
"                       [--stall-timeout SECONDS]\n"
"       lockfile update --rollback [--prefix DIR]\n"
"       lockfile update --identity [--version vX.Y.Z]\n"
"\n"
"As root: fetch the latest signed lockfile release (or vX.Y.Z) from the\n"
"release URL of /etc/lockfile/trust.toml, verify its manifest and every\n"
"file it installs (signed by release.yml of release_repository on exactly\n"
"that tag, sizes and sha256 as the manifest says), refuse anything older\n"
"than the installed release, then replace PREFIX/bin/lockfile (and the\n"
"other launchers, PREFIX/share/lockfile/seccomp.json) atomically, keeping\n"
"the previous install for one --rollback.\n"
"  --check          only say whether a newer signed release exists\n"
"  --version vX.Y.Z that release (a downgrade is refused: use --rollback)\n"
"  --rollback       restore the previous install (and keep this one)\n"
"  --identity       print the repository and owner ids the release's\n"
"                   signature carries, to pin in trust.toml\n"
"  --prefix DIR     the installation (default " LOCKFILE_PREFIX ")\n"
"  --stall-timeout  give up a download slower than 512 B/s for this long\n"
"                   (default 30 s)\n"
"Exit status: 0 done, 1 refused (nothing changed), 64 usage, 70 cannot run.\n";

int
cmd_update(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "version", required_argument, NULL, 'v' },
		{ "rollback", no_argument, NULL, 'r' },
		{ "identity", no_argument, NULL, 'i' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "stall-timeout", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct upd_opts o = { .prefix = LOCKFILE_PREFIX,
	    .stall_s = UPD_STALL_DEFAULT_S };
	unsigned long long v;
	char version[32];
	int ch, rollback = 0, identity = 0, ret;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': o.check = 1; break;
		case 'v': o.tag = optarg; break;
		case 'r': rollback = 1; break;
		case 'i': identity = 1; break;
		case 'p': o.prefix = optarg; break;
		case 's':
			if (parse_u64(optarg, 1, UPD_STALL_MAX_S, &v) != 0) {
				logit("--stall-timeout: seconds, 1 to %d",
				    UPD_STALL_MAX_S);
				return UPD_USAGE;
			}
			o.stall_s = (long)v;
			break;
		case 'h': fputs(usage_text, stdout); return UPD_OK;
		default: fputs(usage_text, stderr); return UPD_USAGE;
		}
	}
	if (optind != argc || (rollback && (o.check || o.tag != NULL)) ||
	    (identity && (o.check || rollback))) {
		fputs(usage_text, stderr);
		return UPD_USAGE;
	}
	if (o.tag != NULL && !release_tag_valid(o.tag, version,
	    sizeof(version))) {
		logit("--version: a release tag vX.Y.Z");
		return UPD_USAGE;
	}
	if (o.prefix[0] != '/' || strlen(o.prefix) > 512 ||
	    strstr(o.prefix, "..") != NULL) {
		logit("--prefix: an absolute path without ..");
		return UPD_USAGE;
	}
	if (rollback)
		return update_rollback(&o);
	if (fetch_global_init() != 0) {
		logit("libcurl cannot start");
		return UPD_CANNOT;
	}
	ret = identity ? update_identity(&o) : update_install(&o);
	fetch_global_cleanup();
	return ret;
}
