"""scripts/install.sh, as a user runs it: the install.sh of a test release
(its pins written by scripts/release.py, as release.yml does), fetched with
curl over HTTPS (the test CA in the chroot's bundle) and run with Debian's
/bin/sh (dash) as root in a fresh Debian 12 chroot (debootstrap minbase,
cached by content under the build directory: tests/release/mkchroot). A
tampered file refuses and installs nothing; the genuine release installs
and ends with doctor's launcher line; lockfile update then takes over the
installation from the record install.sh wrote."""
import os
import shlex
import shutil
import subprocess

import pytest

from relenv import (INSTALL_SH, PLUGIN_BUILD, REPO, ROOT, Release, Server,
                    Signer,
                    make_base, make_pki, out_text, trust_toml)

MKCHROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mkchroot")


@pytest.fixture(scope="module")
def tarball():
    r = subprocess.run([MKCHROOT, os.path.join(PLUGIN_BUILD, "release-cache")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=900)
    assert r.returncode == 0, out_text(r)
    return r.stdout.decode().strip()


@pytest.fixture
def env(tarball):
    base = make_base("lfrel-chroot-")
    signer = Signer(base)
    srv = Server(base, make_pki(os.path.join(base, "pki")))
    root = os.path.join(base, "root")
    os.makedirs(root)
    os.chmod(root, 0o755)
    subprocess.run(["tar", "-xf", tarball, "-C", root], check=True)
    os.chmod(root, 0o755)      # the tree's /, whatever tar restored
    # The chroot trusts the test CA (and only it) for HTTPS.
    shutil.copyfile(srv.ca, os.path.join(root, "etc/ssl/certs/"
                                         "ca-certificates.crt"))
    yield base, signer, srv, root
    srv.stop()
    shutil.rmtree(base, ignore_errors=True)


def release(base, signer, srv, tag):
    with open(signer.root, "rb") as f:
        troot = f.read()
    trust = trust_toml(REPO, srv.url).encode()
    with open(os.path.join(ROOT, "etc", "tmpfiles.d", "lockfile.conf"),
              "rb") as f:
        tmpfiles = f.read()
    rel = Release(base, signer, tag, extra=[
        ("trust", "trusted_root.json", troot), ("trust", "trust.toml", trust),
        ("tmpfiles", "lockfile.conf", tmpfiles)])
    rel.publish()
    rel.install_sh(srv.url)
    rel.sign("install.sh")
    return rel


def in_chroot(root, script, timeout=600):
    inner = ("mount -t proc proc {r}/proc && mount --rbind /dev {r}/dev && "
             "exec chroot {r} /bin/sh -c {s}").format(
                 r=shlex.quote(root), s=shlex.quote(script))
    return subprocess.run(["unshare", "--mount", "--pid", "--fork",
                           "--propagation", "private", "sh", "-c", inner],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout,
                          env={"PATH": "/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                               "LANG": "C.UTF-8"})


def fetch_and_run(srv, tag):
    url = "%s/download/%s/install.sh" % (srv.url, tag)
    return ("cd /root && curl --proto =https -fsS -o install.sh %s && "
            "sh ./install.sh" % shlex.quote(url))


def test_the_template_refuses():
    r = subprocess.run(["sh", INSTALL_SH], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    assert r.returncode == 1
    assert b"this is the template" in r.stderr


def test_install_sh_on_a_fresh_debian(env):
    base, signer, srv, root = env
    rel = release(base, signer, srv, "v0.2.0")
    srv.serve(rel, latest=True)
    # A file that is not the pinned one: nothing is installed.
    bad = os.path.join(base, "bad-lockfile")
    with open(rel.path("lockfile"), "rb") as f:
        data = bytearray(f.read())
    data[-3] ^= 1
    with open(bad, "wb") as f:
        f.write(data)
    srv.srv.files["/releases/download/v0.2.0/lockfile"] = bad
    r = in_chroot(root, fetch_and_run(srv, "v0.2.0"))
    assert r.returncode == 1, out_text(r)
    assert "not the one this script pins: nothing installed" in out_text(r)
    for p in ("usr/local/bin/lockfile", "usr/local/bin/lox",
              "usr/local/lib/lockfile/release/release.json",
              "etc/lockfile/trust.toml"):
        assert not os.path.lexists(os.path.join(root, p)), p

    # The genuine release.
    srv.serve(rel, latest=True)
    r = in_chroot(root, fetch_and_run(srv, "v0.2.0"))
    out = out_text(r)
    assert r.returncode == 0, out
    last = out.strip().splitlines()[-1]
    assert last.startswith("ok") and last.split()[1] == "launcher", out
    assert "v0.2.0 (commit 0123456789ab" in last, last
    assert "installed by install.sh (every sha256 pinned by the script)" in last
    for sub, name in (("usr/local/bin", "lockfile"), ("usr/local/bin", "lox"),
                      ("usr/local/bin", "lockfile-console"),
                      ("usr/local/bin", "lockfile-parse-worker"),
                      ("usr/local/bin", "lockfile-sandbox-run"),
                      ("usr/local/share/lockfile", "seccomp.json"),
                      ("etc/lockfile", "trusted_root.json"),
                      ("usr/local/lib/tmpfiles.d", "lockfile.conf"),
                      ("usr/local/lib/lockfile/release", "release.json")):
        p = os.path.join(root, sub, name)
        with open(p, "rb") as f, open(rel.path(name), "rb") as g:
            assert f.read() == g.read(), name
        st = os.stat(p)
        assert st.st_uid == 0 and not st.st_mode & 0o022, name
    with open(os.path.join(root, "usr/local/lib/lockfile/release/"
                           "installed-by")) as f:
        assert f.read() == "install.sh\n"
    with open(os.path.join(root, "etc/passwd")) as f:
        assert any(l.startswith("lockfile:") for l in f)

    # lockfile update takes it from there.
    r = in_chroot(root, "lockfile update --check")
    assert r.returncode == 0 and "up to date: v0.2.0" in out_text(r), \
        out_text(r)
    new = release(base, signer, srv, "v0.3.0")
    srv.serve(new, latest=True)
    r = in_chroot(root, "lockfile update && setpriv --reuid=lockfile "
                  "--regid=lockfile --init-groups lockfile doctor | "
                  "grep launcher")
    out = out_text(r)
    assert "installed v0.3.0" in out and "installed by lockfile update" in \
        out, out
    with open(os.path.join(root, "usr/local/bin/lockfile"), "rb") as f, \
            open(new.path("lockfile"), "rb") as g:
        assert f.read() == g.read()

    # The v0.2.0 installer does not go back over it.
    srv.serve(rel)
    r = in_chroot(root, fetch_and_run(srv, "v0.2.0"))
    assert r.returncode == 1 and "another release is installed" in \
        out_text(r), out_text(r)
