"""A full plan through the real socket, approved in the console's real
terminal; answers checked for the official plugins on real files; every
response gated on the closed list."""
import json
import os
import threading

from lfenv import assert_no_leak, check_reply


def plan_async(env, params, user="agent", timeout=60):
    box = {}

    def go():
        box["req"], box["line"], box["secs"] = env.rpc("file.plan", params,
                                                       user=user,
                                                       timeout=timeout)
    t = threading.Thread(target=go)
    t.start()
    return t, box


def approve(env, answer="y", count=1):
    env.wait_screen(r"Approve\?", count=count)
    env.type(answer)


def test_status_sources_plugins(basic):
    req, line, _ = basic.rpc("status")
    assert check_reply(req, line) == "result"
    res = json.loads(line)["result"]
    assert res["console"] == "up" and res["sandbox"] == "ok"
    assert res["answer_quantum_s"] == 1 and res["security_level"] == 0
    req, line, _ = basic.rpc("sources")
    assert check_reply(req, line) == "result"
    assert json.loads(line)["result"]["sources"] == [
        {"profile": "invoices", "production": False}]
    req, line, _ = basic.rpc("file.plugins")
    assert check_reply(req, line) == "result"
    names = sorted(p["name"] for p in json.loads(line)["result"]["plugins"])
    assert names == ["contains", "is-json", "is-pdf", "is-utf8"]


def test_plan_answers_official_plugins(basic):
    params = {"profile": "invoices", "key": "2024/a.pdf",
              "plugins": [{"name": "is-pdf"}, {"name": "is-utf8"},
                          {"name": "is-json"}]}
    t, box = plan_async(basic, params)
    screen = approve(basic) or basic.screen()
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"
    assert_no_leak(box["line"], extra=["a.pdf"])
    res = json.loads(box["line"])["result"]
    got = {a["plugin"]: a["result"] for a in res["answers"]}
    assert got == {"is-pdf": 1, "is-utf8": 1, "is-json": 0}
    assert "2024/a.pdf" in screen

    # The same handle, more plugins: a JSON question on the same bytes.
    t, box = plan_async(basic, {"handle": res["handle"],
                                "plugins": [{"name": "is-json"}]})
    approve(basic, count=2)
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"
    assert json.loads(box["line"])["result"]["answers"][0]["result"] == 0

    params = {"profile": "invoices", "key": "2024/b.json",
              "plugins": [{"name": "is-json"}, {"name": "is-pdf"}]}
    t, box = plan_async(basic, params)
    approve(basic, count=3)
    t.join()
    res = json.loads(box["line"])["result"]
    assert [a["result"] for a in res["answers"]] == [1, 0]

    rec = [r for r in basic.audit() if r.get("method") == "file.plan"]
    assert len(rec) == 3
    assert rec[0]["decision"] == "approved" and rec[0]["key"] == "2024/a.pdf"
    assert rec[0]["size"] == os.path.getsize(
        os.path.join(basic.srcdir, "invoices/2024/a.pdf"))
    assert {p["outcome"] for p in rec[0]["plugins"]} == {"answer-1",
                                                          "answer-0"}


def test_contains_with_typed_value(basic):
    params = {"profile": "invoices", "key": "2024/c.txt",
              "plugins": [{"name": "contains",
                           "inputs": {"needle": "${email}"}}]}
    t, box = plan_async(basic, params)
    approve(basic)
    basic.wait_screen(r"value for \$\{email\}")
    basic.type("alice@example.org")
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"
    res = json.loads(box["line"])["result"]
    assert res["answers"][0]["result"] == 1
    assert res["held_inputs"] == ["email"]
    # The value never reaches the audit, the screen or the response.
    assert "alice@example.org" not in box["line"]
    assert "alice@example.org" not in json.dumps(basic.audit())
    assert "alice@example.org" not in basic.screen()

    # Replayed on another file without typing it again; the card says so.
    params["key"] = "2024/b.json"
    t, box = plan_async(basic, params)
    s = basic.wait_screen(r"Approve\?", count=2)
    assert "replayed on 1 file" in s
    basic.type("y")
    t.join()
    assert json.loads(box["line"])["result"]["answers"][0]["result"] == 0


def test_denied_and_reason_not_forwarded(basic):
    params = {"profile": "invoices", "key": "2024/a.pdf",
              "plugins": [{"name": "is-pdf"}]}
    t, box = plan_async(basic, params)
    approve(basic, "n the reason is private")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"
    assert "private" not in box["line"]
    assert "private" not in json.dumps(basic.audit())
    assert basic.work_entries() == []


def test_a_terminal_opened_to_others_since_the_start_shows_no_card(basic):
    """The human types here (src/term/human.c): the console's terminal
    checks run again before each card. The pane opened to other accounts
    after the start (o+r: anyone could read the card and typed values)
    shows no card: E_APPROVAL_TIMEOUT, the reason on the screen, nothing
    fetched."""
    tty = basic.tmux("list-panes", "-F", "#{pane_tty}").stdout.decode(
    ).strip()
    mode = os.stat(tty).st_mode & 0o7777
    params = {"profile": "invoices", "key": "2024/a.pdf",
              "plugins": [{"name": "is-pdf"}]}
    os.chmod(tty, mode | 0o004)
    t, box = plan_async(basic, params)
    try:
        basic.wait_screen("refusing this terminal: terminal.mode: the "
                          "terminal is open to others")
    finally:
        os.chmod(tty, mode)
        if "Approve?" in basic.screen():
            basic.type("n")	# the old console asked: let it go
        t.join()
    assert "Approve?" not in basic.screen()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_TIMEOUT"
    assert basic.work_entries() == []
    # the terminal closed again: the next card is shown
    t, box = plan_async(basic, params)
    approve(basic)
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"


HANG_UP = r"""
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
time.sleep(float(sys.argv[3]))
s.close()
"""


def test_agent_hanging_up_withdraws_the_card(basic):
    """An agent that goes away while its card waits gets nothing fetched:
    the card is withdrawn, nothing lands in the workspace, the audit says so,
    and the console serves the next request."""
    from lfenv import as_user
    req = basic.request("file.plan", {"profile": "invoices", "key": "2024/a.pdf",
                                      "plugins": [{"name": "is-pdf"}]})
    p = as_user("agent", ["/usr/bin/python3", "-c", HANG_UP, basic.socket,
                          json.dumps(req), "1.5"])
    assert p.returncode == 0, p.stderr
    basic.wait_screen(r"the agent went away: plan withdrawn")
    assert basic.work_entries() == []
    rec = [r for r in basic.audit() if r.get("method") == "file.plan"]
    assert rec[-1]["decision"] == "withdrawn"
    assert "fetch_cause" not in rec[-1]
    req, line, _ = basic.rpc("status")
    assert check_reply(req, line) == "result"


def card_of(screen):
    """The last card on the screen."""
    return screen[screen.rfind("an agent asks"):]


def test_card_says_what_the_plan_reveals(basic):
    """The card states how many answers the plan reveals and how many the
    handle has left before and after it (max_plugins_per_handle is 6)."""
    t, box = plan_async(basic, {"profile": "invoices", "key": "2024/b.json",
                                "plugins": [{"name": "is-json"},
                                            {"name": "is-utf8"}]})
    s = basic.wait_screen(r"Approve\?")
    assert "this plan reveals 2 answers; the handle has 6 left (4 after)" \
        in card_of(s)
    basic.type("y")
    t.join()
    handle = json.loads(box["line"])["result"]["handle"]
    t, box = plan_async(basic, {"handle": handle,
                                "plugins": [{"name": "is-pdf"}]})
    s = basic.wait_screen(r"Approve\?", count=2)
    assert "this plan reveals 1 answer; the handle has 4 left (3 after)" \
        in card_of(s)
    basic.type("n")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"


def contains_plan(env):
    t, box = plan_async(env, {"profile": "invoices", "key": "2024/c.txt",
                              "plugins": [{"name": "contains", "inputs": {
                                  "needle": "${email}"}}]})
    approve(env)
    env.wait_screen(r"value for \$\{email\}")
    env.type("alice@example.org")
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"
    assert json.loads(box["line"])["result"]["answers"][0]["result"] == 1


def test_level0_shows_each_outcome_and_detail(basic):
    """Security level 0 ("clear results"): each plugin's precise outcome
    and its detail (fd 7: contains says where the first match is) on the
    console, escaped; never in the response."""
    contains_plan(basic)
    s = basic.wait_screen(r"\[1\] contains: answer-1")
    assert "[1] contains: answer-1  detail: first match at byte offset 9" in s


def test_level1_shows_no_outcome_nor_detail(env):
    """Level 1 (the agent may read the window): neither the outcome nor
    the detail reaches the console."""
    env.add_local_profile("invoices", prefix="2024/", files={
        "2024/c.txt": b"contact: alice@example.org\n"})
    env.install_plugin("contains")
    env.write_policy(security_level=1)
    env.start()
    contains_plan(env)
    env.wait_screen("answered")
    s = env.screen()
    assert "answer-1" not in s and "detail" not in s and "byte offset" not in s


def test_waiting_card_is_drawn_again(basic):
    """A card that waits is drawn again on ctrl-L and when the terminal is
    resized (what `lox attach` does through docker attach: a human who
    attaches sees the question, not a bare prompt); a line half typed
    before ctrl-L is dropped, and the decision typed after counts
    (docs/console.md)."""
    t, box = plan_async(basic, {"profile": "invoices", "key": "2024/a.pdf",
                                "plugins": [{"name": "is-pdf"}]})
    s = basic.wait_screen(r"Approve\?")
    cards, prompts = s.count("an agent asks"), s.count("Approve?")
    basic.tmux("send-keys", "-t", "lf", "-l", "y")
    basic.tmux("send-keys", "-t", "lf", "C-l")
    s = basic.wait_screen(r"an agent asks", count=cards + 1)
    assert '"2024/a.pdf"' in card_of(s), card_of(s)
    basic.wait_screen(r"Approve\?", count=prompts + 1)
    basic.tmux("resize-window", "-t", "lf", "-x", "150", "-y", "50")
    s = basic.wait_screen(r"an agent asks", count=cards + 2)
    assert '"2024/a.pdf"' in card_of(s), card_of(s)
    basic.wait_screen(r"Approve\?", count=prompts + 2)
    assert t.is_alive()     # the half-typed "y" approved nothing
    basic.type("y")
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"
    assert json.loads(box["line"])["result"]["answers"][0]["result"] == 1
