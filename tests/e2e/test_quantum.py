"""The answer quantum (SPEC section 6 step 6): a plan's answer leaves at the
next multiple of answer_quantum counted from the human's approval, for fast
and slow plugins alike (a slow one shows only one more multiple); a fetch
failure after the approval is held the same way; file.release, refusals
included, is held from its request. Times are taken on CLOCK_MONOTONIC,
which the test and the agent's client share: from the moment the approval's
Enter is sent to the moment the answer is received."""
import json
import os
import subprocess
import threading
import time

import pytest

from conftest import make_pdf
from lfenv import as_user, check_reply

SLACK = 0.35        # scheduling, tmux and process start-up on a noisy box

SLOW_PLUGIN = r"""
/* A test plugin: sleeps SLEEP_MS, then answers 1. Static, libc only. */
#include <time.h>
#include <unistd.h>
int main(void) {
	struct timespec ts = { SLEEP_MS / 1000, (SLEEP_MS % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
	return write(1, "1\n", 2) == 2 ? 0 : 2;
}
"""

CLIENT = r"""
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
sent = time.monotonic()
s.sendall(sys.stdin.buffer.read())
out = b""
while not out.endswith(b"\n"):
    b = s.recv(65536)
    if not b:
        break
    out += b
got = time.monotonic()
sys.stderr.write("%.6f %.6f\n" % (sent, got))
sys.stdout.buffer.write(out)
"""


def build_slow_plugin(env, sleep_ms, name):
    d = os.path.join(env.base, "slow-%d" % sleep_ms)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "slow.c")
    with open(src, "w") as f:
        f.write(SLOW_PLUGIN)
    exe = os.path.join(d, name)
    subprocess.run(["cc", "-O2", "-static-pie", "-DSLEEP_MS=%d" % sleep_ms,
                    "-o", exe, src], check=True)

    def edit(m):
        m["name"] = name
        m["question"] = "Test plugin: does it answer after %d ms?" % sleep_ms
        m["one"] = "It answered after sleeping."
        m["zero"] = "Never."
        m["limits"]["wall_s"] = 10
    env.install_plugin("is-pdf", binary=exe, manifest_edit=edit)


def timed_rpc(env, method, params, box):
    """As agent; box gets the line and the client's (sent, received)."""
    req = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    r = as_user("agent", ["/usr/bin/python3", "-c", CLIENT, env.socket],
                input=(json.dumps(req) + "\n").encode(), timeout=60)
    assert r.returncode == 0, r.stderr
    sent, got = (float(x) for x in r.stderr.decode().split())
    box.update(req=req, line=r.stdout.decode(), sent=sent, got=got)
    assert check_reply(req, box["line"])


def approve_timed(env, params, count):
    """Start a plan, approve it; seconds from the approval's Enter to the
    answer's arrival, and the answer line."""
    box = {}
    t = threading.Thread(target=timed_rpc, args=(env, "file.plan", params,
                                                 box))
    t.start()
    env.wait_screen(r"Approve\? 'y'", count=count)
    env.type("y", enter=False)
    t_key = time.monotonic()
    env.tmux("send-keys", "-t", "lf", "Enter")
    t.join()
    return box["got"] - t_key, box["line"]


def near(delta, k, q):
    return k * q - 0.05 <= delta <= k * q + SLACK


@pytest.fixture
def qenv(env):
    env.add_local_profile("docs", files={"a.pdf": make_pdf(),
                                         "b.txt": b"hello\n"})
    env.install_plugin("is-pdf")
    build_slow_plugin(env, 1300, "slow-yes")
    return env


@pytest.mark.parametrize("q", [1, 2])
def test_plan_answers_on_the_quantum(qenv, q):
    env = qenv
    env.write_policy(answer_quantum_s=q, max_plugins_per_handle=8)
    env.start()
    n = 0
    results = []
    for plugins, k in (([{"name": "is-pdf"}], 1),
                       ([{"name": "slow-yes"}], 2 if q == 1 else 1),
                       ([{"name": "is-pdf"}, {"name": "is-pdf"}], 1)):
        for _ in range(2):
            n += 1
            delta, line = approve_timed(env, {"profile": "docs",
                                              "key": "a.pdf",
                                              "plugins": plugins}, n)
            res = json.loads(line)["result"]
            assert all(a["result"] == 1 for a in res["answers"])
            results.append((plugins[0]["name"], k, delta))
    for name, k, delta in results:
        assert near(delta, k, q), (name, k, q, results)
    # the slow plugin really ran long: its wall time is in the audit
    walls = [p["wall_ms"] for r in env.audit() if r.get("method") == "file.plan"
             for p in r.get("plugins", []) if p["plugin"] == "slow-yes"]
    assert walls and min(walls) >= 1300


def test_fetch_failure_and_release_on_the_quantum(qenv):
    env = qenv
    env.write_policy(answer_quantum_s=1)
    env.start()
    deltas = []
    for i in range(2):
        delta, line = approve_timed(env, {"profile": "docs",
                                          "key": "missing-%d.pdf" % i,
                                          "plugins": [{"name": "is-pdf"}]},
                                    i + 1)
        assert json.loads(line)["error"]["message"] == "E_FETCH_FAILED"
        deltas.append(("fetch", delta))
    delta, line = approve_timed(env, {"profile": "docs", "key": "a.pdf",
                                      "plugins": [{"name": "is-pdf"}]}, 3)
    handle = json.loads(line)["result"]["handle"]
    # release: held from the request, for a real file and for a refusal
    for h, want in ((handle, "result"), (handle, "E_HANDLE_EXPIRED"),
                    ("f_" + "0" * 32, "E_HANDLE_EXPIRED")):
        box = {}
        timed_rpc(env, "file.release", {"handle": h}, box)
        doc = json.loads(box["line"])
        assert ("result" if "result" in doc else doc["error"]["message"]) \
            == want
        deltas.append(("release " + want, box["got"] - box["sent"]))
    for what, d in deltas:
        assert near(d, 1, 1), deltas
    # refusals before the approval are not held: they reveal nothing
    box = {}
    timed_rpc(env, "file.plan", {"profile": "docs", "key": "../x",
                                 "plugins": [{"name": "is-pdf"}]}, box)
    assert box["got"] - box["sent"] < 0.5
