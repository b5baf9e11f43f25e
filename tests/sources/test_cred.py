"""Credentials from a pinned command: a stand-in `vault` (Vault and OpenBao
are not installable here; the script prints what `vault kv get -field=...`
would) pinned by its sha256, used for real against Swift's SigV4 check.
The command runs when the profile opens (fetch-one's open, the console's
start); a refusal there is exit status 2 with the static reason."""
import hashlib
import os
import shutil

import pytest

from srcutil import fetch
from swiftenv import ACCESS_KEY, REGION, SECRET_KEY

VAULT = r"""#!/bin/sh
# stand-in for: vault kv get -field=FIELD PATH
[ "$VAULT_ADDR" = "https://vault.test:8200" ] || { echo "no VAULT_ADDR" >&2; exit 2; }
[ -n "$VAULT_TOKEN" ] || { echo "no token" >&2; exit 2; }
case "$3" in
-field=secret_access_key) printf '%s\n' "$LF_TEST_SECRET" ;;
-field=both) printf '%s\n%s\n' "$LF_TEST_ACCESS" "$LF_TEST_SECRET" ;;
*) echo "unknown field" >&2; exit 2 ;;
esac
"""


@pytest.fixture
def vault(home):
    """The script in a root-owned directory (0755), and its pin."""
    d = os.path.join(home, "bin")
    os.mkdir(d, 0o755)
    p = os.path.join(d, "vault")
    with open(p, "w") as f:
        f.write(VAULT)
    os.chmod(p, 0o755)
    return p, hashlib.sha256(VAULT.encode()).hexdigest()


def table(swift, path, pin, field, **cred_over):
    cred = {"command": [path, "kv", "get", "-field=" + field,
                        "secret/lockfile/s3"],
            "sha256": pin,
            "env": {"VAULT_ADDR": "https://vault.test:8200",
                    "VAULT_TOKEN": "s.stand-in-token",
                    "LF_TEST_SECRET": SECRET_KEY, "LF_TEST_ACCESS": ACCESS_KEY}}
    cred.update(cred_over)
    t = {"endpoint": swift.endpoint, "region": REGION, "bucket": "bkt",
         "url_style": "path", "credentials": cred}
    if field == "secret_access_key":
        t["access_key_id"] = ACCESS_KEY
    return t


def test_pinned_command(swift, home, vault):
    for field in ("secret_access_key", "both"):
        r = fetch("s3", table(swift, vault[0], vault[1], field), "plain.txt",
                  home)
        assert r["cause"] == "ok", r
        assert SECRET_KEY not in r["raw"]


def test_changed_binary_refused(swift, home, vault):
    path, pin = vault
    with open(path, "a") as f:
        f.write("# one more line\n")
    r = fetch("s3", table(swift, path, pin, "both"), "plain.txt", home)
    assert r["rc"] == 2 and "pinned sha256" in r["raw"], r


def test_replaced_by_symlink_to_other_binary(swift, home, vault):
    path, pin = vault
    os.unlink(path)
    os.symlink(shutil.which("true"), path)
    r = fetch("s3", table(swift, path, pin, "both"), "plain.txt", home)
    assert r["rc"] == 2 and "pinned sha256" in r["raw"], r


def test_writable_binary_refused(swift, home, vault):
    path, pin = vault
    os.chmod(path, 0o757)
    r = fetch("s3", table(swift, path, pin, "both"), "plain.txt", home)
    assert r["rc"] == 2 and "writable" in r["raw"], r


def test_failing_command(swift, home, vault):
    path, pin = vault
    t = table(swift, path, pin, "both")
    del t["credentials"]["env"]["VAULT_ADDR"]
    r = fetch("s3", t, "plain.txt", home)
    assert r["rc"] == 2, r
    assert "credential command exited with a non-zero status" in r["raw"], r


def test_output_never_in_detail(swift, home, vault):
    """A command whose output is a wrong secret: the server refuses it,
    and the audit detail holds neither the output nor the key id."""
    path, pin = vault
    t = table(swift, path, pin, "both")
    t["credentials"]["env"]["LF_TEST_SECRET"] = "Wr0ngSecretFromVault"
    r = fetch("s3", t, "plain.txt", home)
    assert r["cause"] == "bad-credentials", r
    assert "Wr0ngSecretFromVault" not in r["raw"]
    assert ACCESS_KEY not in r["raw"]


def test_not_executable_path(swift, home, vault):
    path, pin = vault
    t = table(swift, path + ".missing", pin, "both")
    r = fetch("s3", t, "plain.txt", home)
    assert r["rc"] == 2 and "cannot be opened" in r["raw"], r
