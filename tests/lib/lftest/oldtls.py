"""A server that speaks only TLS 1.1, and a host whose system OpenSSL
would accept it: the floor every HTTPS client sets (src/lib/https.h,
docs/security.md "Network clients") must hold where the system's own
configuration does not. Debian's OpenSSL 3 refuses TLS 1.1 at its default
security level, so without the permissive configuration the test could
not fail; with it, a client that leaves the version to the system
completes the handshake."""
import http.server
import os
import shlex
import ssl
import threading
import warnings

PERMISSIVE_CNF = """openssl_conf = default_conf
[default_conf]
ssl_conf = ssl_sect
[ssl_sect]
system_default = system_default_sect
[system_default_sect]
MinProtocol = TLSv1
CipherString = DEFAULT:@SECLEVEL=0
"""


def permissive_openssl_conf(dirpath):
    """Write the configuration (0644) in dirpath; its path."""
    p = os.path.join(dirpath, "permissive-openssl.cnf")
    with open(p, "w") as f:
        f.write(PERMISSIVE_CNF)
    os.chmod(p, 0o644)
    return p


def under_permissive_openssl(argv, conf):
    """argv run (as root) in a private mount namespace whose system
    OpenSSL configuration is conf: what the program reads at startup,
    whatever its environment or self-confinement."""
    script = "mount --bind %s /etc/ssl/openssl.cnf && exec %s" % (
        shlex.quote(conf), shlex.join(argv))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            script]


class OldTlsServer:
    """HTTPS on 127.0.0.1 with TLS 1.1 only; every GET and POST is
    answered 404 and counted in .requests (a request means the handshake
    went through)."""

    def __init__(self, cert, key):
        self.requests = []
        srv = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _answer(self):
                srv.requests.append(self.requestline)
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = _answer

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            ctx.minimum_version = ssl.TLSVersion.TLSv1_1
            ctx.maximum_version = ssl.TLSVersion.TLSv1_1
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket,
                                            server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *a):
        self.httpd.shutdown()
        self.httpd.server_close()


def old_tls_reachable(port, conf):
    """The control: under conf, a client that leaves the version to the
    system (openssl s_client) completes a TLS 1.1 handshake with the
    server, so a test asserting a refusal can fail."""
    import subprocess
    r = subprocess.run(under_permissive_openssl(
        ["openssl", "s_client", "-connect", "127.0.0.1:%d" % port,
         "-tls1_1"], conf), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
    return r.returncode == 0 and b"Protocol  : TLSv1.1" in r.stdout
