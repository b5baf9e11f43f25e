"""The console's quorum (issue 29, docs/hub.md "The check chain"): a
profile's `approvals = N` needs N distinct pinned, confirmed approvers'
decisions that hold before the plan runs; a deny from any of them ends it;
one approver counts once however often a hub serves its decision;
decisions that do not hold do not count. The real console against the
hostile hub double (fakehub.py via consolehub.py), which holds the hub key
and both approvers' device keys and serves each ticket's DECISIONLIST as
the test scripts it. About 30 s."""
import json
import time

import pytest

from consolehub import HubConsole, err, pending  # noqa: E402 (sys.path)
import hubwire as hw  # noqa: E402
from lfenv import check_reply  # noqa: E402

PDF_PLAN = {"profile": "invoices", "key": "2024/a.pdf",
            "plugins": [{"name": "is-pdf"}]}
SOLO_PLAN = dict(PDF_PLAN, profile="solo")
EMAIL_PLAN = {"profile": "invoices", "key": "2024/c.txt",
              "plugins": [{"name": "is-pdf"},
                          {"name": "contains", "inputs": {"needle": "${email}"}}]}


@pytest.fixture(scope="module")
def w():
    w = HubConsole(real=False, bob=True, approvals=2)
    w.start()
    yield w
    w.cleanup()


def gated(req, doc):
    r = check_reply(req, json.dumps(doc) + "\n")
    assert r == "result" or r.startswith("error"), r
    return doc


def plan_on(w, plan=PDF_PLAN):
    req, doc, _ = w.plan(plan)
    return pending(gated(req, doc))


def polled_after(w, tid, n):
    """The console asked the hub for the decisions after the first n."""
    want = "/v1/tickets/%s/decisions/after/%d" % (tid, n)
    return any(r[0] == "GET" and r[1] == want for r in w.fake.requests)


def runs(w):
    """The runs the console audited (a plan's record with its plugins)."""
    return [a for a in w.env.audit() if "plugins" in a and
            a.get("decision") == "approved"]


def causes(w, before):
    return [a.get("cause") for a in w.env.audit()[before:]
            if a.get("method") == "hub.decision"]


def still_pending(w, plan, tid, until_after, tries=8):
    """file.run answers pending (or a refusal's E_APPROVAL_TIMEOUT) and
    runs nothing, until the console has asked for the decisions after
    the first until_after (so it has checked them)."""
    ran = len(runs(w))
    for _ in range(tries):
        req, doc, _ = w.run_once(plan)
        gated(req, doc)
        if "error" in doc:
            assert err(doc) == "E_APPROVAL_TIMEOUT", doc
        else:
            assert pending(doc) == (plan, tid)
        if polled_after(w, tid, until_after):
            break
    assert polled_after(w, tid, until_after)
    assert len(runs(w)) == ran


def answered(w, plan):
    req, doc, _ = w.run_once(plan)
    for _ in range(6):
        if doc.get("result", {}).get("status") != "pending":
            break
        req, doc, _ = w.run_once(plan)
    return gated(req, doc)


def test_one_approval_is_not_enough(w):
    """Quorum 2: alice's approval alone leaves the plan pending; bob's
    then runs it, once."""
    plan, tid = plan_on(w)
    w.decisions[tid] = [w.decision(tid)]
    still_pending(w, plan, tid, 1)
    ran = len(runs(w))
    w.decisions[tid].append(w.decision(tid, device=w.device2,
                                       approver="bob"))
    doc = answered(w, plan)
    assert doc["result"]["answers"][0]["result"] == 1, doc
    assert len(runs(w)) == ran + 1
    req, doc, _ = w.run_once(plan)
    assert err(gated(req, doc)) == "E_APPROVAL_TIMEOUT"
    assert len(runs(w)) == ran + 1


def test_one_approver_twice_counts_once(w):
    """Two decisions from alice's device (a hostile hub keeps both; lockhub
    refuses the second, tests/hub/test_lockhub.py): the second is refused
    and the plan stays pending; bob's then runs it."""
    plan, tid = plan_on(w)
    before = len(w.env.audit())
    w.decisions[tid] = [w.decision(tid), w.decision(tid)]
    still_pending(w, plan, tid, 2)
    assert "this approver's decision counted already" in causes(w, before)
    w.decisions[tid].append(w.decision(tid, device=w.device2,
                                       approver="bob"))
    doc = answered(w, plan)
    assert doc["result"]["answers"][0]["result"] == 1, doc


def test_same_decision_served_again(w):
    """A hub that serves alice's one decision at every cursor: counted
    once, then refused each time; never run."""
    plan, tid = plan_on(w)
    before = len(w.env.audit())
    w.decisions[tid] = w.decision(tid)      # bytes: whatever the cursor
    still_pending(w, plan, tid, 1)
    for _ in range(2):
        req, doc, _ = w.run_once(plan)
        assert err(gated(req, doc)) in (None, "E_APPROVAL_TIMEOUT"), doc
        assert doc.get("result", {}).get("status") in (None, "pending")
    assert "this approver's decision counted already" in causes(w, before)
    assert not any(a.get("plan") == plan and "plugins" in a
                   for a in w.env.audit())


def test_approve_then_deny(w):
    """One approval and a deny from the other approver: denied, nothing
    run."""
    plan, tid = plan_on(w)
    ran = len(runs(w))
    w.decisions[tid] = [w.decision(tid),
                        w.decision(tid, verdict=hw.DENY, device=w.device2,
                                   approver="bob")]
    doc = answered(w, plan)
    assert err(doc) == "E_APPROVAL_DENIED", doc
    assert len(runs(w)) == ran


def test_refused_decisions_do_not_count(w):
    """An unpinned device's approval and a forged countersignature do not
    count toward the quorum (refused, audited as today)."""
    plan, tid = plan_on(w)
    before = len(w.env.audit())
    w.decisions[tid] = [w.decision(tid), w.decision(tid, device=hw.Key()),
                        w.decision(tid, device=w.device2, approver="bob",
                                   hub_key=hw.Key())]
    still_pending(w, plan, tid, 3)
    got = causes(w, before)
    assert "not signed by a pinned, confirmed approver" in got
    assert "not countersigned by a pinned hub key" in got
    w.decisions[tid].append(w.decision(tid, device=w.device2,
                                       approver="bob"))
    doc = answered(w, plan)
    assert doc["result"]["answers"][0]["result"] == 1, doc


def test_values_must_agree(w):
    """With placeholders, every approval's values are the first's: bob's
    other value does not count; his same value then runs it with it."""
    req, doc, _ = w.plan(EMAIL_PLAN)
    plan, tid = pending(gated(req, doc))
    before = len(w.env.audit())
    w.decisions[tid] = [
        w.decision(tid, values=[("email", b"nobody@nowhere")]),
        w.decision(tid, values=[("email", b"someone@else")],
                   device=w.device2, approver="bob")]
    still_pending(w, plan, tid, 2)
    assert "its values are not the first approval's" in causes(w, before)
    # bob cannot post twice to lockhub; a hostile hub may: a second one
    # from him with the same values counts (he was not counted yet)
    w.decisions[tid].append(w.decision(
        tid, values=[("email", b"nobody@nowhere")], device=w.device2,
        approver="bob"))
    doc = answered(w, plan)
    assert {a["plugin"]: a["result"] for a in doc["result"]["answers"]} == \
        {"is-pdf": 0, "contains": 0}, doc


def test_quorum_of_one_unchanged(w):
    """A profile without approvals (solo): the first decision that holds
    runs the plan, as before."""
    plan, tid = plan_on(w, SOLO_PLAN)
    w.decisions[tid] = [w.decision(tid)]
    doc = answered(w, plan)
    assert doc["result"]["answers"][0]["result"] == 1, doc
    plan, tid = plan_on(w, SOLO_PLAN)
    w.decisions[tid] = [w.decision(tid, verdict=hw.DENY, device=w.device2,
                                   approver="bob")]
    assert err(answered(w, plan)) == "E_APPROVAL_DENIED"
