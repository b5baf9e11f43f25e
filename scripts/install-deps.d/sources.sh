#!/bin/sh
# Sources area (src/sources/, tests/sources/, bench/fetch/). The S3 tests run
# against Debian's OpenStack Swift with s3api (it verifies SigV4, both URL
# styles and the region); the SFTP tests against a throwaway OpenSSH sshd on
# loopback (openssh-server, already in the shared list; listed again so this
# area stands alone). Idempotent: installs only what is missing.
set -eu
PKGS="swift-proxy swift-object swift-container swift-account openssh-server
openssh-client openssh-sftp-server curl"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
# The account the SFTP tests log in as: no password (sshd runs with
# UsePAM no, which refuses "!"-locked accounts, so the password is "*"),
# no shell (the test sshd forces internal-sftp).
if ! getent passwd lf-sftp >/dev/null; then
	useradd --system --create-home --home-dir /var/lib/lf-sftp \
	    --shell /usr/sbin/nologin lf-sftp
fi
usermod -p '*' lf-sftp
