"""A loosening on update, in a real terminal: the old and the new text are
shown escaped, anything but the typed word refuses and changes no plugin,
the word accepts. The prompt runs the console's own terminal checks first
(src/host/terminal.c): the terminal here is a pseudo-terminal opened by the
console account itself (devpts gives its slave to the opener), the
command's controlling terminal, in a private /proc mounted hidepid (the
console account sees only its own processes, as the console's tests do), so
every condition holds. A pseudo-terminal opened by the agent account -- the
agent holds its master and types -- is refused before anything is shown.
(That type-ahead cannot accept is in test_store_https.py, where the command
can be held in a download while keys are typed.)"""
import os
import pwd

import pexpect

from storeenv import (CONSOLE_USER, finish_terminal as finish, out_text,
                      spawn_on_terminal)


def install_contains(w):
    r = w.st.run("install", "contains", trust=w.trust)
    assert r.returncode == 0, out_text(r)


def loosen(w):
    def edit(m):
        m["question"] = "Does the file contain the typed text, in any case?"
        m["inputs"][0]["max_bytes"] = 4096
    w.mk.add_version("contains", "1.1.0", edit=edit)
    w.mk.publish(4)


def spawn(w, *args, user=CONSOLE_USER):
    return spawn_on_terminal(w.st.argv(list(args), trust=w.trust), user)


def test_loosening_declined_changes_no_plugin(w):
    install_contains(w)
    loosen(w)
    plugins = w.st.lock()["plugins"]
    child = spawn(w, "update")
    child.expect("LOOSENS")
    child.expect(r"Type 'accept'")
    card = child.before.decode()
    assert "question  old: Does the file contain the typed text, byte for " \
        "byte?" in card
    assert "CHANGED   new: Does the file contain the typed text, in any " \
        "case?" in card
    assert "needle (text, at most 1024 bytes)" in card
    # the limit that changed is marked on the new side, and only it
    # (issue 32)
    assert "needle (text, at most 4096 bytes) CHANGED" in card
    assert "needle (text, at most 1024 bytes) CHANGED" not in card
    limits = [l for l in card.splitlines() if "limits    new:" in l]
    assert len(limits) == 1 and "CHANGED" not in limits[0], card
    assert "contains  1.0.0 -> 1.1.0" in card
    child.sendline("yes")
    child.expect("not accepted")
    assert finish(child) == 1
    # The verified index is recorded (its yanks count), no plugin changed.
    assert w.st.lock()["plugins"] == plugins
    assert w.st.entry("contains")["version"] == "1.0.0"
    assert os.path.exists(w.st.plugin_dir("contains", "1.0.0"))
    assert not os.path.exists(w.st.plugin_dir("contains", "1.1.0"))


def test_loosening_accepted_when_typed(w):
    install_contains(w)
    loosen(w)
    child = spawn(w, "update", "contains")
    child.expect(r"Type 'accept'")
    child.sendline("accept")
    child.expect("accepted")
    assert finish(child) == 0, child.before
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
    assert finish(child) == 1
    assert w.st.entry("contains")["version"] == "1.0.0"


def test_terminal_of_the_agent_is_refused(w):
    """The agent opened the terminal and holds its master: it answers the
    prompt if one comes. None comes, nothing is installed."""
    install_contains(w)
    loosen(w)
    plugins = w.st.lock()["plugins"]
    child = spawn(w, "update", user="agent")
    refusal = ("refusing this terminal: terminal.owner: the terminal "
               "belongs to uid %d, not the console account" %
               pwd.getpwnam("agent").pw_uid)
    seen = child.expect([refusal, r"Type 'accept'"])
    if seen == 1:
        child.sendline("accept")
    rc = finish(child)
    assert seen == 0, "the prompt was shown on the agent's terminal"
    assert rc == 1
    assert "LOOSENS" not in child.before.decode()
    assert w.st.lock()["plugins"] == plugins
    assert w.st.entry("contains")["version"] == "1.0.0"
    assert not os.path.exists(w.st.plugin_dir("contains", "1.1.0"))


def test_terminal_that_the_console_would_refuse_is_refused_too(w):
    """The terminal pexpect opens as root (the old test's terminal): the
    console refuses it (terminal.owner), so does the prompt."""
    install_contains(w)
    loosen(w)
    argv = w.st.argv(["update"], trust=w.trust)
    child = pexpect.spawn(argv[0], argv[1:], timeout=60, cwd="/")
    child.expect("refusing this terminal: terminal.owner")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert w.st.entry("contains")["version"] == "1.0.0"
