#!/usr/bin/python3
"""Publish the repository's official plugins as a marketplace directory.

The output is unsigned: CI (.github/workflows/release.yml) signs every
artifact with `cosign sign-blob --bundle FILE.sigstore.json FILE` keyless,
in the run for the artifact's own tag (docs/marketplace.md):

    index.json                                 tag index/vN
    plugins/NAME/VERSION/manifest.json         tag NAME/vVERSION
    plugins/NAME/VERSION/plugin                tag NAME/vVERSION

usage:
  marketplace/build.py plugins --build BUILD --out OUT [NAME...]
      copy the built plugins (BUILD/plugins/NAME/{NAME,manifest.json}; all
      of them when no NAME is given) to OUT/plugins/NAME/VERSION/, after
      checking that each manifest names its plugin, a valid version and its
      binary's SHA-256. A version already in OUT must be byte-identical
      (published artifacts never change).
  marketplace/build.py index --out OUT --repository OWNER/REPO --version N
          (--expires UNIX_SECONDS | --expires-days DAYS) [--yanked FILE]
      write OUT/index.json over every version in OUT/plugins/. DAYS count
      from $SOURCE_DATE_EPOCH, else the HEAD commit's time, so a re-run of
      the same tag writes the same bytes. FILE lists NAME@VERSION lines
      (# comments) to mark yanked.
  marketplace/build.py artifacts --out OUT [--tag TAG]
      print "TAG PATH" for every artifact to sign (only TAG's with --tag).
  marketplace/build.py check-tag --build BUILD TAG
      exit 0 when TAG is index/vN, or NAME/vVERSION of a built plugin
      whose manifest has that version; print the kind ("index"/"plugin").
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

NAME_RE = re.compile(r"[a-z][a-z0-9-]{0,31}\Z")
VERSION_RE = re.compile(r"(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})\."
                        r"(0|[1-9][0-9]{0,5})\Z")
REPO_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}/"
                     r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\Z")
MAX_INDEX_VERSION = (1 << 53) - 1


class BuildError(Exception):
    pass


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def version_key(v):
    return tuple(int(x) for x in v.split("."))


def read_manifest(path):
    with open(path, "rb") as f:
        data = f.read()
    m = json.loads(data)
    if not isinstance(m, dict):
        raise BuildError("%s: not a JSON object" % path)
    return data, m


def built_plugins(build):
    d = os.path.join(build, "plugins")
    return sorted(n for n in os.listdir(d)
                  if NAME_RE.match(n) and
                  os.path.isfile(os.path.join(d, n, "manifest.json")))


def cmd_plugins(a):
    names = a.names or built_plugins(a.build)
    for name in names:
        if not NAME_RE.match(name) or name == "index":
            raise BuildError("invalid plugin name %r" % name)
        src = os.path.join(a.build, "plugins", name)
        data, m = read_manifest(os.path.join(src, "manifest.json"))
        binary = os.path.join(src, name)
        version = m.get("version")
        if m.get("name") != name or not isinstance(version, str) or \
                not VERSION_RE.match(version):
            raise BuildError("%s: manifest name or version invalid" % name)
        if m.get("binary_sha256") != sha256(binary):
            raise BuildError("%s: manifest binary_sha256 is not the built "
                             "binary's (rebuild)" % name)
        dst = os.path.join(a.out, "plugins", name, version)
        if os.path.isdir(dst):
            same = (sha256(os.path.join(dst, "manifest.json")) ==
                    hashlib.sha256(data).hexdigest() and
                    sha256(os.path.join(dst, "plugin")) == sha256(binary))
            if not same:
                raise BuildError("%s %s is already published with other "
                                 "bytes: bump the version" % (name, version))
            continue
        os.makedirs(dst)
        with open(os.path.join(dst, "manifest.json"), "wb") as f:
            f.write(data)
        shutil.copyfile(binary, os.path.join(dst, "plugin"))
        os.chmod(os.path.join(dst, "manifest.json"), 0o644)
        os.chmod(os.path.join(dst, "plugin"), 0o755)
        print("%s/v%s plugins/%s/%s" % (name, version, name, version))


def read_yanked(path):
    out = set()
    if not path:
        return out
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, sep, version = line.partition("@")
            if not sep or not NAME_RE.match(name) or \
                    not VERSION_RE.match(version):
                raise BuildError("%s: %r is not NAME@VERSION" % (path, line))
            out.add((name, version))
    return out


def published(out):
    root = os.path.join(out, "plugins")
    found = []
    if not os.path.isdir(root):
        return found
    for name in sorted(os.listdir(root)):
        if not NAME_RE.match(name) or name == "index":
            raise BuildError("plugins/%s: invalid plugin name" % name)
        for version in sorted(os.listdir(os.path.join(root, name)),
                              key=lambda v: version_key(v)
                              if VERSION_RE.match(v) else (0,)):
            if not VERSION_RE.match(version):
                raise BuildError("plugins/%s/%s: invalid version"
                                 % (name, version))
            found.append((name, version))
    return found


def base_time():
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        r = subprocess.run(["git", "log", "-1", "--format=%ct"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           check=True)
        return int(r.stdout.strip())
    except (OSError, subprocess.CalledProcessError, ValueError):
        return int(time.time())


def cmd_index(a):
    if not REPO_RE.match(a.repository) or ".." in a.repository:
        raise BuildError("--repository must be OWNER/REPO")
    if not 1 <= a.version <= MAX_INDEX_VERSION:
        raise BuildError("--version must be in [1, 2^53)")
    expires = a.expires if a.expires is not None else \
        base_time() + a.expires_days * 86400
    yanked = read_yanked(a.yanked)
    plugins = {}
    for name, version in published(a.out):
        d = os.path.join(a.out, "plugins", name, version)
        data, m = read_manifest(os.path.join(d, "manifest.json"))
        bsha = sha256(os.path.join(d, "plugin"))
        if m.get("name") != name or m.get("version") != version or \
                m.get("binary_sha256") != bsha:
            raise BuildError("plugins/%s/%s: the manifest does not name "
                             "this plugin, version and binary" % (name, version))
        plugins.setdefault(name, {})[version] = {
            "manifest_sha256": hashlib.sha256(data).hexdigest(),
            "binary_sha256": bsha,
            "yanked": (name, version) in yanked,
        }
    unknown = yanked - {(n, v) for n in plugins for v in plugins[n]}
    if unknown:
        raise BuildError("yanked but not published: %s" % ", ".join(
            "%s@%s" % x for x in sorted(unknown)))
    doc = {"schema": 1, "repository": a.repository, "version": a.version,
           "expires": expires, "plugins": plugins}
    with open(os.path.join(a.out, "index.json"), "w") as f:
        f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    print("index/v%d index.json" % a.version)


def cmd_artifacts(a):
    lines = []
    if os.path.isfile(os.path.join(a.out, "index.json")):
        with open(os.path.join(a.out, "index.json")) as f:
            lines.append(("index/v%d" % json.load(f)["version"], "index.json"))
    for name, version in published(a.out):
        tag = "%s/v%s" % (name, version)
        for f in ("manifest.json", "plugin"):
            lines.append((tag, "plugins/%s/%s/%s" % (name, version, f)))
    for tag, path in lines:
        if a.tag is None or a.tag == tag:
            print(tag, path)


def cmd_check_tag(a):
    m = re.match(r"index/v([1-9][0-9]{0,15})\Z", a.tag)
    if m and int(m.group(1)) <= MAX_INDEX_VERSION:
        print("index")
        return
    name, sep, v = a.tag.partition("/v")
    if not sep or not NAME_RE.match(name) or name == "index" or \
            not VERSION_RE.match(v):
        raise BuildError("tag %r is neither index/vN nor NAME/vX.Y.Z" % a.tag)
    path = os.path.join(a.build, "plugins", name, "manifest.json")
    if not os.path.isfile(path):
        raise BuildError("tag %s: no official plugin %s" % (a.tag, name))
    _, man = read_manifest(path)
    if man.get("version") != v:
        raise BuildError("tag %s: the plugin's manifest says version %s"
                         % (a.tag, man.get("version")))
    print("plugin")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("plugins")
    s.add_argument("--build", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("names", nargs="*")
    s = sub.add_parser("index")
    s.add_argument("--out", required=True)
    s.add_argument("--repository", required=True)
    s.add_argument("--version", type=int, required=True)
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--expires", type=int)
    g.add_argument("--expires-days", type=int)
    s.add_argument("--yanked")
    s = sub.add_parser("artifacts")
    s.add_argument("--out", required=True)
    s.add_argument("--tag")
    s = sub.add_parser("check-tag")
    s.add_argument("--build", required=True)
    s.add_argument("tag")
    a = p.parse_args()
    try:
        {"plugins": cmd_plugins, "index": cmd_index,
         "artifacts": cmd_artifacts, "check-tag": cmd_check_tag}[a.cmd](a)
    except (BuildError, OSError, ValueError, KeyError) as e:
        sys.stderr.write("marketplace/build.py: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
