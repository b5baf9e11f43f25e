"""`lockfile plugin install|update|verify|list|remove` against signed test
marketplaces (marketplace/build.py over the real official plugins, signed
with the throw-away test Sigstore), run as the console account. Every
refusal also proves that no plugin changed: every file below the store and
every plugin record are byte-identical afterwards, and plugins.lock gained
at most the record of an index the command accepted (the marketplace's
current, signed one)."""
import fcntl
import json
import os
import shutil
import time

import pytest

from storeenv import (Market, Signer, assert_clean_exit, chown_tree,
                      make_base, out_text, sha256_file)


def install_all(w):
    for p in ("is-pdf", "is-utf8", "is-json", "contains", "is-encrypted",
              "has-active-content", "archive-within-limits",
              "pdf-signatures-intact"):
        assert_clean_exit(w.st.run("install", p, trust=w.trust), 0)


def refused(w, *args, want=None, code=1, markets=None):
    """Run a command that must be refused and must change no plugin: the
    store is as it was but for plugins.lock's index records, each of which
    may only become its marketplace's current index (markets: name ->
    Market, default the official one)."""
    markets = markets or {"official": w.mk}
    before = w.st.snapshot()
    r = w.st.run(*args, trust=w.trust)
    assert_clean_exit(r, code)
    if want is not None:
        assert want in out_text(r), out_text(r)
    w.st.assert_no_plugin_changed(before, markets)
    return r


# ---- the happy paths ------------------------------------------------------

def test_install_records_what_the_index_signed(w):
    install_all(w)
    lock = w.st.lock()
    idx = w.mk.index()
    assert lock["indexes"] == [{
        "marketplace": "official", "version": 3,
        "sha256": sha256_file(w.mk.path("index.json"))}]
    assert sorted(e["name"] for e in lock["plugins"]) == [
        "archive-within-limits", "contains", "has-active-content",
        "is-encrypted", "is-json", "is-pdf", "is-utf8",
        "pdf-signatures-intact"]
    for e in lock["plugins"]:
        src = os.path.join(w.signer.plugins, "plugins", e["name"])
        ie = idx["plugins"][e["name"]]["1.0.0"]
        assert e["version"] == "1.0.0"
        assert e["binary_sha256"] == sha256_file(os.path.join(src, e["name"]))
        assert e["binary_sha256"] == ie["binary_sha256"]
        assert e["manifest_sha256"] == ie["manifest_sha256"]
        assert (e["marketplace"], e["official"], e["yanked"]) == (
            "official", True, False)
        d = w.st.plugin_dir(e["name"])
        assert sorted(os.listdir(d)) == [
            "manifest.json", "manifest.json.sigstore.json", "plugin",
            "plugin.sigstore.json"]
        assert sha256_file(os.path.join(d, "plugin")) == e["binary_sha256"]
        assert sha256_file(os.path.join(d, "manifest.json")) == \
            e["manifest_sha256"]
        assert os.stat(os.path.join(d, "plugin")).st_mode & 0o777 == 0o500
    # No staging directory is left behind.
    assert not [n for n in os.listdir(w.st.store) if n.startswith(".")]


def test_list_verify_remove(w):
    install_all(w)
    r = w.st.run("list", trust=w.trust)
    assert_clean_exit(r, 0)
    text = out_text(r)
    for p in ("is-pdf", "is-utf8", "is-json", "contains", "is-encrypted",
              "has-active-content", "archive-within-limits",
              "pdf-signatures-intact"):
        assert p in text
    assert "official (official)  ok" in text and "index of official: " \
        "version 3" in text
    r = w.st.run("verify", trust=w.trust)
    assert_clean_exit(r, 0)
    assert out_text(r).count("ok ") == 8
    r = w.st.run("remove", "is-json", trust=w.trust)
    assert_clean_exit(r, 0)
    assert w.st.entry("is-json") is None
    assert not os.path.exists(os.path.join(w.st.store, "plugins/is-json"))
    assert w.st.entry("is-pdf") is not None
    refused(w, "remove", "is-json", want="not installed")


def test_already_installed_writes_nothing(w):
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    before = w.st.snapshot()
    r = w.st.run("install", "is-pdf", trust=w.trust)
    assert_clean_exit(r, 0)
    assert "already installed" in out_text(r)
    assert w.st.snapshot() == before


def test_latest_version_not_yanked_is_chosen(w):
    w.mk.add_version("is-utf8", "1.0.1")
    w.mk.add_version("is-utf8", "1.2.0")
    w.mk.add_version("is-utf8", "1.10.0")
    w.mk.publish(4, yanked=["is-utf8@1.10.0"])
    assert_clean_exit(w.st.run("install", "is-utf8", trust=w.trust), 0)
    assert w.st.entry("is-utf8")["version"] == "1.2.0"
    assert_clean_exit(w.st.run("remove", "is-utf8", trust=w.trust), 0)
    refused(w, "install", "is-utf8@1.10.0", want="yanked")
    refused(w, "install", "is-utf8@9.9.9", want="no such version")
    assert_clean_exit(w.st.run("install", "is-utf8@1.0.1", trust=w.trust), 0)
    assert w.st.entry("is-utf8")["version"] == "1.0.1"


def test_update_tightening_needs_no_prompt(w):
    install_all(w)

    def tighter(m):
        m["limits"]["cpu_s"] -= 1
        m["limits"]["memory_bytes"] //= 2
    w.mk.add_version("is-utf8", "1.0.1", edit=tighter)
    w.mk.publish(4)
    r = w.st.run("update", trust=w.trust)
    assert_clean_exit(r, 0)
    # the name, then the versions in order (issue 32)
    assert "updated is-utf8 1.0.0 -> 1.0.1 from" in out_text(r), out_text(r)
    e = w.st.entry("is-utf8")
    assert e["version"] == "1.0.1"
    assert e["manifest_sha256"] == sha256_file(os.path.join(
        w.mk.plugin_dir("is-utf8", "1.0.1"), "manifest.json"))
    assert w.st.lock()["indexes"][0]["version"] == 4
    assert not os.path.exists(w.st.plugin_dir("is-utf8", "1.0.0"))
    assert os.path.exists(w.st.plugin_dir("is-utf8", "1.0.1"))
    # Nothing newer: update records nothing new and changes nothing.
    before = w.st.snapshot()
    assert_clean_exit(w.st.run("update", trust=w.trust), 0)
    assert w.st.snapshot() == before


LOOSENINGS = [
    ("is-pdf", "a changed question",
     lambda m: m.update(question="Is the file a PDF with an invoice?")),
    ("is-pdf", "a changed meaning of 1",
     lambda m: m.update(one="The file is a PDF and mentions money.")),
    ("is-pdf", "a changed meaning of 0",
     lambda m: m.update(zero="Anything else.")),
    ("contains", "a wider input",
     lambda m: m["inputs"][0].update(max_bytes=2048)),
    ("contains", "another input kind",
     lambda m: m["inputs"][0].update(kind="email")),
    ("is-json", "a larger cpu limit",
     lambda m: m["limits"].update(cpu_s=m["limits"]["cpu_s"] + 1)),
    ("is-json", "a larger memory limit",
     lambda m: m["limits"].update(memory_bytes=m["limits"]["memory_bytes"]
                                  * 2)),
    ("is-json", "a longer wall limit",
     lambda m: m["limits"].update(wall_s=m["limits"]["wall_s"] + 1)),
]


@pytest.mark.parametrize("plugin,desc,edit", LOOSENINGS,
                         ids=[x[1] for x in LOOSENINGS])
def test_loosening_refused_without_a_terminal(w, plugin, desc, edit):
    install_all(w)
    w.mk.add_version(plugin, "1.1.0", edit=edit)
    w.mk.publish(4)
    r = refused(w, "update", want="loosens")
    assert "terminal" in out_text(r)
    r = refused(w, "update", plugin, want="loosens")
    r = refused(w, "install", plugin + "@1.1.0", want="loosens")
    assert w.st.entry(plugin)["version"] == "1.0.0"


# ---- what the index says ----------------------------------------------------

def test_yanked_upstream_recorded_by_verify(w):
    install_all(w)
    w.mk.publish(4, yanked=["is-pdf@1.0.0"])
    r = w.st.run("verify", trust=w.trust)
    assert_clean_exit(r, 0)
    assert "yanked is-pdf 1.0.0" in out_text(r)
    assert w.st.entry("is-pdf")["yanked"] is True
    assert w.st.entry("is-utf8")["yanked"] is False
    assert w.st.lock()["indexes"][0]["version"] == 4
    r = w.st.run("list", trust=w.trust)
    assert "YANKED" in out_text(r)
    # A newer index that un-yanks it is followed too.
    w.mk.publish(5)
    assert_clean_exit(w.st.run("verify", trust=w.trust), 0)
    assert w.st.entry("is-pdf")["yanked"] is False


def test_update_records_yanks_too(w):
    install_all(w)
    w.mk.publish(4, yanked=["is-json@1.0.0"])
    assert_clean_exit(w.st.run("update", trust=w.trust), 0)
    assert w.st.entry("is-json")["yanked"] is True


def test_version_dropped_from_index_is_withdrawn(w):
    install_all(w)
    w.mk.add_version("is-json", "2.0.0")
    shutil.rmtree(w.mk.plugin_dir("is-json", "1.0.0"))
    w.mk.publish(4)
    r = w.st.run("verify", trust=w.trust)
    assert_clean_exit(r, 0)
    assert "no longer lists it" in out_text(r)
    assert w.st.entry("is-json")["yanked"] is True


# One marketplace that cannot be read keeps no other's index from being
# recorded (each index on its own), and install records what it verified
# before it answers "already installed" or "yanked".

def community(w, plugins=("is-json",)):
    other = Market(w.base, "community", w.signer,
                   repo="lockfile-test/community", plugins=list(plugins))
    other.publish(1)
    w.trust.write([("official", w.mk, True), ("community", other, False)])
    r = w.st.run("install", plugins[0], "--marketplace", "community",
                 trust=w.trust)
    assert_clean_exit(r, 0)
    return other


def break_index(other, how):
    if how == "expired":
        other.publish(2, expires=int(time.time()) - 60)
    elif how == "missing":
        os.unlink(other.path("index.json"))
    elif how == "bad signature":
        other.resign("index.json", extra=["--bad-signature"])
    else:
        raise AssertionError(how)


BROKEN = ["expired", "missing", "bad signature"]


@pytest.mark.parametrize("how", BROKEN)
def test_verify_records_yanks_of_one_marketplace_when_another_fails(w, how):
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    other = community(w)
    w.mk.publish(4, yanked=["is-pdf@1.0.0"])
    break_index(other, how)
    r = w.st.run("verify", trust=w.trust)
    assert_clean_exit(r, 1)
    assert w.st.entry("is-pdf")["yanked"] is True
    assert w.st.entry("is-json")["yanked"] is False
    text = out_text(r)
    assert "marketplace community refused" in text
    assert "not read: community" in text
    assert "yanked is-pdf 1.0.0" in text
    idx = dict((x["marketplace"], x["version"]) for x in w.st.lock()[
        "indexes"])
    assert idx == {"official": 4, "community": 1}
    assert "YANKED" in out_text(w.st.run("list", trust=w.trust))


@pytest.mark.parametrize("how", BROKEN)
def test_update_goes_ahead_for_the_marketplaces_it_could_read(w, how):
    for p in ("is-pdf", "is-utf8"):
        assert_clean_exit(w.st.run("install", p, trust=w.trust), 0)
    other = community(w)
    w.mk.add_version("is-utf8", "1.0.1")
    w.mk.publish(4, yanked=["is-pdf@1.0.0"])
    break_index(other, how)
    r = w.st.run("update", trust=w.trust)
    assert_clean_exit(r, 1)
    assert w.st.entry("is-pdf")["yanked"] is True
    assert w.st.entry("is-utf8")["version"] == "1.0.1"
    text = out_text(r)
    assert "is-json 1.0.0: not updated (marketplace community" in text
    assert "not read: community" in text
    assert w.st.entry("is-json")["version"] == "1.0.0"
    idx = dict((x["marketplace"], x["version"]) for x in w.st.lock()[
        "indexes"])
    assert idx == {"official": 4, "community": 1}


def test_install_already_installed_records_the_index(w):
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    assert_clean_exit(w.st.run("install", "is-utf8", trust=w.trust), 0)
    w.mk.publish(4, yanked=["is-utf8@1.0.0"])
    r = w.st.run("install", "is-pdf", trust=w.trust)
    assert_clean_exit(r, 0)
    assert "already installed" in out_text(r)
    assert w.st.entry("is-utf8")["yanked"] is True
    assert w.st.lock()["indexes"][0]["version"] == 4


def test_install_of_the_installed_now_yanked_version_records_the_yank(w):
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    w.mk.publish(4, yanked=["is-pdf@1.0.0"])
    r = w.st.run("install", "is-pdf@1.0.0", trust=w.trust)
    assert_clean_exit(r, 1)
    assert "yanked (withdrawn)" in out_text(r)
    assert w.st.entry("is-pdf")["yanked"] is True
    assert w.st.lock()["indexes"][0]["version"] == 4
    assert "YANKED" in out_text(w.st.run("list", trust=w.trust))


def test_a_plugin_that_fails_its_checks_keeps_no_yank_out(w):
    """A broken download of one plugin (here a manifest signed for another
    tag) refuses the update; the index's yank of another is recorded."""
    install_all(w)
    w.mk.add_version("is-utf8", "1.0.1")
    w.mk.publish(4, yanked=["is-json@1.0.0"])
    w.mk.resign("plugins/is-utf8/1.0.1/manifest.json", tag="is-utf8/v1.0.0")
    r = w.st.run("update", trust=w.trust)
    assert_clean_exit(r, 1)
    assert w.st.entry("is-json")["yanked"] is True
    assert w.st.entry("is-utf8")["version"] == "1.0.0"
    assert "no plugin was changed" in out_text(r)
    assert w.st.lock()["indexes"][0]["version"] == 4


def test_index_rollback_refused(w):
    w.mk.publish(5)
    install_all(w)
    assert w.st.lock()["indexes"][0]["version"] == 5
    w.mk.publish(4, yanked=["is-pdf@1.0.0"])
    for cmd in (["verify"], ["update"], ["install", "is-pdf"],
                ["update", "is-utf8"]):
        refused(w, *cmd, want="rollback refused")
    w.st.run("remove", "is-json", trust=w.trust)
    refused(w, "install", "is-json", want="rollback refused")


def test_index_floor_in_trust_refuses_an_older_first_index(w):
    """A fresh store takes its first index on trust unless trust.toml
    pins a floor: an older (still unexpired) index is refused."""
    w.trust.write([("official", w.mk, True)], floors={"official": 4})
    refused(w, "install", "is-pdf", want="below the floor 4")
    w.mk.publish(4)
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    assert w.st.lock()["indexes"][0]["version"] == 4


def test_same_version_other_bytes_refused(w):
    install_all(w)
    w.mk.publish(3, expires=int(time.time()) + 7 * 86400)
    refused(w, "verify", want="differs from the one recorded")


def test_expired_index_refused(w):
    w.mk.publish(4, expires=int(time.time()) - 60)
    refused(w, "install", "is-pdf", want="expired")
    w.mk.publish(5)
    install_all(w)
    w.mk.publish(6, expires=int(time.time()) - 1, yanked=["is-pdf@1.0.0"])
    refused(w, "verify", want="expired")
    refused(w, "update", want="expired")


def test_index_of_another_repository_refused(w):
    w.mk.publish(4, repository="lockfile-test/other")
    refused(w, "install", "is-pdf", want="names another repository")


# ---- signatures: who signed, for which tag ------------------------------------

IDENTITIES = [
    ("another repository", dict(repo="evil/market"), "E_IDENTITY_SAN"),
    ("the right SAN but another source repository",
     dict(source_repo="evil/market"), "E_IDENTITY_REPO"),
    ("another workflow", dict(workflow="ci.yml"), "E_IDENTITY_SAN"),
    ("a branch instead of a tag", dict(ref="refs/heads/main"),
     "E_IDENTITY_SAN"),
    ("another issuer", dict(issuer="https://accounts.google.com"),
     "E_IDENTITY_ISSUER"),
    ("an untrusted CA", dict(extra=["--rogue-ca"]), "E_CERT_CHAIN"),
    ("a logged but invalid signature", dict(extra=["--bad-signature"]),
     "E_SIGNATURE"),
    ("no SCT", dict(extra=["--no-sct"]), "E_SCT_MISSING"),
    # The names are right, the ids are another repository's or owner's
    # (a renamed or deleted account's name registered again).
    ("the right names but another repository id", dict(repo_id="4242"),
     "E_IDENTITY_REPO_ID"),
    ("the right names but another owner id", dict(owner_id="4242"),
     "E_IDENTITY_OWNER_ID"),
    ("the right names and no ids", dict(repo_id="", owner_id=""),
     "E_IDENTITY_REPO_ID"),
    ("a bundle relabelled 0.1 without its inclusion proof",
     dict(extra=["--bundle-version", "0.1", "--no-proof"]),
     "E_PROOF_MISSING"),
]
ARTIFACTS = ["index.json", "plugins/is-pdf/1.0.0/manifest.json",
             "plugins/is-pdf/1.0.0/plugin"]


@pytest.mark.parametrize("artifact", ARTIFACTS)
@pytest.mark.parametrize("desc,kw,code", IDENTITIES,
                         ids=[x[0] for x in IDENTITIES])
def test_signature_identity_refused(w, artifact, desc, kw, code):
    w.mk.resign(artifact, **kw)
    r = refused(w, "install", "is-pdf", want=code)
    assert "signature refused" in out_text(r)


def test_ids_must_be_pinned_and_identity_shows_them(w):
    """trust.toml without the ids: nothing verifies, and the refusal says
    how to see them; `plugin identity` shows the ids the signatures carry
    for the human to confirm and pin; pinned, install works; other ids
    pinned: identity says so and install is refused."""
    w.trust.write([("official", w.mk, True)], ids=False)
    r = refused(w, "install", "is-pdf", want="pins no repository_id and "
                "owner_id for marketplace official")
    # the fix, named: the command (offline too), and no --marketplace
    # when there is one marketplace only (issue 32, issue 26 6)
    assert "lockfile plugin identity [--from DIR] shows the ones its " \
        "signatures carry; pin them as root (docs/host.md, step 8)" in \
        out_text(r), out_text(r)
    assert "--marketplace" not in out_text(r)
    r = w.st.run("identity", trust=w.trust)
    assert_clean_exit(r, 0)
    text = out_text(r)
    assert "repository_id = %s\nowner_id = %s\n" % (
        w.mk.repo_id, w.mk.owner_id) in text
    assert "trust.toml pins no ids" in text
    w.trust.write([("official", w.mk, True)])
    r = w.st.run("identity", trust=w.trust)
    assert_clean_exit(r, 0)
    assert "trust.toml pins the same ids" in out_text(r)
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    w.trust.write([("official", w.mk, True)],
                  ids={"official": (w.mk.repo_id, "4242")})
    r = w.st.run("identity", trust=w.trust)
    assert_clean_exit(r, 1)
    assert "trust.toml pins OTHER ids" in out_text(r)
    refused(w, "verify", want="E_IDENTITY_OWNER_ID")


OTHER_TAGS = [
    ("index.json", "index/v2"),
    ("index.json", "index/v30"),
    ("index.json", "is-pdf/v1.0.0"),
    ("plugins/is-pdf/1.0.0/manifest.json", "contains/v1.0.0"),
    ("plugins/is-pdf/1.0.0/manifest.json", "is-pdf/v1.0.1"),
    ("plugins/is-pdf/1.0.0/manifest.json", "index/v3"),
    ("plugins/is-pdf/1.0.0/plugin", "is-utf8/v1.0.0"),
    ("plugins/is-pdf/1.0.0/plugin", "v1.0.0"),
]


@pytest.mark.parametrize("artifact,tag", OTHER_TAGS)
def test_signature_for_another_artifacts_tag_refused(w, artifact, tag):
    w.mk.resign(artifact, tag=tag)
    refused(w, "install", "is-pdf", want="E_IDENTITY_SAN")


def test_signature_of_another_file_refused(w):
    """The manifest's own bundle (right tag, right signer) does not stand
    for the binary."""
    d = w.mk.plugin_dir("is-pdf")
    shutil.copyfile(os.path.join(d, "manifest.json.sigstore.json"),
                    os.path.join(d, "plugin.sigstore.json"))
    refused(w, "install", "is-pdf", want="binary signature refused")


def test_trusted_root_of_another_sigstore_refused(w):
    other = Signer(make_base("lfst-sig2-"))
    shutil.copyfile(other.root, os.path.join(w.trust.dir,
                                             "trusted_root.json"))
    refused(w, "install", "is-pdf", want="signature refused")
    shutil.rmtree(os.path.dirname(other.dir), ignore_errors=True)


# ---- mix and match: every file must be the one the index names ----------------

def test_binary_of_another_plugin_with_its_own_bundle_refused(w):
    d, o = w.mk.plugin_dir("is-pdf"), w.mk.plugin_dir("contains")
    for f in ("plugin", "plugin.sigstore.json"):
        shutil.copyfile(os.path.join(o, f), os.path.join(d, f))
    refused(w, "install", "is-pdf", want="E_IDENTITY_SAN")


def test_binary_signed_for_the_tag_but_not_indexed_refused(w):
    d, o = w.mk.plugin_dir("is-pdf"), w.mk.plugin_dir("contains")
    shutil.copyfile(os.path.join(o, "plugin"), os.path.join(d, "plugin"))
    w.mk.resign("plugins/is-pdf/1.0.0/plugin")
    refused(w, "install", "is-pdf",
            want="binary hash differs from the one the index names")


def test_manifest_naming_another_binary_refused(w):
    m = w.mk.manifest("is-pdf")
    m["binary_sha256"] = w.mk.manifest("contains")["binary_sha256"]
    w.mk.write_manifest("is-pdf", "1.0.0", m)
    w.mk.resign("plugins/is-pdf/1.0.0/manifest.json")
    idx = w.mk.index()
    idx["plugins"]["is-pdf"]["1.0.0"]["manifest_sha256"] = sha256_file(
        w.mk.path("plugins/is-pdf/1.0.0/manifest.json"))
    idx["version"] = 4
    w.mk.write_index(idx)
    refused(w, "install", "is-pdf", want="manifest binary_sha256 differs")


def test_manifest_not_the_indexed_one_refused(w):
    m = w.mk.manifest("is-pdf")
    m["question"] = "Is the file a PDF? (edited after the index)"
    w.mk.write_manifest("is-pdf", "1.0.0", m)
    w.mk.resign("plugins/is-pdf/1.0.0/manifest.json")
    refused(w, "install", "is-pdf",
            want="manifest hash differs from the one the index names")


def test_old_manifest_replayed_as_new_version_refused(w):
    """The 1.0.0 manifest and binary, re-signed on tag is-json/v1.0.2 and
    indexed as 1.0.2: the manifest still says 1.0.0."""
    src, d = w.mk.plugin_dir("is-json"), w.mk.plugin_dir("is-json", "1.0.2")
    os.makedirs(d)
    for f in ("manifest.json", "plugin"):
        shutil.copyfile(os.path.join(src, f), os.path.join(d, f))
        w.signer.sign(os.path.join(d, f), w.mk.repo, "is-json/v1.0.2")
    idx = w.mk.index()
    idx["plugins"]["is-json"]["1.0.2"] = dict(
        idx["plugins"]["is-json"]["1.0.0"])
    idx["version"] = 4
    w.mk.write_index(idx)
    os.system("chmod -R a+rX " + w.mk.dir)
    refused(w, "install", "is-json@1.0.2",
            want="manifest names another plugin or version")


def test_dynamic_or_script_binary_refused(w):
    script = os.path.join(w.base, "script")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho 1\n")
    w.mk.add_version("is-utf8", "1.0.1", binary="/bin/true")
    w.mk.add_version("is-utf8", "1.0.2", binary=script)
    w.mk.publish(4)
    refused(w, "install", "is-utf8@1.0.1", want="binary refused")
    refused(w, "install", "is-utf8@1.0.2", want="binary refused")


def test_manifest_not_strict_refused(w):
    m = w.mk.manifest("is-json")
    m["version"] = "1.0.1"
    m["homepage"] = "https://example.org"
    w.mk.add_version("is-json", "1.0.1")
    w.mk.write_manifest("is-json", "1.0.1", m)
    w.mk.publish(4)
    refused(w, "install", "is-json@1.0.1",
            want="manifest keys are not exactly the documented ones")
    # Duplicate keys are refused by the strict parser too.
    raw = open(os.path.join(w.mk.plugin_dir("is-json", "1.0.1"),
                            "manifest.json"), "rb").read()
    del m["homepage"]
    text = json.dumps(m, indent=2, sort_keys=True)
    text = text.replace('"name": "is-json"',
                        '"name": "is-json", "name": "is-json"')
    w.mk.write_manifest("is-json", "1.0.1", None, raw=text.encode())
    w.mk.publish(5)
    refused(w, "install", "is-json@1.0.1", want="manifest refused")
    assert raw


def test_oversized_files_refused(w):
    with open(w.mk.path("index.json"), "ab") as f:
        f.write(b" " * (1024 * 1024))
    w.mk.resign("index.json")
    refused(w, "install", "is-pdf", want="larger than its limit")


# ---- verify: the installed files ------------------------------------------------

def test_verify_reports_tampering(w):
    install_all(w)
    p = os.path.join(w.st.plugin_dir("is-utf8"), "plugin")
    with open(p, "r+b") as f:
        f.seek(100)
        f.write(b"\x00tampered")
    before = w.st.lock()
    r = w.st.run("verify", trust=w.trust)
    assert_clean_exit(r, 1)
    assert "TAMPERED is-utf8 1.0.0" in out_text(r)
    assert w.st.lock() == before     # the record keeps the signed hashes
    r = w.st.run("list", trust=w.trust)
    assert "TAMPERED" in out_text(r)


def test_verify_refuses_an_unsigned_install(w):
    install_all(w)
    os.unlink(os.path.join(w.st.plugin_dir("is-json"),
                           "plugin.sigstore.json"))
    r = w.st.run("verify", trust=w.trust)
    assert_clean_exit(r, 1)
    assert "TAMPERED is-json" in out_text(r)


def test_marketplace_removed_from_trust_is_withdrawn(w):
    install_all(w)
    other = Market(w.base, "other", w.signer, repo="lockfile-test/other",
                   plugins=["is-pdf"])
    other.publish(1)
    w.trust.write([("other", other, True)])
    r = w.st.run("verify", trust=w.trust)
    assert_clean_exit(r, 1)
    assert "no longer in trust.toml" in out_text(r)
    assert all(e["yanked"] for e in w.st.lock()["plugins"])


# ---- marketplaces ------------------------------------------------------------------

def test_unofficial_marketplace(w):
    other = Market(w.base, "community", w.signer,
                   repo="lockfile-test/community", plugins=["is-json"])
    other.publish(1)
    w.trust.write([("official", w.mk, True), ("community", other, False)])
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    refused(w, "install", "is-json", want="several marketplaces")
    r = w.st.run("install", "is-json", "--marketplace", "community",
                 trust=w.trust)
    assert_clean_exit(r, 0)
    assert "WARNING: unofficial marketplace" in out_text(r)
    e = w.st.entry("is-json")
    assert (e["marketplace"], e["official"]) == ("community", False)
    assert "WARNING: unofficial marketplace" in out_text(
        w.st.run("list", trust=w.trust))
    assert sorted(x["marketplace"] for x in w.st.lock()["indexes"]) == [
        "community", "official"]
    refused(w, "install", "is-json", "--marketplace", "official",
            want="installed from community")
    # The community repository's signatures do not stand for the official
    # marketplace: its index signed by community is refused there.
    shutil.copyfile(other.path("index.json"), w.mk.path("index.json"))
    shutil.copyfile(other.path("index.json.sigstore.json"),
                    w.mk.path("index.json.sigstore.json"))
    refused(w, "install", "is-utf8", "--marketplace", "official")


# ---- the command itself --------------------------------------------------------------

def test_root_refused(w):
    r = w.st.run("list", trust=w.trust, user="root")
    assert_clean_exit(r, 70)
    assert "not root" in out_text(r)


def test_trust_configuration_must_be_roots(w):
    before = w.st.snapshot()
    os.unlink(os.path.join(w.trust.dir, "trust.toml"))
    r = w.st.run("install", "is-pdf", trust=w.trust)
    assert_clean_exit(r, 70)
    assert "trust.toml" in out_text(r)
    w.trust.write([("official", w.mk, True)])
    os.chown(os.path.join(w.trust.dir, "trust.toml"), 1, 1)
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 70)
    os.chown(os.path.join(w.trust.dir, "trust.toml"), 0, 0)
    os.chmod(w.trust.dir, 0o775)
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 70)
    os.chmod(w.trust.dir, 0o755)
    w.trust.write_text('release_repository = "a/b"\nunsigned = true\n')
    r = w.st.run("install", "is-pdf", trust=w.trust)
    assert_clean_exit(r, 70)
    assert "unknown key" in out_text(r)
    w.trust.write_text('release_repository = "a/b"\n[marketplaces.x]\n'
                       'url = "http://example.org/"\nrepository = "a/b"\n'
                       'official = true\n')
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 70)
    assert w.st.snapshot() == before


def test_usage(w):
    for args in (["install"], ["install", "Is-PDF"], ["install", "is-pdf@1.0"],
                 ["frobnicate"], ["verify", "x"], ["list", "--bogus"]):
        assert_clean_exit(w.st.run(*args, trust=w.trust), 64)


def test_one_command_at_a_time_and_stale_staging_swept(w):
    fd = os.open(w.st.store, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    r = w.st.run("install", "is-pdf", trust=w.trust)
    os.close(fd)
    assert_clean_exit(r, 70)
    assert "another plugin command" in out_text(r)
    stale = os.path.join(w.st.store, ".staging-" + "0" * 32)
    os.makedirs(os.path.join(stale, "is-pdf@1.0.0"))
    open(os.path.join(stale, "is-pdf@1.0.0", "plugin"), "w").close()
    chown_tree(stale)
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    assert not os.path.exists(stale)


def test_unrecorded_leftover_replaced(w):
    """A directory at plugins/NAME/VERSION that plugins.lock does not
    record (a crash after the move) is junk: install replaces it."""
    d = w.st.plugin_dir("is-pdf")
    os.makedirs(d)
    with open(os.path.join(d, "plugin"), "w") as f:
        f.write("junk")
    chown_tree(os.path.join(w.st.store, "plugins"))
    assert_clean_exit(w.st.run("install", "is-pdf", trust=w.trust), 0)
    assert sha256_file(os.path.join(d, "plugin")) == \
        w.st.entry("is-pdf")["binary_sha256"]


# ---- offline: a marketplace mirror on disk (--from DIR) -----------------------

OFFLINE_URL = "https://marketplace.lockfile-test.invalid/m/"


def offline(w):
    """The marketplace unreachable at its configured URL, and a mirror of
    it on disk (a plain copy, as docs/marketplace.md says)."""
    w.trust.write([("official", w.mk, True)], url=OFFLINE_URL)
    mirror = os.path.join(w.base, "usb", "official")
    shutil.copytree(w.mk.dir, mirror)
    os.system("chmod -R a+rX " + os.path.join(w.base, "usb"))
    return mirror


def test_install_from_a_mirror_verifies_as_online(w):
    mirror = offline(w)
    r = w.st.run("install", "is-pdf", trust=w.trust)
    assert_clean_exit(r, 1)		# the configured URL is unreachable
    r = w.st.run("install", "is-pdf", "--from", mirror, trust=w.trust)
    assert_clean_exit(r, 0)
    assert "reading marketplace official from the mirror " + mirror in \
        out_text(r)
    e = w.st.entry("is-pdf")
    assert (e["marketplace"], e["version"]) == ("official", "1.0.0")
    assert e["binary_sha256"] == w.mk.index()["plugins"]["is-pdf"]["1.0.0"][
        "binary_sha256"]
    assert w.st.lock()["indexes"] == [{
        "marketplace": "official", "version": 3,
        "sha256": sha256_file(os.path.join(mirror, "index.json"))}]
    r = w.st.run("verify", "--from", mirror, trust=w.trust)
    assert_clean_exit(r, 0)
    r = w.st.run("identity", "--from", mirror, trust=w.trust)
    assert_clean_exit(r, 0)
    assert "trust.toml pins the same ids" in out_text(r)


def test_update_and_yanks_from_a_mirror(w):
    mirror = offline(w)
    for p in ("is-pdf", "is-utf8"):
        assert_clean_exit(w.st.run("install", p, "--from", mirror,
                                   trust=w.trust), 0)
    w.mk.add_version("is-utf8", "1.0.1")
    w.mk.publish(4, yanked=["is-pdf@1.0.0"])
    shutil.rmtree(mirror)
    shutil.copytree(w.mk.dir, mirror)
    os.system("chmod -R a+rX " + mirror)
    r = w.st.run("update", "--from", mirror, trust=w.trust)
    assert_clean_exit(r, 0)
    assert w.st.entry("is-utf8")["version"] == "1.0.1"
    assert w.st.entry("is-pdf")["yanked"] is True
    assert w.st.lock()["indexes"][0]["version"] == 4


def test_a_mirror_gets_no_unsigned_mode(w):
    """Every check of the online path holds for a mirror: no bundle, a
    changed binary, another signer, an older or expired index, another
    repository id are each refused, and no plugin changes."""
    mirror = offline(w)
    assert_clean_exit(w.st.run("install", "is-utf8", "--from", mirror,
                               trust=w.trust), 0)

    def fresh():
        shutil.rmtree(mirror)
        shutil.copytree(w.mk.dir, mirror)
        os.system("chmod -R a+rX " + mirror)

    os.unlink(os.path.join(mirror, "plugins/is-pdf/1.0.0/plugin.sigstore.json"))
    refused(w, "install", "is-pdf", "--from", mirror,
            want="plugin.sigstore.json")
    fresh()
    with open(os.path.join(mirror, "plugins/is-pdf/1.0.0/plugin"), "r+b") as f:
        f.seek(200)
        f.write(b"\x00mirror")
    refused(w, "install", "is-pdf", "--from", mirror, want="binary")
    fresh()
    os.unlink(os.path.join(mirror, "index.json.sigstore.json"))
    refused(w, "install", "is-pdf", "--from", mirror,
            want="index.json.sigstore.json")
    for kw, code in ((dict(repo="evil/market"), "E_IDENTITY_SAN"),
                     (dict(repo_id="4242"), "E_IDENTITY_REPO_ID")):
        fresh()
        w.signer.sign(os.path.join(mirror, "index.json"), **dict(
            dict(repo=w.mk.repo, tag="index/v3"), **kw))
        refused(w, "install", "is-pdf", "--from", mirror, want=code)
    # an older index than the one recorded, and an expired one
    w.mk.publish(5)
    fresh()
    assert_clean_exit(w.st.run("verify", "--from", mirror, trust=w.trust), 0)
    w.mk.publish(4)
    fresh()
    refused(w, "install", "is-pdf", "--from", mirror, want="rollback refused")
    w.mk.publish(6, expires=int(time.time()) - 60)
    fresh()
    refused(w, "install", "is-pdf", "--from", mirror, want="expired")
    assert w.st.entry("is-pdf") is None


def test_from_names_one_marketplace_and_a_plain_directory(w):
    mirror = offline(w)
    other = Market(w.base, "community", w.signer,
                   repo="lockfile-test/community", plugins=["is-json"])
    other.publish(1)
    w.trust.write([("official", w.mk, True), ("community", other, False)],
                  url=OFFLINE_URL)
    refused(w, "install", "is-pdf", "--from", mirror, code=70,
            want="name the marketplace it mirrors with --marketplace")
    refused(w, "install", "is-pdf", "--from", mirror, "--marketplace",
            "nowhere", code=70, want="not in trust.toml")
    # the community marketplace presented as the official one's mirror
    refused(w, "install", "is-json", "--from", other.dir, "--marketplace",
            "official", want="names another repository")
    r = w.st.run("install", "is-pdf", "--from", mirror, "--marketplace",
                 "official", trust=w.trust)
    assert_clean_exit(r, 0)
    for bad in ("relative/dir", "https://example.org/m/", mirror + "/../x",
                "file:///" + mirror):
        assert_clean_exit(w.st.run("install", "is-pdf", "--from", bad,
                                   "--marketplace", "official",
                                   trust=w.trust), 64)
