#!/bin/sh
# Plugins area (plugins/, docs/plugins.md). The is-pdf tests make real PDFs
# with several independent writers: qpdf (xref tables, xref streams,
# linearized, encrypted), ghostscript (pdfwrite), poppler-utils (pdfunite,
# pdfseparate) and mupdf-tools (mutool); musl-tools for the documented musl
# build of a plugin; jq for bench/plugins (jq empty beside is-json, with
# --jq; qpdf --check is its baseline for is-pdf). is-encrypted and
# has-active-content link zlib statically (zlib1g-dev's libz.a); their
# differential tests ask pikepdf, olefile and zip(1) (python3-pikepdf, python3-olefile, zip).
# archive-within-limits (zlib too) is tested against unzip -t (unzip).
# pdf-signatures-intact links libcrypto statically (libssl-dev's
# libcrypto.a); its tests make a test CA with python3-cryptography and ask
# pdfsig (poppler-utils). Idempotent: installs only what is missing.
set -eu
PKGS="qpdf ghostscript poppler-utils mupdf-tools musl-tools jq zlib1g-dev
python3-pikepdf python3-olefile zip unzip libssl-dev python3-cryptography"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
