/* A key in the account's user keyring: shared by every process of the
 * account and outliving the plugin (a channel to the next one). */
#include "hostile.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	long id = syscall(SYS_add_key, "user", "lockfile-hostile", "x", 1L,
	    (long)KEY_SPEC_USER_KEYRING);

	if (id < 0)
		return 0;
	(void)syscall(SYS_keyctl, (long)KEYCTL_INVALIDATE, id);
	return 1;
}
