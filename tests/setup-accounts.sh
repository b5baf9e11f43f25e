#!/bin/sh
# Create the accounts the tests run as (run as root; idempotent).
#   lockfile          the console account (home 0700)
#   lockfile-clients  the group whose members may connect to the socket
#   agent             an agent, member of lockfile-clients
#   lf-allowed        an agent outside the group, allowed by uid in tests
#   lf-outsider       neither in the group nor allowed: must be refused
#   lockhub           the hub's own account (docs/hub.md)
#   lf-approver       a human approving on lox, in hub mode
set -eu
[ "$(id -u)" = 0 ] || { echo "setup-accounts: must run as root" >&2; exit 1; }
getent group lockfile-clients >/dev/null || groupadd --system lockfile-clients
mk() {
	name=$1; shift
	if ! id -u "$name" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/sh "$@" "$name"
	fi
	usermod -p '*' "$name"	# locked password, no login by password
}
mk lockfile -G lockfile-clients
# The account may predate this script (a `make install` made a system account
# with another home): close whichever home it has.
home=$(getent passwd lockfile | cut -d: -f6)
[ -d "$home" ] || install -d -o lockfile -g lockfile "$home"
chmod 0700 "$home"
mk agent -G lockfile-clients
mk lf-allowed
mk lf-outsider
mk lockhub
mk lf-approver
