"""lockfile update, as root, against signed test releases served over HTTPS
(a test CA bind-mounted over the system bundle in a private mount
namespace, as in tests/store/test_store_https.py), on a root-owned test
prefix. A good release installs; every refusal leaves every file of the
prefix byte-identical (owner, mode and bytes), the installed launcher
included; --rollback restores the previous install."""
import json
import os
import threading

import pytest

from relenv import (REPO, Release, assert_clean_exit, out_text, repo_ids,
                    sha256_file)

V1, V2, V3 = "v0.1.0", "v0.2.0", "v0.3.0"


def installed(w, tag):
    """The prefix holds exactly rel's launcher, lox and profile."""
    rel = w.rel[tag] if isinstance(tag, str) else tag
    for sub, name in (("bin", "lockfile"), ("bin", "lox"),
                      ("bin", "lockfile-console"),
                      ("bin", "lockfile-parse-worker"),
                      ("bin", "lockfile-sandbox-run"),
                      ("share/lockfile", "seccomp.json")):
        assert w.pfx.read(sub, name) == open(rel.path(name), "rb").read(), name
    assert w.pfx.read("lib/lockfile/release/release.json") == open(
        rel.path("release.json"), "rb").read()
    return True


def update(w, *args, code=0, want=None):
    r = w.pfx.update(w.srv, w.trust, *args)
    assert_clean_exit(r, code)
    if want:
        assert want in out_text(r), out_text(r)
    return r


def refused(w, want, *args, code=1):
    before = w.pfx.snapshot()
    r = update(w, *args, code=code, want=want)
    assert w.pfx.snapshot() == before, "a refusal changed the prefix"
    return r


@pytest.fixture
def at_v2(w):
    """v0.2.0 installed by update (v0.1.0 before it, kept for rollback)."""
    update(w, "--version", V1)
    update(w)
    assert installed(w, V2)
    return w


def v3(w, sign=None, edit=None, serve=True):
    """A v0.3.0 release (its own bytes), optionally edited after layout
    (edit(rel)) and signed with other identities (sign: name -> kw)."""
    rel = Release(w.base, w.signer, V3)
    rel.layout()
    if edit:
        edit(rel)
    for name in rel.artifacts():
        rel.sign(name, **(sign or {}).get(name, (sign or {}).get("*", {})))
    if serve:
        w.srv.serve(rel, latest=True)
    return rel


def test_install_update_check_and_rollback(w):
    update(w, "--version", V1, want="installed v0.1.0 (commit 0123456789ab)")
    assert installed(w, V1)
    for name, mode in (("bin/lockfile", 0o755), ("share/lockfile/seccomp.json",
                                                 0o644)):
        st = os.stat(w.pfx.path(name))
        assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (0, 0, mode)
    assert w.pfx.read("lib/lockfile/release/installed-by") == b"update\n"
    before = w.pfx.snapshot()
    update(w, "--check", want="update available: v0.2.0 (installed: v0.1.0)")
    assert w.pfx.snapshot() == before
    update(w, want="installed v0.2.0")
    assert installed(w, V2)
    # A second run: nothing newer.
    update(w, want="up to date: v0.2.0 is installed")
    update(w, "--check", want="up to date: v0.2.0")
    # The installed launcher runs and reports itself.
    line = w.pfx.doctor_line(w.trust)
    assert line.startswith("ok ") and "v0.2.0 (commit 0123456789ab" in line, line
    assert "installed by lockfile update" in line, line
    update(w, "--rollback", want="rolled back to v0.1.0")
    assert installed(w, V1)
    assert "v0.1.0" in w.pfx.doctor_line(w.trust)
    update(w, "--rollback", want="rolled back to v0.2.0")
    assert installed(w, V2)


def test_rollback_refuses_a_changed_copy(at_v2):
    w = at_v2
    kept = w.pfx.path("lib/lockfile/rollback/bin/lockfile")
    with open(kept, "ab") as f:
        f.write(b"x")
    refused(w, "not the file its release manifest names", "--rollback")
    assert installed(w, V2)


def test_check_on_an_empty_prefix(w):
    before = w.pfx.snapshot()
    update(w, "--check", want="update available: v0.2.0 (installed: no "
           "signed release)")
    assert w.pfx.snapshot() == before


def test_rollback_without_a_kept_install(w):
    update(w, "--version", V1)
    refused(w, "nothing to roll back to", "--rollback")


@pytest.mark.parametrize("name,want", [
    ("lockfile-console", "this binary is not the lockfile-console the signed "
     "manifest names"),
    ("lockfile", "lockfile is not the file the signed manifest names"),
    ("lockfile-parse-worker", "lockfile-parse-worker is not the file the "
     "signed manifest names")])
def test_doctor_fails_a_replaced_launcher(at_v2, name, want):
    """doctor runs in lockfile-console (docs/hacking.md, "Executables"):
    its own binary and every other one beside it are checked."""
    w = at_v2
    p = w.pfx.path("bin", name)
    with open(p, "ab") as f:
        f.write(b"tampered")
    line = w.pfx.doctor_line(w.trust)
    assert line.startswith("FAIL") and want in line, line


def test_doctor_on_a_build(w):
    """A build (no release record) says so and passes."""
    os.makedirs(w.pfx.path("bin"))
    for name in ("lockfile", "lockfile-console"):
        with open(w.pfx.path("bin", name), "wb") as f:
            f.write(open(w.rel[V1].path(name), "rb").read())
        os.chmod(w.pfx.path("bin", name), 0o755)
    line = w.pfx.doctor_line(w.trust)
    assert line.startswith("ok ") and "a build" in line, line


# ---- every refusal, with v0.2.0 installed and a v0.3.0 offered ----

def test_wrong_repository(at_v2):
    v3(at_v2, sign={"*": {"repo": "lockfile-test/other"}})
    refused(at_v2, "E_IDENTITY_SAN")


def test_wrong_source_repository(at_v2):
    v3(at_v2, sign={"*": {"source_repo": "lockfile-test/other"}})
    refused(at_v2, "E_IDENTITY_REPO")


def test_same_name_other_repository_ids(at_v2):
    """The name re-registered by someone else: the same SAN and source
    repository, other numeric ids."""
    v3(at_v2, sign={"*": {"repo_id": "999999"}})
    refused(at_v2, "E_IDENTITY_REPO_ID")
    v3(at_v2, sign={"*": {"owner_id": "999999"}})
    refused(at_v2, "E_IDENTITY_OWNER_ID")


def test_ids_not_pinned(at_v2):
    at_v2.trust.write("lockfile-test/lockfile", at_v2.trust.url, ids=False)
    refused(at_v2, "trust.toml pins no release_repository_id", code=70)


def test_identity(w):
    """--identity: the ids the release's signature carries, beside the
    pins; it changes nothing."""
    before = w.pfx.snapshot()
    rid, oid = repo_ids(REPO)
    r = update(w, "--identity", want="release_repository_id = %s\n"
               "release_owner_id = %s" % (rid, oid))
    assert "trust.toml pins the same ids" in out_text(r)
    w.trust.write(REPO, w.trust.url, ids=False)
    update(w, "--identity", "--version", V1, want="v0.1.0 of "
           "lockfile-test/lockfile is signed by release.yml of that name")
    w.trust.write(REPO, w.trust.url, ids=("1", "2"))
    update(w, "--identity", code=1, want="trust.toml pins OTHER ids: 1, 2")
    assert w.pfx.snapshot() == before


def test_wrong_workflow(at_v2):
    v3(at_v2, sign={"*": {"workflow": "ci.yml"}})
    refused(at_v2, "E_IDENTITY_SAN")


def test_branch_instead_of_tag(at_v2):
    v3(at_v2, sign={"*": {"ref": "refs/heads/main"}})
    refused(at_v2, "E_IDENTITY_SAN")


@pytest.mark.parametrize("name", ["release.json", "lockfile", "seccomp.json"])
def test_artifact_signed_on_another_tag(at_v2, name):
    v3(at_v2, sign={name: {"tag": "v0.3.1"}})
    refused(at_v2, "E_IDENTITY_SAN")


def test_manifest_of_another_repository(at_v2):
    """A manifest naming another repository, signed by that repository's
    release.yml: refused before its signature matters."""
    rel = Release(at_v2.base, at_v2.signer, V3, repo="lockfile-test/other")
    rel.publish(repo="lockfile-test/other")
    at_v2.srv.serve(rel, latest=True)
    refused(at_v2, "not the release_repository of trust.toml")


def test_manifest_sha256_does_not_match(at_v2):
    """The manifest names one launcher, the server sends another of the
    same size, itself validly signed on the tag."""
    rel = v3(at_v2)
    with open(rel.path("lockfile"), "r+b") as f:
        f.seek(-2, os.SEEK_END)
        f.write(b"Z")
    rel.sign("lockfile")
    refused(at_v2, "its SHA-256 is not the one the signed manifest names")


@pytest.mark.parametrize("exe", ["lockfile-console", "lockfile-parse-worker",
                                 "lockfile-sandbox-run"])
def test_manifest_without_an_executable_of_a_role(at_v2, exe):
    """A manifest, validly signed, that leaves one executable out: refused,
    as installing it would leave the older one running beside the new
    (docs/releases.md)."""
    def drop(rel):
        p = rel.path("release.json")
        with open(p) as f:
            doc = json.load(f)
        del doc["artifacts"][exe]
        with open(p, "w") as f:
            f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        os.unlink(rel.path(exe))
    v3(at_v2, edit=drop)
    refused(at_v2, "the release manifest has no bin " + exe)


def test_manifest_edited_after_signing(at_v2):
    rel = v3(at_v2)
    with open(rel.path("release.json"), "ab") as f:
        f.write(b" ")
    refused(at_v2, "E_DIGEST_MISMATCH")


def test_downgrade(at_v2):
    refused(at_v2, "v0.1.0 is older than the installed v0.2.0 (a downgrade",
            "--version", V1)


def test_replayed_older_manifest(at_v2):
    """The server's "latest" is the old, validly signed v0.1.0."""
    at_v2.srv.serve(at_v2.rel[V1], latest=True)
    refused(at_v2, "latest manifest is v0.1.0, older than the installed "
            "v0.2.0 (a replayed manifest)")


def test_old_manifest_under_a_new_tag(at_v2):
    at_v2.srv.serve(at_v2.rel[V1], at=V3)
    refused(at_v2, "asked for v0.3.0, the release manifest is v0.1.0's",
            "--version", V3)


def test_same_version_other_bytes(at_v2):
    rel = Release(at_v2.base, at_v2.signer, V2,
                  extra=[("info", "more.txt", b"x")]).publish()
    at_v2.srv.serve(rel, latest=True)
    refused(at_v2, "differs from the installed one")


@pytest.mark.parametrize("name", ["lockfile", "seccomp.json", "release.json"])
def test_unsigned_artifact(at_v2, name):
    v3(at_v2)
    at_v2.srv.unserve("/releases/latest/download/%s.sigstore.json" % name)
    at_v2.srv.unserve("/releases/download/v0.3.0/%s.sigstore.json" % name)
    refused(at_v2, "HTTP status 404")


def test_missing_artifact(at_v2):
    v3(at_v2)
    at_v2.srv.unserve("/releases/download/v0.3.0/lox")
    refused(at_v2, "refused: lox: HTTP status 404")


def test_truncated_download(at_v2):
    v3(at_v2)
    at_v2.srv.srv.truncate.add("/releases/download/v0.3.0/lockfile")
    r = refused(at_v2, "refused: lockfile: ")
    assert "transfer closed" in out_text(r) or "truncated" in out_text(r), \
        out_text(r)


def test_short_file(at_v2):
    """A complete response shorter than the manifest says."""
    def edit(rel):
        with open(rel.path("lockfile"), "r+b") as f:
            f.truncate(os.path.getsize(rel.path("lockfile")) - 1)
    v3(at_v2, edit=edit)
    refused(at_v2, "truncated: ")


def test_longer_file(at_v2):
    def edit(rel):
        with open(rel.path("lox"), "ab") as f:
            f.write(b"more")
    v3(at_v2, edit=edit)
    refused(at_v2, "larger than its limit")


def test_stalled_server(at_v2):
    v3(at_v2)
    ev = threading.Event()
    at_v2.srv.srv.stall["/releases/download/v0.3.0/lockfile"] = ev
    r = refused(at_v2, "refused: lockfile: ", "--stall-timeout", "2")
    ev.set()
    assert "too slow" in out_text(r).lower() or "timeout" in out_text(r).lower(), \
        out_text(r)


def test_untrusted_tls(at_v2):
    """Not the test CA: TLS refuses before any byte is used."""
    at_v2.trust.write("lockfile-test/lockfile",
                      at_v2.srv.url.replace("localhost", "127.0.0.1"))
    refused(at_v2, "release.json (the release manifest)")


# ---- who and where ----

def test_not_root(at_v2):
    r = at_v2.pfx.update(at_v2.srv, at_v2.trust, user="lockfile")
    assert_clean_exit(r, 70)
    assert "as root" in out_text(r)


def test_prefix_writable_by_others(w):
    update(w, "--version", V1)
    os.chmod(w.pfx.path("bin"), 0o777)
    try:
        refused(w, "not root's, or writable by group or others", code=70)
    finally:
        os.chmod(w.pfx.path("bin"), 0o755)


def test_symlinked_directory_refused(w):
    os.makedirs(w.pfx.path("real-bin"))
    os.symlink("real-bin", w.pfx.path("bin"))
    refused(w, "not root's, or writable by group or others", code=70)


def test_usage(w):
    for args in (["--version", "0.2.0"], ["--version", "v1.2"],
                 ["--rollback", "--check"], ["--stall-timeout", "0"],
                 ["extra"]):
        r = w.pfx.update(w.srv, w.trust, *args)
        assert_clean_exit(r, 64)


def test_leftovers_of_an_interrupted_run_are_swept(at_v2):
    w = at_v2
    junk = w.pfx.path("bin", ".lockfile-update.lockfile.0123456789abcdef")
    with open(junk, "wb") as f:
        f.write(b"half")
    os.makedirs(w.pfx.path("lib/lockfile/rollback.new/bin"))
    rec = w.pfx.path("lib/lockfile/release/.lockfile-update.release.json.00")
    with open(rec, "wb") as f:
        f.write(b"{")
    update(w, want="up to date")
    assert not os.path.exists(junk) and not os.path.exists(rec)
    assert not os.path.exists(w.pfx.path("lib/lockfile/rollback.new"))
    assert sha256_file(w.pfx.path("bin/lockfile")) == sha256_file(
        w.rel[V2].path("lockfile"))
