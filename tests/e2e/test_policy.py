"""`lockfile policy approve` and `policy show` in a real terminal, as the
console account: an edit takes effect only once the human has seen every
changed byte and typed `approve`; nothing in the edit can hide a change
(a long file, a long line) or fake a line on the screen. `approve` asks
only on a terminal the console itself would take (src/term/human.c): not
one an agent opened and holds the master of, not one behind a relay."""
import os
import pwd
import shlex
import shutil
import tempfile

import pytest

from lfenv import CONSOLE_USER, ConsoleEnv, as_user, uid_of
from lftest import setpriv
from storeenv import finish_terminal, sanitizer_env, spawn_on_terminal

BASE = 'security_level = 1\nanswer_quantum_s = 1\n'


@pytest.fixture
def env():
    e = ConsoleEnv()
    yield e
    e.cleanup()


def approved_text(env):
    with open(os.path.join(env.home, ".local/state/lockfile/"
                           "policy.approved.toml")) as f:
        return f.read()


def approve(env, old, new, answer="approve"):
    env.write_policy(text=old)
    env.write_policy(approved=False, text=new)
    env.run_in_pane(["policy", "--home", env.home, "approve"])
    screen = env.wait_screen(r"Type 'approve' to make this")
    env.type(answer)
    env.wait_exit(timeout=20)
    return screen


def test_an_edit_takes_effect_once_typed(env):
    new = BASE.replace("security_level = 1", "security_level = 0")
    screen = approve(env, BASE, new)
    assert "- security_level = 1" in screen
    assert "+ security_level = 0" in screen
    assert "  answer_quantum_s = 1" in screen
    assert approved_text(env) == new


def test_anything_but_approve_leaves_it(env):
    new = BASE + "allowed_uids = [1002]\n"
    approve(env, BASE, new, answer="yes")
    assert "not approved" in env.screen()
    assert approved_text(env) == BASE


def test_a_long_policy_still_shows_every_change(env):
    # More lines than the diff table takes: both versions in full, never
    # an empty card.
    new = "security_level = 0\nallowed_uids = [1002]\n" + "#\n" * 2100
    screen = approve(env, BASE, new)
    assert "too many lines for a diff" in screen
    assert "+ allowed_uids = [1002]" in screen
    assert "+ security_level = 0" in screen
    assert "- security_level = 1" in screen
    assert approved_text(env) == new


def test_a_change_at_the_end_of_a_long_line_is_shown(env):
    old = BASE + "allowed_uids = [" + " " * 4200 + "1000]\n"
    new = BASE + "allowed_uids = [" + " " * 4200 + "1002]\n"
    screen = approve(env, old, new, answer="no")
    joined = screen.replace("\n", "")
    assert "1000]" in joined and "1002]" in joined
    assert approved_text(env) == old


def test_show_never_fakes_a_line(env):
    text = BASE + "# a note \\x0aallowed_uids = [1002]\n"
    env.write_policy(text=text)
    r = as_user(CONSOLE_USER, [env.binary, "policy", "--home", env.home,
                               "show"], check=True)
    out = r.stdout.decode()
    lines = out.splitlines()
    assert not any(l.strip().startswith("allowed_uids") for l in lines), out
    assert any("a note" in l and "allowed_uids" in l for l in lines), out
    assert all(0x20 <= ord(ch) < 0x7f for ch in out.replace("\n", "")), out


def test_show_renders_as_every_screen(env):
    # docs/rendering.md: under a UTF-8 locale a name is shown in its own
    # script and a deceptive character as a visible escape; without one,
    # both as escapes (the previous binary escaped every non-ASCII byte)
    text = BASE + "# Zo\u00eb-M\u00fcller \u202eevil\n# p\u0430ypal\n"
    env.write_policy(text=text)
    pw_env = {"PATH": "/usr/bin:/bin", "HOME": env.home, "LANG": "C.UTF-8"}
    r = as_user(CONSOLE_USER, [env.binary, "policy", "--home", env.home,
                               "show"], env=pw_env, check=True)
    out = r.stdout.decode()
    assert "# Zo\u00eb-M\u00fcller \\u{202E}evil" in out, out
    assert "\u202e" not in out
    # the key check of every screen: one warning line under a line that
    # is not what it looks like, none under ordinary text
    assert ('   # p\u0430ypal\n   WARNING look-alike characters, mixed '
            'scripts (Latin + Cyrillic): "# p\\u{0430}ypal"\n') in out, out
    assert out.count("WARNING") == 1, out
    r = as_user(CONSOLE_USER, [env.binary, "policy", "--home", env.home,
                               "show"], check=True)
    out = r.stdout.decode()
    assert "# Zo\\u{00EB}-M\\u{00FC}ller \\u{202E}evil" in out, out


def test_a_work_dir_that_is_not_a_string_is_refused(env):
    # `work_dir = 0` crashed every reader of the policy (a NULL string
    # expanded: fuzz_policy found it); now a static refusal with its line
    env.write_policy(text=BASE)
    env.write_policy(approved=False, text=BASE + "work_dir = 0\n")
    r = as_user(CONSOLE_USER, [env.binary, "policy", "--home", env.home,
                               "approve"], input=b"approve\n")
    err = (r.stdout + r.stderr).decode()
    assert r.returncode not in (0, -11, 139) and r.returncode > 0, (
        r.returncode, err)
    assert "work_dir must be an absolute path" in err, err
    assert approved_text(env) == BASE


# Issue 25, item 4: the terminals the console and the loosening prompt
# refuse, refused here too (the loosening tty test's way: a pseudo-terminal
# opened by one account, the command's controlling terminal, /proc
# hidepid=invisible in a mount namespace of its own).
LOOSER = BASE.replace("security_level = 1", "security_level = 0") + \
    "max_answers_per_key = 1000000\nallowed_uids = [1002]\n"


def approve_on_terminal(env, user, wrapper=None):
    env.write_policy(text=BASE)
    env.write_policy(approved=False, text=LOOSER)
    cmd = ["env", "-i", "PATH=/usr/bin:/bin"] + [
        "%s=%s" % kv for kv in sanitizer_env().items()] + [
        env.binary, "policy", "--home", env.home, "approve"]
    if wrapper:
        # the wrapper stays the command's parent (no exec of the last
        # command), as a relay would
        cmd = [wrapper, "-c", shlex.join(cmd) + "; exit $?"]
    return spawn_on_terminal(setpriv(CONSOLE_USER) + cmd, user)


def typed_approve(child, refusal):
    """Wait for the refusal or the prompt; answer a prompt as the agent
    would. 0: refused before the prompt."""
    seen = child.expect([refusal, r"Type 'approve'"])
    if seen == 1:
        child.sendline("approve")
    return seen


def test_the_console_accounts_own_terminal_asks(env):
    child = approve_on_terminal(env, CONSOLE_USER)
    child.expect(r"Type 'approve'")
    child.sendline("approve")
    child.expect("approved")
    assert finish_terminal(child) == 0
    assert approved_text(env) == LOOSER


def test_a_terminal_the_agent_holds_is_refused(env):
    """The agent opened the terminal and holds its master: it would type
    `approve` for a looser policy. No prompt comes, nothing changes."""
    child = approve_on_terminal(env, "agent")
    seen = typed_approve(child, "refusing this terminal: terminal.owner: "
                         "the terminal belongs to uid %d, not the console "
                         "account" % pwd.getpwnam("agent").pw_uid)
    rc = finish_terminal(child)
    assert seen == 0, "the prompt was shown on the agent's terminal"
    assert rc != 0
    assert "policy change" not in child.before.decode()
    assert approved_text(env) == BASE


def test_a_relay_in_the_ancestry_is_refused(env):
    """A relay by the default list (socat) between the terminal and the
    command, run as the console account (so visible under hidepid)."""
    d = tempfile.mkdtemp(prefix="lf-relay-")
    try:
        os.chmod(d, 0o755)
        shutil.copy("/bin/sh", os.path.join(d, "socat"))
        child = approve_on_terminal(env, CONSOLE_USER,
                                    wrapper=os.path.join(d, "socat"))
        seen = typed_approve(child, r"refusing this terminal: terminal.relay: "
                             r"pid [0-9]+ \(socat\) relays the terminal")
        rc = finish_terminal(child)
    finally:
        shutil.rmtree(d)
    assert seen == 0, "the prompt was shown behind a relay"
    assert rc != 0
    assert approved_text(env) == BASE


def test_the_console_uid_as_an_agent_is_refused(env):
    """allowed_uids may not name the console account's own uid (issue 25,
    5): a policy error at approve, before anything is asked."""
    env.write_policy(text=BASE)
    env.write_policy(approved=False, text=BASE + "allowed_uids = [%d]\n"
                     % uid_of(CONSOLE_USER))
    r = as_user(CONSOLE_USER, [env.binary, "policy", "--home", env.home,
                               "approve"], input=b"approve\n")
    err = (r.stdout + r.stderr).decode()
    assert r.returncode > 0, (r.returncode, err)
    assert "the console account's own uid" in err, err
    assert approved_text(env) == BASE
