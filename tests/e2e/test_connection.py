"""One connection against the console's clock: a connection that never
pauses must not outlive the session or hold off a SIGTERM, and a request
already begun behind an answer keeps the full read allowance
(docs/protocol.md). Every answer is gated on the closed list."""
import json
import signal
import threading
import time

import pytest

from conftest import make_pdf
from lfenv import ConsoleEnv, as_user, check_reply

# As the agent: one connection, back-to-back status requests for up to
# SECS seconds; prints each answer line, then "END <seconds>".
BUSY_AGENT = r"""
import socket, sys, time
path, secs, gap = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(path)
t0 = time.monotonic(); n = 0; buf = b""
try:
    while time.monotonic() - t0 < secs:
        n += 1
        s.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"status"}\n' % n)
        while b"\n" not in buf:
            b = s.recv(65536)
            if not b:
                raise EOFError
            buf += b
        line, buf = buf.split(b"\n", 1)
        sys.stdout.write(line.decode() + "\n")
        time.sleep(gap)
except (OSError, EOFError):
    pass
sys.stdout.write("END %.2f\n" % (time.monotonic() - t0))
"""

# As the agent: one request and the first bytes of a second in one write,
# the rest of the second after DELAY seconds; prints what came back.
SPLIT_AGENT = r"""
import socket, sys, time
path, delay = sys.argv[1], float(sys.argv[2])
r2 = b'{"jsonrpc":"2.0","id":2,"method":"status"}\n'
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(path)
s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\n' + r2[:10])
time.sleep(delay)
try:
    s.sendall(r2[10:])
except OSError:
    pass
out = b""
try:
    while out.count(b"\n") < 2:
        b = s.recv(65536)
        if not b:
            break
        out += b
except OSError:
    pass
sys.stdout.write(out.decode())
"""

STATUS = {"jsonrpc": "2.0", "id": 1, "method": "status"}


@pytest.fixture
def env():
    e = ConsoleEnv()
    yield e
    e.cleanup()


def start(env, **policy):
    env.add_local_profile("invoices", prefix="2024/",
                          files={"2024/a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    env.write_policy(answer_quantum_s=1, **policy)
    env.start()


def busy_agent(env, secs, gap, box):
    r = as_user("agent", ["/usr/bin/python3", "-c", BUSY_AGENT, env.socket,
                          str(secs), str(gap)], timeout=secs + 30)
    box["out"] = r.stdout.decode()


def answers(env, out):
    """The answer lines (each gated on the closed list) and the END time."""
    lines = out.splitlines()
    assert lines and lines[-1].startswith("END "), out
    for i, l in enumerate(lines[:-1]):
        req = dict(STATUS, id=i + 1)
        assert check_reply(req, l + "\n", env.build) == "result", l
    return lines[:-1], float(lines[-1].split()[1])


def test_busy_connection_does_not_outlive_the_session(env):
    start(env, session_timeout_s=10, idle_timeout_s=10)
    t0 = time.monotonic()
    box = {}
    th = threading.Thread(target=busy_agent, args=(env, 30, 0.05, box))
    th.start()
    env.wait_exit(timeout=25)
    gone = time.monotonic() - t0
    th.join()
    got, end = answers(env, box["out"])
    assert len(got) > 20            # it really was served back to back
    assert gone < 16, "console lived %.1fs past a 10 s session" % gone
    assert end < 17                 # and the agent's connection ended with it
    assert "session timeout" in env.screen()
    assert env.work_entries() == []


def test_sigterm_ends_a_busy_connection(env):
    start(env)
    box = {}
    th = threading.Thread(target=busy_agent, args=(env, 30, 0.05, box))
    th.start()
    time.sleep(2)
    t_sig = time.monotonic()
    env.signal(signal.SIGTERM)
    env.wait_exit(timeout=15)
    took = time.monotonic() - t_sig
    th.join()
    got, end = answers(env, box["out"])
    assert len(got) > 5
    assert took < 3, "SIGTERM took %.1fs against a busy connection" % took
    assert end < 10
    assert env.work_entries() == []


def test_request_begun_behind_an_answer_is_served(env):
    start(env)
    r = as_user("agent", ["/usr/bin/python3", "-c", SPLIT_AGENT, env.socket,
                          "0.4"], timeout=40)
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 2, r.stdout
    for i, l in enumerate(lines):
        assert check_reply(dict(STATUS, id=i + 1), l + "\n",
                           env.build) == "result"
        assert json.loads(l)["id"] == i + 1
