"""Marketplaces over HTTPS (libcurl): a local TLS server whose test CA is
bind-mounted over the system CA bundle in a private mount namespace, so the
real `lockfile plugin install` verifies TLS as in production. Redirects on
the same origin are followed (a few); to another host, port or scheme they
are refused; an untrusted certificate, an error status and a file over its
cap (streamed without a length) are refused, and nothing is written."""
import http.server
import os
import shlex
import shutil
import ssl
import subprocess
import threading
import time
import types

import pexpect
import pytest

from lftest.oldtls import (OldTlsServer, old_tls_reachable,
                          permissive_openssl_conf)
from storeenv import (Market, Store, Trust, assert_clean_exit,
                      finish_terminal, make_base, out_text, spawn_on_terminal)

CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_pki(d):
    os.makedirs(d)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-out", "ca.pem", "-days", "2", "-subj", "/CN=lockfile test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign", cwd=d)
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj",
            "/CN=localhost", cwd=d)
    with open(os.path.join(d, "ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey",
            "ca.key", "-CAcreateserial", "-out", "srv.pem", "-days", "2",
            "-extfile", "ext", cwd=d)
    os.chmod(d, 0o755)
    os.chmod(os.path.join(d, "ca.pem"), 0o644)
    return d


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        srv = self.server
        srv.hits.append(self.path)
        if self.path in srv.holds:
            srv.holds[self.path].wait(30)
        if self.path in srv.redirects:
            self.send_response(302)
            self.send_header("Location", srv.redirects[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path in srv.streams:
            # Chunked, no Content-Length: the cap must hold while streaming.
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            left = srv.streams[self.path]
            try:
                while left > 0:
                    n = min(left, 65536)
                    self.wfile.write(b"%x\r\n" % n + b" " * n + b"\r\n")
                    left -= n
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                pass
            return
        super().do_GET()


@pytest.fixture
def hw(signer):
    base = make_base("lfst-https-")
    pki = make_pki(os.path.join(base, "pki"))
    mk = Market(base, "official", signer)
    mk.publish(3)
    srv = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a, **k: Handler(*a, directory=base, **k))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(pki, "srv.pem"),
                        os.path.join(pki, "srv.key"))
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.redirects, srv.streams, srv.hits, srv.holds = {}, {}, [], {}
    port = srv.server_address[1]
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    origin = "https://localhost:%d" % port
    trust = Trust(base, signer, [("official", mk, True)])
    trust.write([("official", mk, True)],
                url=origin + "/" + os.path.basename(mk.dir))
    st = Store(base=base)
    yield types.SimpleNamespace(base=base, mk=mk, srv=srv, port=port,
                                origin=origin, trust=trust, st=st, pki=pki)
    srv.shutdown()
    srv.server_close()
    shutil.rmtree(base, ignore_errors=True)


def wrapped(hw, args, ca=True, openssl_conf=None):
    """argv of the command in a private mount namespace where the system CA
    bundle is the test CA (ca=True) or left alone, and the system OpenSSL
    configuration is openssl_conf when given."""
    argv = shlex.join(hw.st.argv(list(args), trust=hw.trust))
    script = ("mount --bind %s %s && " % (
        shlex.quote(os.path.join(hw.pki, "ca.pem")), CA_BUNDLE)) if ca else ""
    if openssl_conf is not None:
        script += "mount --bind %s /etc/ssl/openssl.cnf && " % (
            shlex.quote(openssl_conf))
    script += "exec " + argv
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            script]


def run(hw, *args, ca=True, openssl_conf=None):
    return subprocess.run(wrapped(hw, args, ca, openssl_conf),
                          stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, start_new_session=True)


def refused(hw, want, *args, ca=True):
    before = hw.st.snapshot()
    r = run(hw, *args, ca=ca)
    assert_clean_exit(r, 1)
    assert want in out_text(r), out_text(r)
    hw.st.assert_no_plugin_changed(before, {"official": hw.mk})
    return r


def mpath(hw, rel):
    return "/%s/%s" % (os.path.basename(hw.mk.dir), rel)


def test_install_over_https(hw):
    r = run(hw, "install", "is-pdf")
    assert_clean_exit(r, 0)
    assert hw.st.entry("is-pdf")["version"] == "1.0.0"
    assert mpath(hw, "plugins/is-pdf/1.0.0/plugin") in hw.srv.hits
    assert_clean_exit(run(hw, "verify"), 0)


def test_untrusted_certificate_refused(hw):
    r = refused(hw, "index.json", "install", "is-pdf", ca=False)
    assert "certificate" in out_text(r), out_text(r)


def test_tls_1_1_refused_where_the_system_allows_it(hw):
    """The floor of every HTTPS client (src/lib/https.h): TLS 1.2 or later
    even on a host whose system OpenSSL accepts TLS 1.1 (the control shows
    it does). fetch.c left the version to the system before."""
    conf = permissive_openssl_conf(hw.base)
    with OldTlsServer(os.path.join(hw.pki, "srv.pem"),
                      os.path.join(hw.pki, "srv.key")) as old:
        assert old_tls_reachable(old.port, conf)
        hw.trust.write([("official", hw.mk, True)],
                       url="https://localhost:%d/%s" % (
                           old.port, os.path.basename(hw.mk.dir)))
        before = hw.st.snapshot()
        r = run(hw, "install", "is-pdf", openssl_conf=conf)
        assert_clean_exit(r, 1)
        assert old.requests == [], (old.requests, out_text(r))
        hw.st.assert_no_plugin_changed(before, {"official": hw.mk})


def test_redirect_on_the_same_origin_followed(hw):
    hw.srv.redirects[mpath(hw, "index.json")] = \
        hw.origin + mpath(hw, "index.json?moved")
    hw.srv.redirects[mpath(hw, "plugins/is-pdf/1.0.0/plugin")] = \
        mpath(hw, "plugins/is-pdf/1.0.0/plugin?relative")
    assert_clean_exit(run(hw, "install", "is-pdf"), 0)


@pytest.mark.parametrize("target", [
    "https://127.0.0.1:{port}/{rel}",        # another host
    "https://localhost:1/{rel}",             # another port
    "http://localhost:{port}/{rel}",         # another scheme
    "https://example.invalid/{rel}",
])
def test_redirect_elsewhere_refused(hw, target):
    rel = "plugins/is-pdf/1.0.0/plugin"
    hw.srv.redirects[mpath(hw, rel)] = target.format(
        port=hw.port, rel=os.path.basename(hw.mk.dir) + "/" + rel)
    refused(hw, "redirect to another scheme, host or port refused",
            "install", "is-pdf")


def test_redirect_loop_refused(hw):
    p = mpath(hw, "index.json")
    hw.srv.redirects[p] = p
    refused(hw, "too many redirects", "install", "is-pdf")


def test_missing_file_refused(hw):
    os.unlink(hw.mk.path("plugins/is-pdf/1.0.0/plugin.sigstore.json"))
    refused(hw, "HTTP status 404", "install", "is-pdf")


def test_streamed_over_the_cap_refused(hw):
    hw.srv.streams[mpath(hw, "index.json")] = 2 * 1024 * 1024
    refused(hw, "larger than its limit", "install", "is-pdf")
    hw.srv.streams.clear()
    hw.srv.streams[mpath(hw, "plugins/is-pdf/1.0.0/manifest.json")] = 65536
    refused(hw, "larger than its limit", "install", "is-pdf")


def test_type_ahead_cannot_accept_a_loosening(hw):
    """Keys typed while the command is still downloading (held by the
    server) are flushed before the card: they cannot accept it."""
    assert_clean_exit(run(hw, "install", "contains"), 0)

    def edit(m):
        m["question"] = "Does the file contain the typed text, in any case?"
    hw.mk.add_version("contains", "1.1.0", edit=edit)
    hw.mk.publish(4)
    before = hw.st.snapshot()
    held = mpath(hw, "plugins/contains/1.1.0/plugin")
    hw.srv.holds[held] = threading.Event()
    # a terminal that passes the console's terminal checks (storeenv)
    child = spawn_on_terminal(hw.st.argv(["update"], trust=hw.trust),
                              setup=["mount --bind %s %s" % (shlex.quote(
                                  os.path.join(hw.pki, "ca.pem")), CA_BUNDLE)])
    for _ in range(600):
        if held in hw.srv.hits:
            break
        time.sleep(0.05)
    assert held in hw.srv.hits, child.read_nonblocking(4096, 1)
    child.send("accept\r")
    time.sleep(0.5)
    hw.srv.holds[held].set()
    child.expect("LOOSENS")
    child.expect(r"Type 'accept'")
    try:
        child.expect("accepted", timeout=2)
        raise AssertionError("type-ahead answered the loosening prompt")
    except pexpect.TIMEOUT:
        pass
    child.sendline("no")
    child.expect("not accepted")
    assert finish_terminal(child) == 1
    hw.st.assert_no_plugin_changed(before, {"official": hw.mk})
