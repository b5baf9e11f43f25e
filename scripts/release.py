#!/usr/bin/env python3
"""Lay out a lockfile release (docs/releases.md), as release.yml does.

    scripts/release.py manifest --stage DIR --out DIR --repository OWNER/REPO
        --tag vX.Y.Z --commit SHA [--source-date-epoch N]
    scripts/release.py artifacts --out DIR      # the files to sign, one a line
    scripts/release.py install-sh --out DIR --template scripts/install.sh
        --runtime-packages docker/runtime-packages [--url URL]
    scripts/release.py hashes --out DIR         # "sha256  name" of everything

`manifest` takes every file STAGE/KIND/NAME (KIND one of bin, share,
plugin, image, trust, tmpfiles, source, info), copies it to OUT/NAME and writes
OUT/release.json: the repository, the tag, the commit and each artifact's
kind, size and sha256, with sorted keys (the same inputs give the same
bytes). `artifacts` lists release.json and every artifact it names.
`install-sh` writes OUT/install.sh from the template with the pins of
this release (the sha256 of every file it installs, the manifest and the
manifest's bundle, so run it after signing), and prints its sha256.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import sys

EXECUTABLES = ("lockfile", "lockfile-console", "lockfile-parse-worker",
               "lockfile-sandbox-run")
KINDS = ("bin", "share", "plugin", "image", "trust", "tmpfiles", "source",
         "info")
# What install.sh fetches and checks, besides the manifest and its bundle.
INSTALL_KINDS = ("bin", "share", "trust", "tmpfiles")
NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
TAG = re.compile(r"^v(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$")
REPO = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}/[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$")
MANIFEST = "release.json"
BEGIN, END = "# BEGIN PINS", "# END PINS"


def die(msg):
    sys.stderr.write("release.py: %s\n" % msg)
    sys.exit(1)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def name_ok(name, kind):
    return (NAME.match(name) and ".." not in name and
            not name.endswith(".sigstore.json") and
            name not in (MANIFEST, "install.sh") and
            not (kind == "bin" and "." in name))


def cmd_manifest(a):
    if not TAG.match(a.tag):
        die("tag %s is not vX.Y.Z" % a.tag)
    if not REPO.match(a.repository) or ".." in a.repository:
        die("repository is not OWNER/REPO")
    if not re.match(r"^[0-9a-f]{40}$", a.commit):
        die("commit is not 40 lowercase hex digits")
    os.makedirs(a.out, exist_ok=True)
    arts = {}
    for kind in sorted(os.listdir(a.stage)):
        if kind not in KINDS:
            die("%s: not a kind (%s)" % (kind, ", ".join(KINDS)))
        for name in sorted(os.listdir(os.path.join(a.stage, kind))):
            src = os.path.join(a.stage, kind, name)
            if not os.path.isfile(src) or os.path.islink(src):
                die("%s/%s: not a regular file" % (kind, name))
            if not name_ok(name, kind):
                die("%s/%s: not an artifact name" % (kind, name))
            if name in arts:
                die("%s: two artifacts of that name" % name)
            dst = os.path.join(a.out, name)
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o755 if kind == "bin" else 0o644)
            arts[name] = {"kind": kind, "size": os.path.getsize(dst),
                          "sha256": sha256(dst)}
    # Every executable of a role (src/lib/paths.h, docs/hacking.md): one
    # left out would leave an older one running beside the new.
    for exe in EXECUTABLES:
        if not arts.get(exe, {}).get("kind") == "bin":
            die("no bin/%s: a release carries every executable" % exe)
    if len(arts) > 64:
        die("more than 64 artifacts")
    doc = {"schema": 1, "repository": a.repository, "tag": a.tag,
           "commit": a.commit,
           "source_date_epoch": int(a.source_date_epoch or
                                    os.environ.get("SOURCE_DATE_EPOCH", 0)),
           "artifacts": arts}
    with open(os.path.join(a.out, MANIFEST), "w") as f:
        f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.chmod(os.path.join(a.out, MANIFEST), 0o644)


def load(out):
    with open(os.path.join(out, MANIFEST)) as f:
        return json.load(f)


def cmd_artifacts(a):
    doc = load(a.out)
    print(MANIFEST)
    for name in sorted(doc["artifacts"]):
        print(name)


def cmd_install_sh(a):
    doc = load(a.out)
    pins = []
    for name in (MANIFEST, MANIFEST + ".sigstore.json"):
        pins.append(("record", sha256(os.path.join(a.out, name)), name))
    for name, art in sorted(doc["artifacts"].items()):
        if art["kind"] in INSTALL_KINDS:
            if sha256(os.path.join(a.out, name)) != art["sha256"]:
                die("%s is not the file release.json names" % name)
            pins.append((art["kind"], art["sha256"], name))
    with open(a.runtime_packages) as f:
        pkgs = " ".join(l.strip() for l in f
                        if l.strip() and not l.startswith("#"))
    if not re.match(r"^[a-z0-9.+ -]*$", pkgs):
        die("runtime packages: not Debian package names")
    url = a.url or "https://github.com/%s/releases" % doc["repository"]
    if not re.match(r"^(https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?|/[A-Za-z0-9._~/-]+)$", url):
        die("url: https://HOST[:PORT]/PATH or /DIR")
    block = [BEGIN + " (written by scripts/release.py install-sh)",
             "TAG=%s" % doc["tag"],
             "REPOSITORY=%s" % doc["repository"],
             "RELEASE_URL=%s" % url,
             "RUNTIME_PACKAGES='%s'" % pkgs,
             "PINS='"] + ["%s %s %s" % p for p in pins] + ["'", END]
    with open(a.template) as f:
        text = f.read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        die("%s has no %s ... %s block" % (a.template, BEGIN, END))
    text = text[:i] + "\n".join(block) + text[j + len(END):]
    dst = os.path.join(a.out, "install.sh")
    with open(dst, "w") as f:
        f.write(text)
    os.chmod(dst, 0o755)
    print("%s  install.sh" % sha256(dst))


def cmd_hashes(a):
    for name in sorted(os.listdir(a.out)):
        p = os.path.join(a.out, name)
        if os.path.isfile(p):
            print("%s  %s" % (sha256(p), name))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("manifest")
    m.add_argument("--stage", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--repository", required=True)
    m.add_argument("--tag", required=True)
    m.add_argument("--commit", required=True)
    m.add_argument("--source-date-epoch")
    ar = sub.add_parser("artifacts")
    ar.add_argument("--out", required=True)
    i = sub.add_parser("install-sh")
    i.add_argument("--out", required=True)
    i.add_argument("--template", required=True)
    i.add_argument("--runtime-packages", required=True)
    i.add_argument("--url")
    h = sub.add_parser("hashes")
    h.add_argument("--out", required=True)
    a = p.parse_args()
    {"manifest": cmd_manifest, "artifacts": cmd_artifacts,
     "install-sh": cmd_install_sh, "hashes": cmd_hashes}[a.cmd](a)


if __name__ == "__main__":
    main()
