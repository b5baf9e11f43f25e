"""The build-time ALLOWED_UIDS (`meson setup -Dallowed_uids=...`, docs/
policy.md): a lockfile built with lf-allowed's uid lets that account connect
with neither the clients group, nor --allowed-uids, nor the policy's
allowed_uids; anyone else is still refused, and doctor counts the uid. The
plain build refuses the same peer (the control).

The second tree is build-uids/ beside the plain build (only the
executables the console needs; ccache makes a rebuild cheap), configured
again when the uid of lf-allowed differs from the one it was built with."""
import json
import os
import subprocess

import pytest

from conftest import make_pdf
from lfenv import BUILD, CONSOLE_USER, ROOT, ConsoleEnv, as_user, uid_of

BUILD_UIDS = os.path.join(os.path.dirname(os.path.abspath(BUILD)),
                          "build-uids")


def build_with(uids):
    if not os.path.exists(os.path.join(BUILD_UIDS, "build.ninja")):
        subprocess.run(["meson", "setup", BUILD_UIDS, "-Dallowed_uids=" + uids,
                        "-Dtests=false", "-Dbench=false", "-Dplugins=false"],
                       check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    else:
        subprocess.run(["meson", "configure", BUILD_UIDS,
                        "-Dallowed_uids=" + uids], check=True,
                       stdout=subprocess.DEVNULL)
    # The console is lockfile-console, which lockfile forwards `console`
    # to, and it starts the parser worker beside it (docs/hacking.md).
    subprocess.run(["ninja", "-C", BUILD_UIDS, "lockfile", "lockfile-console",
                    "lockfile-parse-worker"], check=True,
                   stdout=subprocess.DEVNULL, timeout=1800)
    return BUILD_UIDS


@pytest.fixture
def env():
    e = ConsoleEnv()
    e.add_local_profile("docs", files={"a.pdf": make_pdf()})
    e.install_plugin("is-pdf")
    e.write_policy()
    yield e
    e.cleanup()


def status_request():
    return (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "status"})
            + "\n").encode()


def refused(out):
    return json.loads(out)["error"]["message"] == "E_PEER_REFUSED"


def test_build_time_allowed_uids(env):
    allowed = uid_of("lf-allowed")
    tree = build_with(str(allowed))
    # The control: the plain build refuses lf-allowed.
    env.start()
    out, _ = env.rpc_as_peer(status_request(), "lf-allowed")
    assert refused(out), out
    env.stop()
    env.start(build=tree)
    out, _ = env.rpc_as_peer(status_request(), "lf-allowed")
    assert json.loads(out)["result"]["console"] == "up", out
    out, _ = env.rpc_as_peer(status_request(), "lf-outsider")
    assert refused(out), out
    r = as_user(CONSOLE_USER, ["setsid", os.path.join(tree, "lockfile"),
                               "doctor", "--json", "--home", env.home,
                               "--socket", env.socket])
    checks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}
    assert checks["agents"]["detail"].startswith("1 allowed uid"), \
        checks["agents"]
