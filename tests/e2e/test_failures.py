"""The console's own failures never leave a fetched file behind (docs/
console.md, "Fetched files"; lib/log.h).

Library code returns errors the console turns into refusals. A console
started with only a few descriptors above what it holds when idle runs out
of them somewhere in a plan (the parser worker's socket, the sandbox's
pipes, the plugin child's descriptor layout): each time the plan is refused
on the closed list, the file fetched for it is deleted, and the console
stays up. Before this, the sandbox's pipe2() failure was fatal(): a bare
_exit(70) that left the fetched file in work/ until the next start (and a
failed sandbox set-up was answered as the plugin's error). What stays fatal
(broken invariants) runs the one registered cleanup (tests/unit/
test_log.c)."""
import os
import signal
import threading
import time

from lfenv import check_reply

FILES = 1


def prepare(env):
    env.add_local_profile("docs", files={"f%d.txt" % i: b"hello\n"
                                         for i in range(FILES)})
    env.install_plugin("is-utf8")
    env.write_policy(max_plugins_per_handle=6)


def plan(env, key):
    """One plan by key, approved if its card shows; (request, line)."""
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc(
            "file.plan", {"profile": "docs", "key": key,
                          "plugins": [{"name": "is-utf8"}]}, timeout=60)
    n = env.screen().count("Approve?")
    t = threading.Thread(target=go)
    t.start()
    while t.is_alive() and env.screen().count("Approve?") <= n:
        time.sleep(0.05)
    if env.screen().count("Approve?") > n:
        env.type("y")
    t.join()
    return box["req"], box["line"]


def test_out_of_descriptors_is_a_refusal(env):
    prepare(env)
    env.start()
    # counted once start-up is over (the banner follows the confinement
    # and the deleter): the socket appears earlier, while start-up still
    # opens descriptors, and a count taken then left too few spare for
    # the confinement itself (start-up refused, once in a loaded run)
    env.wait_screen(r"lockfile console \S+: socket")
    idle = len(os.listdir("/proc/%d/fd" % env.console_pid))
    env.stop()
    verdicts = {}
    for spare in range(4, 14, 2):
        env.start(wrapper=["prlimit", "--nofile=%d:%d" % (idle + spare,
                                                          idle + spare)])
        req, line = plan(env, "f0.txt")
        assert line, "no answer with %d spare: %s" % (spare,
                                                      env.screen()[-600:])
        verdicts[spare] = check_reply(req, line)
        assert env.console_alive(), "died with %d spare" % spare
        assert verdicts[spare] != "result", verdicts
        assert env.work_entries() == [], (spare, verdicts)
        env.stop()
    assert "error E_SANDBOX_UNAVAILABLE" in verdicts.values(), verdicts
    # with its descriptors back, the same console answers
    env.start()
    req, line = plan(env, "f0.txt")
    assert check_reply(req, line) == "result"
    assert len(env.work_entries()) == 1
    env.signal(signal.SIGTERM)
    env.wait_exit()
    assert env.work_entries() == []
