"""swiftenv: a throwaway OpenStack Swift with s3api on 127.0.0.1.

Debian's Swift (swift-proxy, swift-object, swift-container,
swift-account; scripts/install-deps.d/sources.sh) is the S3-compatible
server here because it verifies SigV4 for real: the signature, the access
key, the region, in path and virtual-hosted style (docs/sources.md,
"Tests and benchmark"). Four servers, one device, rings with one
replica, tempauth with the account test:tester / testing, all under a
fresh directory; nothing in /etc/swift is read or written (swift_dir).

    sw = SwiftEnv(); sw.start()
    sw.put("bkt", "a b.pdf", b"...")       # through the Swift API
    sw.endpoint                               # http://127.0.0.1:PORT
    sw.stop()
"""
import datetime
import hashlib
import hmac
import http.client
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time

from lftest import free_port
import urllib.parse
import urllib.request

ACCESS_KEY = "test:tester"
SECRET_KEY = "testing"
REGION = "us-east-1"
STORAGE_DOMAIN = "s3.test"
SWIFT_USER = "swift"


class SwiftEnv:
    def __init__(self):
        self.base = tempfile.mkdtemp(prefix="lfswift-", dir="/tmp")
        os.chmod(self.base, 0o755)
        self.etc = os.path.join(self.base, "etc")
        self.devices = os.path.join(self.base, "srv")
        self.logdir = os.path.join(self.base, "log")
        for d in (self.etc, os.path.join(self.devices, "d1"), self.logdir,
                  os.path.join(self.base, "cache")):
            os.makedirs(d)
        pw = pwd.getpwnam(SWIFT_USER)
        for d in (self.devices, os.path.join(self.devices, "d1"),
                  os.path.join(self.base, "cache")):
            os.chown(d, pw.pw_uid, pw.pw_gid)
        self.ports = {k: free_port() for k in
                      ("proxy", "account", "container", "object")}
        self.endpoint = "http://127.0.0.1:%d" % self.ports["proxy"]
        self.procs = []

    # ---- configuration --------------------------------------------------
    def _write(self, name, text):
        p = os.path.join(self.etc, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def _common(self, port):
        return ("[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = %d\n"
                "workers = 0\nuser = %s\nswift_dir = %s\ndevices = %s\n"
                "mount_check = false\nlog_level = WARNING\n"
                "log_address = /dev/null\n" % (port, SWIFT_USER, self.etc,
                                               self.devices))

    def configure(self):
        self._write("swift.conf",
                    "[swift-hash]\nswift_hash_path_suffix = lftest\n"
                    "swift_hash_path_prefix = lftest\n"
                    "[storage-policy:0]\nname = Policy-0\ndefault = yes\n")
        for kind in ("account", "container", "object"):
            self._write("%s-server.conf" % kind, self._common(self.ports[kind])
                        + "\n[pipeline:main]\npipeline = %s-server\n\n"
                        "[app:%s-server]\nuse = egg:swift#%s\n"
                        % (kind, kind, kind)
                        + ("\n[%s-replicator]\n[%s-auditor]\n" % (kind, kind)))
            b = os.path.join(self.etc, "%s.builder" % kind)
            run(["swift-ring-builder", b, "create", "4", "1", "1"])
            run(["swift-ring-builder", b, "add", "r1z1-127.0.0.1:%d/d1"
                 % self.ports[kind], "100"])
            run(["swift-ring-builder", b, "rebalance"], ok=(0, 1))
        self._write("proxy-server.conf", self._common(self.ports["proxy"]) + """
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = %s
storage_domain = %s
dns_compliant_bucket_names = true

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin
user_test_other = otherpass .admin

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:1
[filter:listing_formats]
use = egg:swift#listing_formats
""" % (REGION, STORAGE_DOMAIN))
        chown_tree(self.etc, SWIFT_USER)

    # ---- servers -----------------------------------------------------------
    def start(self, timeout=60):
        self.configure()
        for kind in ("account", "container", "object", "proxy"):
            log = open(os.path.join(self.logdir, kind + ".log"), "wb")
            p = subprocess.Popen(["swift-%s-server" % kind,
                                  os.path.join(self.etc,
                                               "%s-server.conf" % kind)],
                                 stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            self.procs.append(p)
        t0 = time.time()
        while time.time() - t0 < timeout:
            try:
                with urllib.request.urlopen(self.endpoint + "/healthcheck",
                                            timeout=2) as r:
                    if r.status == 200 and self._all_listening():
                        break
            except OSError:
                pass
            for p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError("a Swift server exited:\n" + self.logs())
            time.sleep(0.2)
        else:
            raise RuntimeError("Swift did not come up:\n" + self.logs())
        self.auth()

    def _all_listening(self):
        for k in ("account", "container", "object"):
            try:
                socket.create_connection(("127.0.0.1", self.ports[k]), 1).close()
            except OSError:
                return False
        return True

    def logs(self):
        out = []
        for f in sorted(os.listdir(self.logdir)):
            with open(os.path.join(self.logdir, f), "rb") as fh:
                out.append("== %s\n%s" % (f, fh.read()[-3000:].decode(
                    "utf-8", "replace")))
        return "\n".join(out)

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, 15)
                except ProcessLookupError:
                    pass
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait(10)
        self.procs = []

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    # ---- S3 requests from Python, to lay out buckets and objects -------
    # tempauth's tokens need a memcached; its S3 path does not. So the
    # set-up speaks S3 too, signed by the independent SigV4 below.
    def auth(self):
        t0 = time.time()
        while True:
            try:
                st, _ = self.s3("GET", "/")
                if st == 200:
                    return
            except OSError:
                pass
            if time.time() - t0 > 30:
                raise RuntimeError("s3api does not answer:\n" + self.logs())
            time.sleep(0.3)

    def s3(self, method, path, body=b"", headers=None, access=ACCESS_KEY,
           secret=SECRET_KEY, region=REGION, host=None, body_file=None):
        """One signed S3 request (path already percent-encoded). Returns
        (status, body bytes)."""
        host = host or "127.0.0.1:%d" % self.ports["proxy"]
        if body_file is not None:
            h = hashlib.sha256()
            with open(body_file, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            payload_hash = h.hexdigest()
            length = os.path.getsize(body_file)
        else:
            payload_hash = hashlib.sha256(body).hexdigest()
            length = len(body)
        hdrs = sigv4_headers(method, host, path, payload_hash, access,
                             secret, region)
        hdrs["Content-Length"] = str(length)
        hdrs.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", self.ports["proxy"],
                                          timeout=600)
        try:
            if body_file is not None:
                with open(body_file, "rb") as f:
                    conn.request(method, path, body=f, headers=hdrs)
                    r = conn.getresponse()
                    return r.status, r.read()
            conn.request(method, path, body=body, headers=hdrs)
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def _ok(self, what, st, out):
        if st // 100 != 2:
            raise RuntimeError("%s: HTTP %d %r" % (what, st, out[:300]))

    def bucket(self, name):
        st, out = self.s3("PUT", "/" + name)
        self._ok("create bucket", st, out)

    def put(self, bucket, key, data):
        t0 = time.time()
        while True:
            st, out = self.s3("PUT", "/%s/%s" % (bucket, s3_quote(key)),
                              body=data)
            # the rings settle in the first seconds after a start
            if st in (503, 507) and time.time() - t0 < 30:
                time.sleep(0.5)
                continue
            self._ok("put", st, out)
            return

    def put_file(self, bucket, key, path):
        st, out = self.s3("PUT", "/%s/%s" % (bucket, s3_quote(key)),
                          body_file=path)
        self._ok("put", st, out)


def presign(host, path, access, secret, region, expires=3600):
    """A presigned GET URL (SigV4 query authentication) for a path already
    percent-encoded: what `curl -o` fetches in the benchmark."""
    now = datetime.datetime.now(datetime.timezone.utc)
    amzdate = now.strftime("%Y%m%dT%H%M%SZ")
    day = now.strftime("%Y%m%d")
    scope = "%s/%s/s3/aws4_request" % (day, region)
    q = {"X-Amz-Algorithm": "AWS4-HMAC-SHA256",
         "X-Amz-Credential": "%s/%s" % (access, scope),
         "X-Amz-Date": amzdate, "X-Amz-Expires": str(expires),
         "X-Amz-SignedHeaders": "host"}
    query = "&".join("%s=%s" % (urllib.parse.quote(k, safe="-_.~"),
                                urllib.parse.quote(v, safe="-_.~"))
                     for k, v in sorted(q.items()))
    creq = "\n".join(["GET", path, query, "host:%s\n" % host, "host",
                      "UNSIGNED-PAYLOAD"])
    sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope,
                     hashlib.sha256(creq.encode()).hexdigest()])

    def hm(k, m):
        return hmac.new(k, m.encode(), hashlib.sha256).digest()
    k = hm(hm(hm(hm(("AWS4" + secret).encode(), day), region), "s3"),
           "aws4_request")
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    return "http://%s%s?%s&X-Amz-Signature=%s" % (host, path, query, sig)


def s3_quote(key):
    """Percent-encode a key the way S3 wants it (all but unreserved and
    "/"), written independently of src/sources/s3url.c."""
    return urllib.parse.quote(key.encode("utf-8") if isinstance(key, str)
                              else key, safe="/-_.~")


def sigv4_headers(method, host, path, payload_hash, access, secret, region,
                  query=""):
    now = datetime.datetime.now(datetime.timezone.utc)
    amzdate = now.strftime("%Y%m%dT%H%M%SZ")
    day = now.strftime("%Y%m%d")
    canon_headers = ("host:%s\nx-amz-content-sha256:%s\nx-amz-date:%s\n"
                     % (host, payload_hash, amzdate))
    signed = "host;x-amz-content-sha256;x-amz-date"
    creq = "\n".join([method, path, query, canon_headers, signed,
                      payload_hash])
    scope = "%s/%s/s3/aws4_request" % (day, region)
    sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope,
                     hashlib.sha256(creq.encode()).hexdigest()])

    def hm(k, m):
        return hmac.new(k, m.encode(), hashlib.sha256).digest()
    k = hm(("AWS4" + secret).encode(), day)
    k = hm(k, region)
    k = hm(k, "s3")
    k = hm(k, "aws4_request")
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    return {"Host": host, "x-amz-date": amzdate,
            "x-amz-content-sha256": payload_hash,
            "Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s, "
                             "SignedHeaders=%s, Signature=%s"
                             % (access, scope, signed, sig)}


def run(argv, ok=(0,)):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode not in ok:
        raise RuntimeError("%s: %s" % (argv, r.stdout.decode()))
    return r


def chown_tree(path, user):
    pw = pwd.getpwnam(user)
    for dp, dn, fn in os.walk(path):
        os.chown(dp, pw.pw_uid, pw.pw_gid)
        for f in fn:
            os.chown(os.path.join(dp, f), pw.pw_uid, pw.pw_gid)


if __name__ == "__main__":
    sw = SwiftEnv()
    try:
        sw.start()
    except Exception:
        sw.cleanup()
        raise
    print(json.dumps({"endpoint": sw.endpoint, "base": sw.base}))
    sw.bucket("bkt")
    sw.put("bkt", "hello.txt", b"hello\n")
    print("ok")
    sw.cleanup()
