"""The workspace and the session (SPEC section 6 steps 4 and timers; seed
"Data at rest"): the cap is never exceeded with several agents asking at
once, at most 64 files are held, a handle's TTL deletes its file, nothing
stays in work/ after release, expiry, SIGTERM, or a kill -9 followed by a
restart (swept at start); the idle and session timeouts end the console and
delete what it held."""
import json
import os
import signal
import threading
import time

from lfenv import check_reply, chown_tree, uid_of


def plan_params(key, plugins=("is-utf8",)):
    return {"profile": "docs", "key": key,
            "plugins": [{"name": p} for p in plugins]}


def prompt_waiting(env):
    """The last line on the visible pane is an unanswered approval prompt."""
    r = env.tmux("capture-pane", "-p", "-t", "lf", check=False)
    lines = [l for l in r.stdout.decode("utf-8", "replace").splitlines()
             if l.strip()]
    return bool(lines) and lines[-1].startswith("Approve?") and \
        lines[-1].endswith("deny:")


def wait_prompt(env, timeout=20):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if prompt_waiting(env):
            return
        time.sleep(0.02)
    raise AssertionError("no approval prompt:\n" + env.screen()[-2000:])


def quick_plan(env, key, user="agent", answer="y"):
    """One plan, approved as soon as its prompt shows (visible pane only:
    cheap when the scrollback is long)."""
    box = {}

    def go():
        if user == "agent":
            box["req"], box["line"], _ = env.rpc("file.plan", plan_params(key))
        else:
            req = env.request("file.plan", plan_params(key))
            out, _ = env.rpc_as_peer((json.dumps(req) + "\n").encode(), user)
            box["req"], box["line"] = req, out.decode()
    t = threading.Thread(target=go)
    t.start()
    wait_prompt(env)
    env.type(answer)
    t.join()
    assert check_reply(box["req"], box["line"])
    return json.loads(box["line"])


def work_bytes(env):
    total = 0
    for dirpath, _, files in os.walk(env.work_dir()):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except FileNotFoundError:
                pass
    return total


def test_cap_under_concurrent_agents(env):
    # Each 400 KiB file holds its class, 512 KiB (the pad file): two fit,
    # the third's reservation (256 KiB) is too small.
    cap = 1280 * 1024
    part = 400 * 1024
    env.add_local_profile("docs", files={
        "a.txt": b"a" * part, "b.txt": b"b" * part, "c.txt": b"c" * part})
    env.install_plugin("is-utf8")
    env.write_policy(max_workspace_bytes=cap,
                     allowed_uids=[uid_of("lf-allowed")])
    env.start()
    peak = [0]
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            peak[0] = max(peak[0], work_bytes(env))
            time.sleep(0.005)
    w = threading.Thread(target=watch)
    w.start()
    boxes = []
    threads = []
    for key, user in (("a.txt", "agent"), ("b.txt", "lf-allowed"),
                      ("c.txt", "agent")):
        box = {"key": key, "user": user}

        def go(box=box, key=key, user=user):
            req = env.request("file.plan", plan_params(key))
            data = (json.dumps(req) + "\n").encode()
            if user == "agent":
                out, _ = env.rpc_raw(data, timeout=60)
            else:
                out, _ = env.rpc_as_peer(data, user, timeout=60)
            box["line"] = out.decode()
        t = threading.Thread(target=go)
        t.start()
        threads.append(t)
        boxes.append(box)
    for i in range(3):
        env.wait_screen(r"Approve\?", count=i + 1)
        env.type("y")
    for t in threads:
        t.join()
    stop.set()
    w.join()
    results = [json.loads(b["line"]) for b in boxes]
    ok = [r for r in results if "result" in r]
    failed = [r for r in results if "error" in r]
    assert len(ok) == 2 and len(failed) == 1, results
    assert failed[0]["error"]["message"] == "E_FETCH_FAILED"
    assert peak[0] <= cap, "workspace held %d bytes, cap %d" % (peak[0], cap)
    assert peak[0] >= 2 * part          # the watcher saw the held files
    causes = [r.get("fetch_cause") for r in env.audit()
              if r.get("method") == "file.plan"]
    assert sorted(causes) == ["ok", "ok", "too-big"]
    # a release gives the cap back; handles are bound to the agent that
    # planned, so the release comes from that agent
    owner = [b["user"] for b, r in zip(boxes, results) if "result" in r][0]
    handle = ok[0]["result"]["handle"]
    req = env.request("file.release", {"handle": handle})
    data = (json.dumps(req) + "\n").encode()
    if owner == "agent":
        out, _ = env.rpc_raw(data, timeout=60)
    else:
        out, _ = env.rpc_as_peer(data, owner, timeout=60)
    assert check_reply(req, out.decode()) == "result"
    key = [b["key"] for b, r in zip(boxes, results) if "error" in r][0]
    res = quick_plan(env, key)
    assert res["result"]["answers"][0]["result"] == 1
    assert len(env.work_entries()) == 2
    assert work_bytes(env) == 2 * 512 * 1024 <= cap


def test_64_files_then_sigterm(env):
    files = {"f%02d.txt" % i: b"x%d\n" % i for i in range(65)}
    env.add_local_profile("docs", files=files)
    env.install_plugin("is-utf8")
    env.write_policy(handle_ttl_s=3600)
    env.start()
    handles = []
    for i in range(64):
        res = quick_plan(env, "f%02d.txt" % i)
        assert "result" in res, (i, res)
        handles.append(res["result"]["handle"])
    assert len(set(handles)) == 64
    assert len(env.work_entries()) == 64
    res = quick_plan(env, "f64.txt")
    assert res["error"]["message"] == "E_FETCH_FAILED"
    rec = [r for r in env.audit() if r.get("method") == "file.plan"][-1]
    assert rec["fetch_cause"] == "workspace-full"
    assert len(env.work_entries()) == 64
    req, line, _ = env.rpc("file.release", {"handle": handles[0]})
    assert check_reply(req, line) == "result"
    res = quick_plan(env, "f64.txt")
    assert "result" in res
    assert len(env.work_entries()) == 64
    # SIGTERM: the session ends and every fetched file is deleted
    env.signal(signal.SIGTERM)
    env.wait_exit()
    assert env.work_entries() == []
    assert "deleting fetched files" in env.screen()


def test_release_and_ttl_expiry(env):
    env.add_local_profile("docs", files={"a.txt": b"hello\n",
                                         "b.txt": b"world\n"})
    env.install_plugin("is-utf8")
    env.write_policy(handle_ttl_s=10)
    env.start()
    h1 = quick_plan(env, "a.txt")["result"]["handle"]
    t_fetch = time.monotonic()
    h2 = quick_plan(env, "b.txt")["result"]["handle"]
    assert len(env.work_entries()) == 2
    req, line, _ = env.rpc("file.release", {"handle": h2})
    assert check_reply(req, line) == "result"
    assert len(env.work_entries()) == 1
    # within the TTL the handle still answers
    res = quick_plan(env, "a.txt")
    assert "result" in res
    req = {"handle": h1, "plugins": [{"name": "is-utf8"}]}
    # past the TTL: deleted by the console on its own (no request needed)
    while time.monotonic() - t_fetch < 10.6:
        time.sleep(0.1)
    deadline = time.monotonic() + 3
    while len(env.work_entries()) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(env.work_entries()) == 1     # the later plan's file remains
    r, line, _ = env.rpc("file.plan", req)
    assert check_reply(r, line) == "error E_HANDLE_EXPIRED"
    r, line, _ = env.rpc("file.release", {"handle": h1})
    assert check_reply(r, line) == "error E_HANDLE_EXPIRED"


def test_kill9_then_restart_sweeps(env):
    env.add_local_profile("docs", files={"a.txt": b"hello\n"})
    env.install_plugin("is-utf8")
    env.write_policy()
    env.start()
    quick_plan(env, "a.txt")
    assert len(env.work_entries()) == 1
    # a stray entry of any kind is swept too
    stray = os.path.join(env.work_dir(), "stray")
    os.makedirs(os.path.join(stray, "sub"))
    with open(os.path.join(stray, "sub", "data"), "wb") as f:
        f.write(b"left behind")
    os.symlink("/etc/passwd", os.path.join(stray, "link"))
    chown_tree(stray, "lockfile")       # as a console of before left it
    env.signal(signal.SIGKILL)
    env.wait_exit()
    assert len(env.work_entries()) == 2     # nothing could clean up
    env.stop()
    env.start(wait=False)
    env.wait_screen("lockfile console .*: socket")
    assert env.work_entries() == []
    deadline = time.time() + 10
    while True:
        try:
            req, line, _ = env.rpc("status")
            break
        except RuntimeError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)
    assert check_reply(req, line) == "result"


def test_idle_timeout_ends_session(env):
    env.add_local_profile("docs", files={"a.txt": b"alice@example.org\n"})
    env.install_plugin("is-utf8")
    env.install_plugin("contains")
    env.write_policy(idle_timeout_s=10)
    env.start()
    req, line, _ = env.rpc("status")
    assert json.loads(line)["result"]["idle_timeout_s"] == 10
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", {
            "profile": "docs", "key": "a.txt",
            "plugins": [{"name": "contains", "inputs": {"needle": "${e}"}}]})
    t = threading.Thread(target=go)
    t.start()
    wait_prompt(env)
    env.type("y")
    env.wait_screen(r"value for \$\{e\}")
    env.type("alice@example.org")
    t.join()
    assert json.loads(box["line"])["result"]["answers"][0]["result"] == 1
    t_last = time.monotonic()
    assert len(env.work_entries()) == 1
    env.wait_exit(timeout=20)
    took = time.monotonic() - t_last
    assert 8.5 < took < 13, took
    assert "idle timeout" in env.screen()
    assert env.work_entries() == []
    end = [r for r in env.audit() if r.get("method") == "session.end"]
    assert end and end[-1]["outcome"] == "idle timeout"
    assert not os.path.exists(env.socket)


def test_session_timeout_ends_session(env):
    env.add_local_profile("docs", files={"a.txt": b"hello\n"})
    env.install_plugin("is-utf8")
    env.write_policy(session_timeout_s=10, idle_timeout_s=600)
    env.start()
    t0 = time.monotonic()
    quick_plan(env, "a.txt")
    assert len(env.work_entries()) == 1
    lefts = []
    # requests keep it from idling; the session ends anyway
    while env.console_alive() and time.monotonic() - t0 < 20:
        try:
            req, line, _ = env.rpc("status", timeout=5)
            lefts.append(json.loads(line)["result"]["session_left_s"])
        except (RuntimeError, ValueError, KeyError):
            pass
        time.sleep(1)
    env.wait_exit(timeout=5)
    took = time.monotonic() - t0
    assert 8.5 < took < 14, took
    assert lefts and lefts[0] <= 10 and lefts == sorted(lefts, reverse=True)
    assert "session timeout" in env.screen()
    assert env.work_entries() == []
    end = [r for r in env.audit() if r.get("method") == "session.end"]
    assert end and end[-1]["outcome"] == "session timeout"


def test_sigterm_while_waiting_for_the_human(env):
    """A SIGTERM (docker stop sends one, then SIGKILL after 10 s) must end
    the session at once and delete the held files, not wait for the human's
    decision or the approval timeout."""
    env.add_local_profile("docs", files={"a.txt": b"hello\n",
                                         "b.txt": b"world\n"})
    env.install_plugin("is-utf8")
    env.write_policy(approval_timeout_s=60)
    env.start()
    quick_plan(env, "a.txt")
    assert len(env.work_entries()) == 1
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", plan_params("b.txt"),
                                             timeout=90)
    t = threading.Thread(target=go)
    t.start()
    wait_prompt(env)
    t0 = time.monotonic()
    env.signal(signal.SIGTERM)
    env.wait_exit(timeout=70)
    took = time.monotonic() - t0
    t.join()
    assert took < 3, "SIGTERM waited %.1f s for the human" % took
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_TIMEOUT"
    assert env.work_entries() == []
    rec = [r for r in env.audit() if r.get("method") == "file.plan"][-1]
    assert rec["decision"] == "timeout" and "fetch_cause" not in rec


def test_handle_expires_while_the_card_waits(env):
    """A plan by handle approved after the handle's TTL ended runs nothing:
    the TTL fixed at fetch bounds the file's life, not the human's pace."""
    env.add_local_profile("docs", files={"a.txt": b"hello\n"})
    env.install_plugin("is-utf8")
    env.write_policy(handle_ttl_s=10)
    env.start()
    h = quick_plan(env, "a.txt")["result"]["handle"]
    t_fetch = time.monotonic()
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", {
            "handle": h, "plugins": [{"name": "is-utf8"}]}, timeout=60)
    t = threading.Thread(target=go)
    t.start()
    wait_prompt(env)
    while time.monotonic() - t_fetch < 10.5:
        time.sleep(0.05)
    env.type("y")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_HANDLE_EXPIRED"
    assert env.work_entries() == []
    rec = [r for r in env.audit() if r.get("method") == "file.plan"][-1]
    assert rec["decision"] == "approved" and "plugins" not in rec


def test_files_expire_while_a_card_waits(env):
    """The TTL deletes a file on time even while the console waits for the
    human on another plan's card (the deleter does not wait for the serving
    thread)."""
    env.add_local_profile("docs", files={"a.txt": b"hello\n",
                                         "b.txt": b"world\n"})
    env.install_plugin("is-utf8")
    env.write_policy(handle_ttl_s=10, approval_timeout_s=60)
    env.start()
    quick_plan(env, "a.txt")
    t_fetch = time.monotonic()
    assert len(env.work_entries()) == 1
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", plan_params("b.txt"),
                                             timeout=60)
    t = threading.Thread(target=go)
    t.start()
    wait_prompt(env)
    while env.work_entries() and time.monotonic() - t_fetch < 15:
        time.sleep(0.05)
    gone_after = time.monotonic() - t_fetch
    assert prompt_waiting(env)          # the card still waits
    env.type("n")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"
    assert gone_after < 11.5, "deleted %.1f s after the fetch" % gone_after


def test_files_expire_while_a_fetch_waits(env):
    """The same while the console is inside a fetch: an S3 server that
    sends a few bytes and then nothing holds the fetch for its stall
    timeout (14 s); a file fetched before expires at its 10 s TTL, not
    when the stalled fetch gives up."""
    from srcutil import Misbehaving
    env.add_local_profile("docs", files={"a.txt": b"hello\n"})
    env.install_plugin("is-utf8")
    with Misbehaving("stall") as stall:
        rel = ".config/lockfile/credentials/s3"
        env._write_home(rel, b"test:tester\ntesting\n", 0o600)
        env.add_profile("slow", {
            "source": "s3", "endpoint": stall.endpoint,
            "region": "us-east-1", "bucket": "bkt", "url_style": "path",
            "credentials": {"file": "~/" + rel}, "stall_timeout_s": 14})
        env.write_policy(handle_ttl_s=10)
        env.start()
        quick_plan(env, "a.txt")
        t_fetch = time.monotonic()
        first = env.work_entries()
        assert len(first) == 1
        box = {}

        def go():
            box["req"], box["line"], _ = env.rpc("file.plan", {
                "profile": "slow", "key": "x.txt",
                "plugins": [{"name": "is-utf8"}]}, timeout=60)
        t = threading.Thread(target=go)
        t.start()
        wait_prompt(env)
        env.type("y")
        while first[0] in env.work_entries() and \
                time.monotonic() - t_fetch < 20:
            time.sleep(0.05)
        gone_after = time.monotonic() - t_fetch
        still_fetching = t.is_alive()
        t.join()
    assert check_reply(box["req"], box["line"]) == "error E_FETCH_FAILED"
    assert still_fetching, "the fetch ended first (%.1f s)" % gone_after
    assert gone_after < 11.5, "deleted %.1f s after the fetch" % gone_after


def entry_bytes(env):
    """Bytes held per fetch directory (its data and its pad file)."""
    out = {}
    for e in env.work_entries():
        d = os.path.join(env.work_dir(), e)
        out[e] = sum(os.lstat(os.path.join(d, f)).st_size
                     for f in os.listdir(d))
    return out


def test_footprint_is_the_size_class(env):
    """Each fetch's footprint is its size class, the next power of two
    (docs/security.md, "Side channels"): a 300 KiB and a 480 KiB file both
    hold 512 KiB of written bytes in the workspace, the file the plugin
    reads is still the file, and the class counts against the cap."""
    env.add_local_profile("docs", files={
        "small.txt": b"s" * (300 * 1024), "large.txt": b"l" * (480 * 1024),
        "tiny.txt": b"t" * 10})
    env.install_plugin("is-utf8")
    env.write_policy(max_workspace_bytes=4 * 1024 * 1024)
    env.start()
    for key in ("small.txt", "large.txt", "tiny.txt"):
        res = quick_plan(env, key)
        assert res["result"]["answers"][0]["result"] == 1, res
    sizes = sorted(entry_bytes(env).values())
    assert sizes == [64 * 1024, 512 * 1024, 512 * 1024], sizes
    datas = sorted(os.lstat(os.path.join(env.work_dir(), e, "data")).st_size
                   for e in env.work_entries())
    assert datas == [10, 300 * 1024, 480 * 1024], datas


def test_ttl_ending_during_a_run_leaves_the_run_its_bytes(env):
    """The deleter frees an expired file a step at a time by shrinking it
    (docs/console.md, "Fetched files"), but never while a run reads it: a
    TTL that ends while the first plugin sleeps leaves the second one
    every byte. The file is valid UTF-8 but for its last byte, so is-utf8
    answers 0 on the whole file and 1 on any shorter one (the empty file
    too)."""
    from test_quantum import build_slow_plugin
    data = b"A" * (32 << 20) + b"\xff"
    env.add_local_profile("docs", files={"tail.bin": data})
    env.install_plugin("is-utf8")
    build_slow_plugin(env, 4000, "slow-yes")
    env.write_policy(handle_ttl_s=10, answer_quantum_s=1)
    env.start()
    first = quick_plan(env, "tail.bin")["result"]     # the fetch: TTL runs
    t_fetched = time.monotonic()                       # at most 1 s late
    assert [a["result"] for a in first["answers"]] == [0], first
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", {
            "handle": first["handle"],
            "plugins": [{"name": "slow-yes"}, {"name": "is-utf8"}]},
            timeout=60)
    t = threading.Thread(target=go)
    t.start()
    wait_prompt(env)
    while time.monotonic() - t_fetched < 7:
        time.sleep(0.05)
    env.type("y")           # the TTL ends while slow-yes sleeps 4 s
    t.join()
    assert time.monotonic() - t_fetched > 11
    assert check_reply(box["req"], box["line"]) == "result"
    res = json.loads(box["line"])["result"]
    assert [a["result"] for a in res["answers"]] == [1, 0], res
    # and the file still goes, names and bytes
    deadline = time.monotonic() + 10
    while env.work_entries() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert env.work_entries() == []
