"""A full disk under the audit: the console cannot record a request, so it
stops (right after that request's answer when it was a refusal given at
once), and stops as a shutdown does: the files it held are deleted and the
typed values wiped before it exits (70), not left for the next start."""
import os
import subprocess

import pytest

from conftest import make_pdf
from lfenv import CONSOLE_USER, ConsoleEnv, check_reply, uid_of
from test_plan import approve, plan_async


@pytest.fixture
def env():
    e = ConsoleEnv()
    state = os.path.join(e.home, ".local/state/lockfile")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700,uid=%d"
                    % uid_of(CONSOLE_USER), "tmpfs", state], check=True)
    e.state = state
    yield e
    e.stop()
    subprocess.run(["umount", "-l", state], check=False)
    e.cleanup()


def fill(path):
    """Fill the file system under path, then the last page of the audit."""
    subprocess.run(["dd", "if=/dev/zero", "of=" + os.path.join(path, "filler"),
                    "bs=4k"], stderr=subprocess.DEVNULL, check=False)
    subprocess.run(["dd", "if=/dev/zero", "of=" + os.path.join(path,
                    "audit.log"), "bs=1", "oflag=append", "conv=notrunc"],
                   stderr=subprocess.DEVNULL, check=False)


def held_files(env):
    return [os.path.join(d, f) for d, _, fs in os.walk(env.work_dir())
            for f in fs]


def test_audit_failure_deletes_held_files(env):
    env.add_local_profile("invoices", prefix="2024/",
                          files={"2024/a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    env.write_policy(max_workspace_bytes=1 << 20)
    env.start()
    t, box = plan_async(env, {"profile": "invoices", "key": "2024/a.pdf",
                              "plugins": [{"name": "is-pdf"}]})
    approve(env)
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"
    assert held_files(env), "the plan should hold its file"
    fill(env.state)
    # Any request now needs an audit line that cannot be written. A
    # refusal given at once has its record written off the serving thread
    # (docs/console.md, "The audit's durability"): its answer may leave,
    # then the writer's failure stops the console at once.
    out, _ = env.rpc_raw(b'{"jsonrpc":"2.0","id":2,"method":"file.plan",'
                         b'"params":{"profile":"nope","key":"x",'
                         b'"plugins":[{"name":"is-pdf"}]}}\n', gate=False)
    assert out == b"" or b"E_UNKNOWN_PROFILE" in out, out
    env.wait_exit(timeout=15)
    assert held_files(env) == []
    assert "the audit cannot be written" in env.screen()
