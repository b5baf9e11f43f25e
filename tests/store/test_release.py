"""The publishing side, as far as it runs here: marketplace/build.py (the
official marketplace's layout and index) and .github/workflows/release.yml
(its structure, and its on-main and tag-form steps run for real in a
scratch git repository with an origin)."""
import json
import os
import re
import subprocess

import pytest
import yaml

from storeenv import BUILDPY, ROOT, make_base, sha256_file

WORKFLOW = os.path.join(ROOT, ".github", "workflows", "release.yml")


def buildpy(*args, env=None, check=True):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([BUILDPY] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=e, check=check)


@pytest.fixture
def out(signer):
    base = make_base("lfst-rel-")
    yield os.path.join(base, "site")
    subprocess.run(["rm", "-rf", base])


def test_build_plugins_index_and_artifacts(signer, out):
    r = buildpy("plugins", "--build", signer.plugins, "--out", out)
    assert sorted(r.stdout.decode().split("\n")[:-1]) == sorted(
        "%s/v1.0.0 plugins/%s/1.0.0" % (n, n)
        for n in ("archive-within-limits", "contains", "has-active-content",
                  "is-encrypted", "is-json",
                  "is-pdf", "is-utf8", "pdf-signatures-intact"))
    with open(os.path.join(signer.plugins, "plugins/is-pdf/manifest.json"),
              "rb") as f:
        manifest = f.read()
    assert open(os.path.join(out, "plugins/is-pdf/1.0.0/manifest.json"),
                "rb").read() == manifest
    yf = os.path.join(out, "..", "yanked.txt")
    with open(yf, "w") as f:
        f.write("# withdrawn\nis-json@1.0.0  # a bug\n")
    buildpy("index", "--out", out, "--repository", "o/market", "--version",
            "7", "--expires-days", "30", "--yanked", yf,
            env={"SOURCE_DATE_EPOCH": "1000000000"})
    idx = json.load(open(os.path.join(out, "index.json")))
    assert idx["version"] == 7 and idx["repository"] == "o/market"
    assert idx["expires"] == 1000000000 + 30 * 86400
    assert idx["plugins"]["is-json"]["1.0.0"]["yanked"] is True
    assert idx["plugins"]["is-pdf"]["1.0.0"] == {
        "manifest_sha256": sha256_file(os.path.join(
            out, "plugins/is-pdf/1.0.0/manifest.json")),
        "binary_sha256": sha256_file(os.path.join(
            out, "plugins/is-pdf/1.0.0/plugin")),
        "yanked": False}
    # Deterministic: the same inputs give the same bytes.
    before = open(os.path.join(out, "index.json"), "rb").read()
    buildpy("index", "--out", out, "--repository", "o/market", "--version",
            "7", "--expires-days", "30", "--yanked", yf,
            env={"SOURCE_DATE_EPOCH": "1000000000"})
    assert open(os.path.join(out, "index.json"), "rb").read() == before
    arts = buildpy("artifacts", "--out", out).stdout.decode().splitlines()
    assert "index/v7 index.json" in arts and len(arts) == 17
    assert buildpy("artifacts", "--out", out, "--tag",
                   "is-pdf/v1.0.0").stdout.decode().splitlines() == [
        "is-pdf/v1.0.0 plugins/is-pdf/1.0.0/manifest.json",
        "is-pdf/v1.0.0 plugins/is-pdf/1.0.0/plugin"]


def test_build_refuses(signer, out):
    buildpy("plugins", "--build", signer.plugins, "--out", out, "is-pdf")
    # A published version never changes bytes.
    with open(os.path.join(out, "plugins/is-pdf/1.0.0/plugin"), "ab") as f:
        f.write(b"x")
    assert buildpy("plugins", "--build", signer.plugins, "--out", out,
                   "is-pdf", check=False).returncode == 1
    yf = os.path.join(out, "..", "y.txt")
    open(yf, "w").write("is-utf8@1.0.0\n")
    for args in (["--version", "0"], ["--version", "7", "--yanked", yf],
                 ["--version", "7", "--repository", "not-a-repo"]):
        a = ["index", "--out", out, "--repository", "o/m", "--expires", "9"]
        assert buildpy(*(a + args), check=False).returncode == 1, args
    assert buildpy("plugins", "--build", signer.plugins, "--out", out,
                   "index", check=False).returncode == 1


@pytest.mark.parametrize("tag,kind", [
    ("index/v3", "index"), ("is-pdf/v1.0.0", "plugin"),
    ("is-pdf/v1.0.1", None), ("nope/v1.0.0", None), ("index/v0", None),
    ("index/v1.0.0", None), ("v1.0.0", None), ("is-pdf/1.0.0", None)])
def test_check_tag(signer, tag, kind):
    r = buildpy("check-tag", "--build", signer.plugins, tag, check=False)
    if kind is None:
        assert r.returncode == 1
    else:
        assert r.returncode == 0 and r.stdout.decode().strip() == kind


def load_workflow():
    with open(WORKFLOW) as f:
        return yaml.safe_load(f)


def test_workflow_structure():
    wf = load_workflow()
    assert wf[True]["push"]["tags"] == ["v*", "*/v*"]   # YAML's on: is True
    assert wf["permissions"] == {}
    jobs = wf["jobs"]
    assert "id-token" not in jobs["on-main"].get("permissions", {})
    signers = [n for n, j in jobs.items()
               if j.get("permissions", {}).get("id-token") == "write"]
    assert sorted(signers) == ["index", "plugin", "release"]
    # The on-main job is in front of every other job (every signing job).
    for n, j in jobs.items():
        if n != "on-main":
            needs = j["needs"]
            assert needs == "on-main" or "on-main" in needs, n
    text = open(WORKFLOW).read()
    # Third-party actions pinned by commit.
    for use in re.findall(r"uses:\s*(\S+)", text):
        assert re.match(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}$", use), use
    assert text.count("cosign sign-blob --yes --new-bundle-format") == 3
    assert "release.yml@refs/tags/" in text


def on_main_steps():
    steps = load_workflow()["jobs"]["on-main"]["steps"]
    return [s["run"] for s in steps if "run" in s]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c",
                           "user.email=t@invalid"] + list(args), check=True,
                          stdout=subprocess.PIPE).stdout.decode().strip()


@pytest.fixture
def repos():
    base = make_base("lfst-git-")
    origin, work = os.path.join(base, "origin.git"), os.path.join(base, "w")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", origin],
                   check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", work], check=True)
    git(work, "commit", "-q", "--allow-empty", "-m", "a")
    git(work, "remote", "add", "origin", origin)
    git(work, "push", "-q", "origin", "main")
    main = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "-q", "-b", "feature")
    git(work, "commit", "-q", "--allow-empty", "-m", "not reviewed")
    side = git(work, "rev-parse", "HEAD")
    git(work, "push", "-q", "origin", "feature")
    yield base, origin, main, side
    subprocess.run(["rm", "-rf", base])


def run_step(script, clone, tag, sha):
    env = {"PATH": "/usr/bin:/bin", "HOME": clone, "GITHUB_REF":
           "refs/tags/" + tag, "GITHUB_REF_NAME": tag, "GITHUB_SHA": sha}
    return subprocess.run(["bash", "-e", "-c", script], cwd=clone, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@pytest.mark.parametrize("on_main", [True, False])
def test_on_main_step(repos, on_main):
    base, origin, main, side = repos
    sha = main if on_main else side
    tag = "is-pdf/v1.0.%d" % (0 if on_main else 1)
    clone = os.path.join(base, "clone-%d" % on_main)
    subprocess.run(["git", "clone", "-q", origin, clone], check=True)
    git(clone, "tag", tag, sha)
    r = run_step(on_main_steps()[0], clone, tag, sha)
    assert (r.returncode == 0) == on_main, r.stdout.decode()
    if not on_main:
        assert b"not on main" in r.stdout


@pytest.mark.parametrize("tag,ok", [
    ("v1.2.3", True), ("index/v12", True), ("is-pdf/v1.0.0", True),
    ("index/v0", False), ("latest", False), ("v1.2", False),
    ("Is-PDF/v1.0.0", False), ("a/b/v1.0.0", False), ("x/v1.0.0-rc1", False)])
def test_tag_form_step(tag, ok):
    r = run_step(on_main_steps()[1], "/", tag, "0" * 40)
    assert (r.returncode == 0) == ok, r.stdout.decode()
