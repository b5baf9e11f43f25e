"""The release jobs of .github/workflows/release.yml, as far as they run
here: their structure, and the scripts of three of their steps run for real
(bash -e, as GitHub runs a step) with a stand-in for cosign that signs with
the test Sigstore (tests/sigstore/testsign) and verifies with lockfile's
own verifier: the trust configuration a release ships, the signing of a
release laid out by scripts/release.py (with install.sh and its pins), and
the native check of every bundle."""
import hashlib
import os
import re
import shutil
import stat
import subprocess

import pytest
import yaml

from relenv import (COMMIT, LOCKFILE, REPO, ROOT, Prefix, Release,
                    make_base, out_text, repo_ids, sanitizer_env)
from storeenv import TESTSIGN

WORKFLOW = os.path.join(ROOT, ".github", "workflows", "release.yml")
RELEASE_JOBS = ("release-build", "release", "release-check", "release-publish")
TAG = "v0.4.0"


def workflow():
    with open(WORKFLOW) as f:
        return yaml.safe_load(f)


def step(job, name_part):
    for s in workflow()["jobs"][job]["steps"]:
        if name_part in s.get("name", ""):
            return s["run"]
    raise AssertionError("no step %r in %s" % (name_part, job))


def test_release_jobs():
    wf = workflow()
    jobs = wf["jobs"]
    for n in RELEASE_JOBS:
        needs = jobs[n]["needs"]
        assert "on-main" in ([needs] if isinstance(needs, str) else needs), n
        assert jobs[n]["if"] == "${{ !contains(github.ref_name, '/') }}", n
        tok = jobs[n]["permissions"].get("id-token")
        assert (tok == "write") == (n == "release"), n
    # Only the publishing job writes to the repository.
    assert [n for n in RELEASE_JOBS if jobs[n]["permissions"].get(
        "contents") == "write"] == ["release-publish"]
    # The order: build, sign, check, publish.
    assert "release-build" in jobs["release"]["needs"]
    assert "release" in jobs["release-check"]["needs"]
    assert "release-check" in jobs["release-publish"]["needs"]
    # The binaries are built and checked in the image the Dockerfile ships.
    with open(os.path.join(ROOT, "docker", "Dockerfile")) as f:
        base = re.search(r"^ARG BASE=(\S+)$", f.read(), re.M).group(1)
    assert "@sha256:" in base
    assert jobs["release-build"]["env"]["DEBIAN"] == base
    assert jobs["release-check"]["container"]["image"] == base
    build = "\n".join(s.get("run", "") for s in jobs["release-build"]["steps"])
    assert "scripts/reproduce.sh --build" in build
    assert "scripts/release.py manifest" in build
    assert "docker save" in build


@pytest.fixture
def ws():
    """A workspace as a job sees it: the repository's scripts and docker/
    beside dist/, a fake cosign on PATH."""
    base = make_base("lfrel-wf-")
    w = os.path.join(base, "ws")
    os.makedirs(w)
    for d in ("scripts", "docker"):
        os.symlink(os.path.join(ROOT, d), os.path.join(w, d))
    bindir = os.path.join(base, "bin")
    os.makedirs(bindir)
    yield base, w, bindir
    shutil.rmtree(base, ignore_errors=True)


def fake(bindir, name, text):
    p = os.path.join(bindir, name)
    with open(p, "w") as f:
        f.write(text)
    os.chmod(p, 0o755)


def run_step(script, cwd, bindir, extra_env=None):
    env = {"PATH": bindir + ":/usr/bin:/bin", "HOME": os.path.dirname(cwd),
           "GITHUB_REPOSITORY": REPO, "GITHUB_REF": "refs/tags/" + TAG,
           "GITHUB_REF_NAME": TAG, "GITHUB_SHA": COMMIT,
           "GITHUB_REPOSITORY_ID": repo_ids(REPO)[0],
           "GITHUB_REPOSITORY_OWNER_ID": repo_ids(REPO)[1],
           "GH_ISSUER": "https://token.actions.githubusercontent.com"}
    env.update(sanitizer_env())
    env.update(extra_env or {})
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=300)


def test_trust_step(ws, signer):
    base, w, bindir = ws
    r = run_step(step("release-build", "trust configuration"), w, bindir,
                 {"GITHUB_REPOSITORY": "Lockfile-Test/lockfile",
                  "GITHUB_REPOSITORY_ID": "123456",
                  "GITHUB_REPOSITORY_OWNER_ID": "654321"})
    assert r.returncode == 0, out_text(r)
    with open(os.path.join(w, "release-trust", "trust.toml")) as f:
        text = f.read()
    assert 'release_repository = "Lockfile-Test/lockfile"' in text
    assert 'url = "https://lockfile-test.github.io/lockfile/"' in text
    assert "release_repository_id = 123456\nrelease_owner_id = 654321\n" \
        in text
    assert "repository_id = 123456\nowner_id = 654321\n" in text
    # The file is one lockfile accepts: lockfile update reads it and goes
    # on to fetch (through a proxy that refuses at once).
    etc = os.path.join(base, "etc")
    os.makedirs(etc)
    shutil.copyfile(os.path.join(w, "release-trust", "trust.toml"),
                    os.path.join(etc, "trust.toml"))
    shutil.copyfile(signer.root, os.path.join(etc, "trusted_root.json"))
    for n in ("trust.toml", "trusted_root.json"):
        os.chmod(os.path.join(etc, n), 0o644)
    os.chmod(etc, 0o755)
    pfx = Prefix(base)
    r = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin",
                        "LOCKFILE_SYSCONFDIR=" + etc,
                        "https_proxy=http://127.0.0.1:1"] +
                       ["%s=%s" % kv for kv in sanitizer_env().items()] +
                       [LOCKFILE, "update", "--check", "--prefix", pfx.dir],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    assert r.returncode == 1, out_text(r)
    assert "release.json (the release manifest)" in out_text(r), out_text(r)


def test_sign_and_check_steps(ws, signer):
    base, w, bindir = ws
    rel = Release(base, signer, TAG, extra=[
        ("trust", "trusted_root.json", open(signer.root, "rb").read())])
    rel.layout()
    shutil.copytree(rel.out, os.path.join(w, "dist"))
    # cosign sign-blob: testsign as release.yml of the run's repository on
    # its ref; cosign verify-blob: lockfile verify-bundle.
    fake(bindir, "cosign", r'''#!/bin/sh
set -eu
cmd=$1; shift
bundle= ident= issuer=
while [ $# -gt 1 ]; do
	case $1 in
	--bundle) bundle=$2; shift 2 ;;
	--certificate-identity) ident=$2; shift 2 ;;
	--certificate-oidc-issuer) issuer=$2; shift 2 ;;
	--yes|--new-bundle-format) shift ;;
	*) echo "fake cosign: $1" >&2; exit 2 ;;
	esac
done
case $cmd in
sign-blob)
	%s sign %s --repo-id "$GITHUB_REPOSITORY_ID" \
	    --owner-id "$GITHUB_REPOSITORY_OWNER_ID" \
	    --identity "https://github.com/$GITHUB_REPOSITORY/.github/workflows/release.yml@$GITHUB_REF" \
	    --issuer "$GH_ISSUER" --repo "https://github.com/$GITHUB_REPOSITORY" \
	    --ref "$GITHUB_REF" "$1" > "$bundle" ;;
verify-blob)
	%s verify-bundle --trusted-root %s --certificate-identity "$ident" \
	    --certificate-oidc-issuer "$issuer" --bundle "$bundle" "$1" ;;
*) exit 2 ;;
esac
''' % (TESTSIGN, signer.dir, LOCKFILE, signer.root))
    r = run_step(step("release", "sign the manifest"), w, bindir)
    assert r.returncode == 0, out_text(r)
    dist = os.path.join(w, "dist")
    names = ["release.json", "install.sh"] + list(
        __import__("json").load(open(os.path.join(dist, "release.json")))
        ["artifacts"])
    for n in names:
        assert os.path.isfile(os.path.join(dist, n + ".sigstore.json")), n
    # install.sh pins what it installs, the manifest and its bundle.
    with open(os.path.join(dist, "install.sh")) as f:
        text = f.read()
    pins = re.search(r"^PINS='\n(.*?)^'$", text, re.M | re.S).group(1)
    got = {}
    for line in pins.splitlines():
        kind, sha, name = line.split()
        got[name] = kind
        with open(os.path.join(dist, name), "rb") as g:
            assert hashlib.sha256(g.read()).hexdigest() == sha, name
    assert got == {"release.json": "record",
                   "release.json.sigstore.json": "record", "lockfile": "bin",
                   "lockfile-console": "bin", "lockfile-parse-worker": "bin",
                   "lockfile-sandbox-run": "bin",
                   "lox": "bin", "seccomp.json": "share",
                   "trust.toml": "trust", "trusted_root.json": "trust"}
    assert "TAG=%s\n" % TAG in text and "REPOSITORY=%s\n" % REPO in text

    # release-check's native verification, apt-get stubbed (the packages
    # are the machine's).
    fake(bindir, "apt-get", "#!/bin/sh\nexit 0\n")
    # as actions/download-artifact leaves them: every file 0644 (it kept
    # lockfile-console so, and lockfile verify-bundle, forwarded to it,
    # exited 69 for every bundle)
    for n in os.listdir(dist):
        os.chmod(os.path.join(dist, n), 0o644)
    r = run_step(step("release-check", "every bundle verifies natively"), w,
                 bindir)
    n = len(names)
    assert r.returncode == 0 and "%d bundles verified" % n in out_text(r), \
        out_text(r)
    # A bundle of another tag among them fails the job.
    os.rename(os.path.join(dist, "lox.sigstore.json"), os.path.join(
        base, "lox.bundle"))
    subprocess.run([TESTSIGN, "sign", signer.dir, "--repo-id",
                    repo_ids(REPO)[0], "--owner-id", repo_ids(REPO)[1],
                    "--identity",
                    "https://github.com/%s/.github/workflows/release.yml@"
                    "refs/tags/v0.4.1" % REPO, "--issuer",
                    "https://token.actions.githubusercontent.com", "--repo",
                    "https://github.com/" + REPO, "--ref", "refs/tags/v0.4.1",
                    os.path.join(dist, "lox")], check=True,
                   stdout=open(os.path.join(dist, "lox.sigstore.json"), "wb"))
    r = run_step(step("release-check", "every bundle verifies natively"), w,
                 bindir)
    assert r.returncode != 0 and "E_IDENTITY" in out_text(r), out_text(r)
