"""scripts/install.sh --prefix: where it writes (issue 26, 6). Sticky
world-writable is fine above the prefix, never as it; each directory it
makes (or finds) below the prefix is checked before anything is written
into it: root's, a directory and not a symlink, closed to group and
others. Run on this machine (Debian 12 amd64, as the tests' image is: no
chroot, so cheap), from an offline copy (--from), without packages or
accounts, into test directories."""
import os
import shutil
import stat
import subprocess

import pytest

from relenv import ROOT, Release, Signer, make_base, out_text


@pytest.fixture
def local():
    base = make_base("lfrel-prefix-")
    os.chmod(base, 0o755)
    signer = Signer(base)
    with open(signer.root, "rb") as f:
        troot = f.read()
    with open(os.path.join(ROOT, "etc", "tmpfiles.d", "lockfile.conf"),
              "rb") as f:
        tmpfiles = f.read()
    rel = Release(base, signer, "v0.2.0", extra=[
        ("trust", "trusted_root.json", troot),
        ("tmpfiles", "lockfile.conf", tmpfiles)]).publish()
    rel.install_sh("https://example.invalid/lockfile/releases")
    yield base, rel
    shutil.rmtree(base, ignore_errors=True)


def run_install(rel, prefix, sysconfdir):
    return subprocess.run(
        ["sh", rel.path("install.sh"), "--from", rel.out, "--prefix", prefix,
         "--sysconfdir", sysconfdir, "--no-accounts", "--no-packages"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=120,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"})


def tree(d):
    return sorted(os.path.relpath(os.path.join(p, n), d)
                  for p, ds, fs in os.walk(d) for n in ds + fs)


def test_prefix_sticky_is_refused(local):
    """--prefix /tmp: sticky and world-writable passed as the prefix
    itself (fine only above it), and the directories made in it were never
    checked."""
    base, rel = local
    sticky = os.path.join(base, "tmp")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    etc = os.path.join(base, "etc")
    r = run_install(rel, sticky, etc)
    assert r.returncode == 1, out_text(r)
    assert "%s is sticky (mode 1777): not a place to install into" % sticky \
        in out_text(r), out_text(r)
    assert tree(sticky) == [] and not os.path.exists(etc)


def test_directory_below_the_prefix_of_another_account(local):
    """The prefix is root's, but lib/ below it was made by another account
    (it could swap tmpfiles.d, whose files root's systemd-tmpfiles runs):
    refused before anything is written."""
    base, rel = local
    pfx = os.path.join(base, "prefix")
    os.mkdir(pfx, 0o755)
    os.mkdir(os.path.join(pfx, "lib"), 0o755)
    os.chown(os.path.join(pfx, "lib"), 65534, 65534)
    etc = os.path.join(base, "etc")
    r = run_install(rel, pfx, etc)
    assert r.returncode == 1, out_text(r)
    assert "%s/lib is not root's: not a place to install into" % pfx in \
        out_text(r), out_text(r)
    assert not os.path.exists(os.path.join(pfx, "bin", "lockfile"))
    assert not os.path.exists(os.path.join(etc, "trust.toml"))


def test_symlinked_directory_below_the_prefix(local):
    base, rel = local
    pfx = os.path.join(base, "prefix")
    other = os.path.join(base, "other")
    os.mkdir(pfx, 0o755)
    os.mkdir(other, 0o755)
    os.symlink(other, os.path.join(pfx, "share"))
    r = run_install(rel, pfx, os.path.join(base, "etc"))
    assert r.returncode == 1, out_text(r)
    assert "%s/share is not a directory (a symlink or a file)" % pfx in \
        out_text(r), out_text(r)
    assert tree(other) == []


def test_good_prefix_installs(local):
    """A fresh root's prefix under a sticky /tmp-like directory: made, each
    directory root's 0755, the files in place (the last line, doctor's, is
    not this test's: no console account here)."""
    base, rel = local
    sticky = os.path.join(base, "tmp")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    pfx = os.path.join(sticky, "lf")
    r = run_install(rel, pfx, os.path.join(base, "etc"))
    assert "files match the pinned sha256" in out_text(r), out_text(r)
    assert "installed v0.2.0 in %s" % pfx in out_text(r), out_text(r)
    for d in ("", "bin", "share/lockfile", "lib/lockfile/release",
              "lib/tmpfiles.d"):
        st = os.lstat(os.path.join(pfx, d))
        assert st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o755, d
    assert os.path.isfile(os.path.join(pfx, "bin", "lockfile-console"))
