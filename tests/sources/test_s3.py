"""The S3 source against a real server that verifies SigV4 (OpenStack
Swift with s3api, swiftenv.py), driven through fetch-one; plus small
misbehaving servers for what Swift will not do (stall, chunked bodies over
the cap, redirects, endless error bodies, TLS)."""
import hashlib
import os

import pytest

from conftest import BIG, KEYS
from lftest.oldtls import (OldTlsServer, old_tls_reachable,
                          permissive_openssl_conf, under_permissive_openssl)
from srcutil import (Misbehaving, closed_port, fetch, self_signed,
                     write_secret)
from swiftenv import ACCESS_KEY, REGION, SECRET_KEY, STORAGE_DOMAIN


def profile(swift, home, style="path", secret=SECRET_KEY, access=ACCESS_KEY,
            **over):
    cred = write_secret(home, "s3.cred", "%s\n%s\n" % (access, secret))
    t = {"endpoint": swift.endpoint, "region": REGION, "bucket": "bkt",
         "url_style": style, "credentials": {"file": cred}}
    if style == "virtual":
        t["endpoint"] = "http://%s:%d" % (STORAGE_DOMAIN, swift.ports["proxy"])
        t["address"] = "127.0.0.1"
    t.update(over)
    return t


@pytest.mark.parametrize("style", ["path", "virtual"])
@pytest.mark.parametrize("key", sorted(KEYS))
def test_fetch_keys(swift, home, style, key):
    out = os.path.join(home, "spool")
    r = fetch("s3", profile(swift, home, style), key, home, out=out)
    assert r["cause"] == "ok", r
    assert r["size"] == len(KEYS[key])
    assert r["sha256"] == hashlib.sha256(KEYS[key]).hexdigest()
    with open(out, "rb") as f:
        assert f.read() == KEYS[key]


def test_encoded_once(swift, home):
    """A key holding "%25" is fetched as those three characters: the
    source encodes once and curl sends the path as-is."""
    r = fetch("s3", profile(swift, home), "odd !$&'()*+,;=:@[]%25 #~.txt",
              home)
    assert r["cause"] == "ok", r
    r = fetch("s3", profile(swift, home), "odd !$&'()*+,;=:@[]% #~.txt", home)
    assert r["cause"] == "missing", r


def test_access_key_in_profile(swift, home):
    cred = write_secret(home, "secret-only", SECRET_KEY + "\n")
    t = profile(swift, home, access_key_id=ACCESS_KEY,
                credentials={"file": cred})
    r = fetch("s3", t, "plain.txt", home)
    assert r["cause"] == "ok", r
    # two lines where one is expected: refused when the profile opens
    t["credentials"] = {"file": write_secret(home, "two", "a\nb\n")}
    r = fetch("s3", t, "plain.txt", home)
    assert r["rc"] == 2 and "one line" in r["raw"], r


@pytest.mark.parametrize("style", ["path", "virtual"])
def test_wrong_secret(swift, home, style):
    r = fetch("s3", profile(swift, home, style, secret="not-the-secret"),
              "plain.txt", home)
    assert (r["cause"], r["detail"]) == ("bad-credentials",
                                         "HTTP 403 SignatureDoesNotMatch"), r
    assert "not-the-secret" not in r["raw"]


def test_unknown_access_key(swift, home):
    r = fetch("s3", profile(swift, home, access="nobody:nothing"),
              "plain.txt", home)
    assert r["cause"] == "bad-credentials", r
    # Swift's tempauth does not tell an unknown key from a bad signature
    assert r["detail"] in ("HTTP 403 InvalidAccessKeyId",
                           "HTTP 403 SignatureDoesNotMatch"), r
    assert "nobody" not in r["raw"]


def test_wrong_region(swift, home):
    r = fetch("s3", profile(swift, home, region="eu-west-3"), "plain.txt",
              home)
    assert r["cause"] == "bad-credentials", r
    assert r["detail"] == "HTTP 400 AuthorizationHeaderMalformed", r


@pytest.mark.parametrize("style", ["path", "virtual"])
def test_missing_key(swift, home, style):
    r = fetch("s3", profile(swift, home, style), "no/such/key.txt", home)
    assert (r["cause"], r["detail"]) == ("missing", "HTTP 404 NoSuchKey"), r


def test_missing_bucket(swift, home):
    r = fetch("s3", profile(swift, home, bucket="no-such-bkt"), "plain.txt",
              home)
    assert (r["cause"], r["detail"]) == ("missing", "HTTP 404 NoSuchBucket"), r


def test_other_bucket_is_not_this_one(swift, home):
    r = fetch("s3", profile(swift, home, bucket="other-bkt"), "plain.txt",
              home)
    assert r["cause"] == "missing", r


def test_cap_with_content_length(swift, home):
    out = os.path.join(home, "spool")
    r = fetch("s3", profile(swift, home), "big.bin", home, cap=BIG - 1,
              out=out)
    assert r["cause"] == "too-big", r
    assert os.path.getsize(out) == 0      # refused on the announced size
    r = fetch("s3", profile(swift, home), "big.bin", home, cap=BIG, out=out)
    assert r["cause"] == "ok" and r["size"] == BIG, r


def test_cap_without_content_length(home):
    cap = 1 << 20
    with Misbehaving("chunked", size=3 * cap) as srv:
        t = {"endpoint": srv.endpoint, "region": "r", "bucket": "bkt",
             "url_style": "path", "credentials": {
                 "file": write_secret(home, "c", "id\nsecret\n")}}
        out = os.path.join(home, "spool")
        r = fetch("s3", t, "k", home, cap=cap, out=out)
        assert r["cause"] == "too-big", r
        assert os.path.getsize(out) <= cap  # nothing past the cap, ever
        srv.size = cap
        r = fetch("s3", t, "k", home, cap=cap, out=out)
        assert r["cause"] == "ok" and r["size"] == cap, r
        # what the request looked like: the key encoded once, as sent
        line, headers = srv.requests[-1]
        assert line.startswith("GET /bkt/k HTTP/1.1")
        assert headers.get("x-amz-content-sha256") == hashlib.sha256(
            b"").hexdigest()
        assert "AWS4-HMAC-SHA256 Credential=id/" in headers["Authorization"]


def test_stall(home):
    for mode in ("stall", "stall_headers"):
        with Misbehaving(mode) as srv:
            t = {"endpoint": srv.endpoint, "region": "r", "bucket": "bkt",
                 "url_style": "path", "stall_timeout_s": 2,
                 "credentials": {"file": write_secret(home, "c",
                                                      "id\nsecret\n")}}
            r = fetch("s3", t, "k", home)
            assert r["cause"] == "timeout", r
            assert r["secs"] < 10, r


def test_closed_port(home):
    t = {"endpoint": "http://127.0.0.1:%d" % closed_port(), "region": "r",
         "bucket": "bkt", "url_style": "path",
         "credentials": {"file": write_secret(home, "c", "id\nsecret\n")}}
    r = fetch("s3", t, "k", home)
    assert r["cause"] == "network", r


def test_redirect_not_followed(home):
    with Misbehaving("redirect") as srv:
        t = {"endpoint": srv.endpoint, "region": "r", "bucket": "bkt",
             "url_style": "path",
             "credentials": {"file": write_secret(home, "c", "id\nsecret\n")}}
        r = fetch("s3", t, "k", home)
        assert (r["cause"], r["detail"]) == ("protocol",
                                             "HTTP 301 PermanentRedirect"), r
        assert len(srv.requests) == 1


def test_endless_error_body(home):
    with Misbehaving("huge_error") as srv:
        t = {"endpoint": srv.endpoint, "region": "r", "bucket": "bkt",
             "url_style": "path",
             "credentials": {"file": write_secret(home, "c", "id\nsecret\n")}}
        r = fetch("s3", t, "k", home, timeout=30)
        assert (r["cause"], r["detail"]) == ("protocol",
                                             "HTTP 500 InternalError"), r
        assert r["secs"] < 10
        assert r["rss_kb"] < 64 * 1024


def test_secret_never_in_detail(home):
    """A server that answers with the secret (or the key id) as its error
    code: the audit detail never carries either."""
    for word in ("Sup3rSecretValue", "AKIDEXAMPLE1234"):
        with Misbehaving("code", size=word) as srv:
            t = {"endpoint": srv.endpoint, "region": "r", "bucket": "bkt",
                 "url_style": "path", "credentials": {
                     "file": write_secret(home, "c",
                                          "AKIDEXAMPLE1234\nSup3rSecretValue\n")}}
            r = fetch("s3", t, "k", home)
            assert r["cause"] == "denied", r
            assert word not in r["raw"], r
            assert "<secret>" in r["detail"], r


def test_tls(home):
    cert, key = self_signed(home)
    with Misbehaving("ok", tls=(cert, key)) as srv:
        t = {"endpoint": srv.endpoint, "region": "r", "bucket": "bkt",
             "url_style": "path",
             "credentials": {"file": write_secret(home, "c", "id\nsecret\n")}}
        r = fetch("s3", t, "k", home)
        assert r["cause"] == "tls", r     # not in the system CAs
        t["ca_file"] = cert
        r = fetch("s3", t, "k", home)
        assert r["cause"] == "ok" and r["size"] == 9, r


def test_tls_1_1_refused_where_the_system_allows_it(home):
    """The floor of every HTTPS client (src/lib/https.h): TLS 1.2 or later
    even on a host whose system OpenSSL accepts TLS 1.1 (the control shows
    it does). A regression test here: s3.c pinned TLS 1.2 before."""
    cert, key = self_signed(home)
    conf = permissive_openssl_conf(home)
    with OldTlsServer(cert, key) as srv:
        assert old_tls_reachable(srv.port, conf)
        t = {"endpoint": "https://127.0.0.1:%d" % srv.port, "region": "r",
             "bucket": "bkt", "url_style": "path", "ca_file": cert,
             "credentials": {"file": write_secret(home, "c", "id\nsecret\n")}}
        r = fetch("s3", t, "k", home,
                  wrap=lambda c: under_permissive_openssl(c, conf))
        assert r["cause"] == "tls", r
        assert srv.requests == [], srv.requests


def test_ca_file_writable_by_others_refused(home):
    cert, _ = self_signed(home)
    os.chmod(cert, 0o666)
    t = {"endpoint": "https://127.0.0.1:1", "region": "r", "bucket": "bkt",
         "url_style": "path", "ca_file": cert,
         "credentials": {"file": write_secret(home, "c", "id\nsecret\n")}}
    r = fetch("s3", t, "k", home)
    assert r["rc"] == 2 and "ca_file" in r["raw"], r


def test_credentials_file_checked(swift, home):
    t = profile(swift, home)
    os.chmod(os.path.join(home, "s3.cred"), 0o640)
    r = fetch("s3", t, "plain.txt", home)
    assert r["rc"] == 2 and "0600" in r["raw"], r
    assert SECRET_KEY not in r["raw"]


def test_unknown_profile_key_refused(swift, home):
    t = profile(swift, home, follow_redirects=True)
    r = fetch("s3", t, "plain.txt", home)
    assert r["rc"] == 2 and "unknown key" in r["raw"], r
