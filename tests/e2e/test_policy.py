"""`lockfile policy approve` and `policy show` in a real terminal, as the
console account: an edit takes effect only once the human has seen every
changed byte and typed `approve`; nothing in the edit can hide a change
(a long file, a long line) or fake a line on the screen."""
import os

import pytest

from lfenv import CONSOLE_USER, ConsoleEnv, as_user, uid_of

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
    text = BASE + "# Zo\u00eb-M\u00fcller \u202eevil\n"
    env.write_policy(text=text)
    pw_env = {"PATH": "/usr/bin:/bin", "HOME": env.home, "LANG": "C.UTF-8"}
    r = as_user(CONSOLE_USER, [env.binary, "policy", "--home", env.home,
                               "show"], env=pw_env, check=True)
    out = r.stdout.decode()
    assert "# Zo\u00eb-M\u00fcller \\u{202E}evil" in out, out
    assert "\u202e" not in out
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
