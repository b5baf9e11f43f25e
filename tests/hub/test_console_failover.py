"""A console whose hub instance goes away mid-request (docs/hub.md,
"Operating several hubs"): behind a balancer, the instance that took its
ticket dies before answering (502), the one holding its long-poll dies
(502, or the connection hangs up); the console asks again, signed afresh,
takes a 409 to its second post as its own ticket, gets the decision and
runs once."""
import time

import hubwire as hw

import pytest

from consolehub import HubConsole, err, pending  # noqa: E402
from test_console_hub import PDF_PLAN, answers, gated  # noqa: E402


@pytest.fixture
def hostile():
    w = HubConsole(real=False)
    w.start()
    yield w
    w.cleanup()


def flaky(w, post_fail, poll_fail):
    """The double's ticket and decision routes, failing as given: the
    first post is stored and answered post_fail (then 409: it is there);
    the first poll that has a decision answers poll_fail (None: hang up)."""
    state = {"posts": 0, "polls": 0}

    def take(method, path, headers, body):
        state["posts"] += 1
        if state["posts"] == 1:
            w.tickets.append(body)
            return post_fail, b"bad gateway\n"
        return 409, b"a ticket with this id is there\n"

    def serve(method, path, headers, body):
        d = w.decisions.get(path.split("/")[3])
        if d is None:
            time.sleep(0.5)
            return 204, b""
        state["polls"] += 1
        if state["polls"] == 1:
            return poll_fail, b"bad gateway\n"
        return 200, hw.enc_declist([d])

    def serve_list(method, path, headers, body):
        # the console's poll since the quorum (issue 29): the list, from
        # its cursor on, failing the same way on its first answer
        if w.decisions.get(path.split("/")[3]) is None:
            time.sleep(0.5)
            return 204, b""
        state["polls"] += 1
        if state["polls"] == 1:
            return poll_fail, b"bad gateway\n"
        return w._serve_decisions(method, path, headers, body)

    w.fake.routes["POST /v1/tickets"] = take
    w.fake.routes[r"GET /v1/tickets/t_[0-9a-f]{32}/decision"] = serve
    w.fake.routes[
        r"GET /v1/tickets/t_[0-9a-f]{32}/decisions/after/[0-9]+"] = serve_list
    return state


@pytest.mark.parametrize("poll_fail", [502, 504, None])
def test_instance_lost_mid_post_and_poll(hostile, poll_fail):
    w = hostile
    state = flaky(w, 502, poll_fail)
    req, doc, _ = w.plan(PDF_PLAN)
    plan, tid = pending(gated(req, doc))
    w.decisions[tid] = w.decision(tid)
    req, doc, _ = w.run(plan)
    assert "result" in gated(req, doc), doc
    assert answers(gated(req, doc)) == {"is-pdf": 1}, doc
    assert state["posts"] == 2 and state["polls"] >= 2, state
    # It ran once: the plan is spent, and the audit holds one run of it.
    req, doc, _ = w.run_once(plan)
    assert err(gated(req, doc)) is not None, doc
    audit = w.env.audit()
    runs = [a for a in audit if a.get("method") == "file.run" and
            a.get("plan") == plan and a.get("outcome") == "answered"]
    assert len(runs) == 1, audit
    posted = [a for a in audit if a.get("method") == "hub.ticket" and
              a.get("plan") == plan]
    assert [a.get("outcome") for a in posted] == ["posted"], posted
