"""The console's unquantized answers do not read the plugin binaries.

file.plugins and a plan's check before the card used to hash every binary
again: how long that took depended on how much of the binary was in the
page cache, which a plugin run could change (MADV_PAGEOUT on its own
binary, refused since: tests/hostile pagecache-pair, rehash-timing), and
an agent timing the reply read it. Both now take the binary's digest from
the store's digest cache, keyed on the opened file's identity; the run
itself hashes in full, inside the quantum (docs/marketplace.md, "The digest
cache").

Residency is the observable: the binary is evicted from outside (root,
POSIX_FADV_DONTNEED) and must stay evicted through the listing and the
check before the card; the approved run reads it whole again."""
import json
import os
import threading

from lfenv import check_reply

import harness as H  # noqa: E402


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)        # dirty pages are not dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return H.resident_fraction(path)


def listed(env):
    req, line, _ = env.rpc("file.plugins")
    assert check_reply(req, line) == "result", line
    return [p["name"] for p in json.loads(line)["result"]["plugins"]]


def plan_async(env, params):
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", params)
    t = threading.Thread(target=go)
    t.start()
    return t, box


PLAN = {"profile": "docs", "key": "a.txt", "plugins": [{"name": "is-utf8"}]}


def start(env):
    env.add_local_profile("docs", files={"a.txt": b"plain text\n"})
    d = env.install_plugin("is-utf8")
    env.write_policy(answer_quantum_s=1)
    env.start()
    return os.path.join(d, "plugin")


def test_listing_and_check_do_not_read_the_binary(env):
    binary = start(env)
    assert listed(env) == ["is-utf8"]       # hashed once, recorded
    assert evict(binary) < 0.05, "the binary could not be evicted"

    assert listed(env) == ["is-utf8"]
    got = H.resident_fraction(binary)
    assert got < 0.05, "file.plugins read the binary (%.0f%% resident)" % (
        100 * got)

    t, box = plan_async(env, PLAN)
    env.wait_screen(r"Approve\?")
    got = H.resident_fraction(binary)
    assert got < 0.05, "the check before the card read the binary " \
        "(%.0f%% resident)" % (100 * got)
    env.type("y")
    t.join(60)
    assert check_reply(box["req"], box["line"]) == "result", box["line"]
    assert json.loads(box["line"])["result"]["answers"][0]["result"] == 1
    # The run hashed the whole binary again before it ran it.
    assert H.resident_fraction(binary) > 0.95


def test_binary_changed_in_place_is_not_taken_from_the_cache(env):
    """The cache is keyed on the file's identity: a rewrite in place (same
    inode, same size) moves its mtime and ctime, so the next look hashes it
    and refuses it."""
    binary = start(env)
    assert listed(env) == ["is-utf8"]
    with open(binary, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 0xff]))
    assert listed(env) == []
    req, line, _ = env.rpc("file.plan", PLAN)
    assert check_reply(req, line) == "error E_PLUGIN_TAMPERED", line
    assert "Approve?" not in env.screen()
