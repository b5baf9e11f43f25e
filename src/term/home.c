/* Resolving the console home (see home.h). */
#include "term/home.h"
#include "lib/log.h"
#include "lib/str.h"

#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
home_resolve(const char *arg, char *out, size_t outlen)
{
	struct stat st;
	const char *h = arg;

	if (h == NULL) {
		struct passwd *pw = getpwuid(getuid());
		if (pw == NULL || pw->pw_dir == NULL) {
			logit("the account has no home directory");
			return -1;
		}
		h = pw->pw_dir;
	}
	if (h[0] != '/' || strlen(h) >= outlen - 128) {
		logit("home must be an absolute path");
		return -1;
	}
	if (stat(h, &st) != 0 || !S_ISDIR(st.st_mode)) {
		logit("home directory missing");
		return -1;
	}
	if (st.st_uid != getuid()) {
		logit("home directory belongs to another account");
		return -1;
	}
	if (st.st_mode & 0077) {
		logit("home directory must be 0700 (it holds files, credentials "
		    "and the audit)");
		return -1;
	}
	if (str_fmt(out, outlen, "%s", h) != STR_OK) {
		logit("home must be an absolute path");
		return -1;
	}
	return 0;
}
