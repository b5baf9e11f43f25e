"""A loosening on update, in a real terminal (pexpect's pty, the command's
controlling terminal): the old and the new text are shown escaped,
anything but the typed word refuses and writes nothing, the word accepts.
(That type-ahead cannot accept is in test_store_https.py, where the
command can be held in a download while keys are typed.)"""
import os

import pexpect

from storeenv import out_text


def install_contains(w):
    r = w.st.run("install", "contains", trust=w.trust)
    assert r.returncode == 0, out_text(r)


def loosen(w):
    def edit(m):
        m["question"] = "Does the file contain the typed text, in any case?"
        m["inputs"][0]["max_bytes"] = 4096
    w.mk.add_version("contains", "1.1.0", edit=edit)
    w.mk.publish(4)


def spawn(w, *args):
    argv = w.st.argv(list(args), trust=w.trust)
    return pexpect.spawn(argv[0], argv[1:], timeout=60, cwd="/",
                         dimensions=(60, 200))


def test_loosening_declined_writes_nothing(w):
    install_contains(w)
    loosen(w)
    before = w.st.snapshot()
    child = spawn(w, "update")
    child.expect("LOOSENS")
    child.expect(r"Type 'accept'")
    card = child.before.decode()
    assert "question  old: Does the file contain the typed text, byte for " \
        "byte?" in card
    assert "CHANGED   new: Does the file contain the typed text, in any " \
        "case?" in card
    assert "needle (text, at most 1024 bytes)" in card
    assert "needle (text, at most 4096 bytes)" in card
    assert "contains  1.0.0 -> 1.1.0" in card
    child.sendline("yes")
    child.expect("not accepted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert w.st.snapshot() == before
    assert w.st.entry("contains")["version"] == "1.0.0"


def test_loosening_accepted_when_typed(w):
    install_contains(w)
    loosen(w)
    child = spawn(w, "update", "contains")
    child.expect(r"Type 'accept'")
    child.sendline("accept")
    child.expect("accepted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    e = w.st.entry("contains")
    assert e["version"] == "1.1.0" and e["yanked"] is False
    assert e["manifest_sha256"] == w.mk.index()["plugins"]["contains"][
        "1.1.0"]["manifest_sha256"]
    assert not os.path.exists(w.st.plugin_dir("contains", "1.0.0"))
    assert w.st.lock()["indexes"][0]["version"] == 4


def test_install_of_a_loosening_version_asks_too(w):
    install_contains(w)
    loosen(w)
    child = spawn(w, "install", "contains@1.1.0")
    child.expect(r"Type 'accept'")
    child.sendline("")
    child.expect("not accepted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert w.st.entry("contains")["version"] == "1.0.0"
