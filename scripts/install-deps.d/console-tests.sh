#!/bin/sh
# Console end-to-end tests (tests/e2e/test_files.py): real PDFs written by
# ghostscript (pdfwrite), qpdf (qdf, object streams, linearized, encrypted)
# and mupdf-tools (mutool clean). Run as root by scripts/install-deps.sh;
# idempotent: installs only what is missing.
set -eu
PKGS="ghostscript qpdf mupdf-tools"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
