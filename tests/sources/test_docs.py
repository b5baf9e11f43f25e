"""Every example profile in docs/sources.md is accepted by its kind's
validation, and every key the doc's tables name is one the kind knows (a
doc that drifts from the code fails here)."""
import json
import os
import re
import subprocess
import tomllib

from srcutil import FETCH_ONE, ROOT

DOC = os.path.join(ROOT, "docs", "sources.md")


def blocks():
    with open(DOC) as f:
        text = f.read()
    return text, re.findall(r"```toml\n(.*?)```", text, re.S)


def test_examples_validate():
    _, found = blocks()
    n = 0
    for b in found:
        doc = tomllib.loads(b)
        for name, prof in doc.get("profiles", {}).items():
            if "source" not in prof:
                continue
            kind = prof["source"]
            table = {k: v for k, v in prof.items()
                     if k not in ("source", "production", "prefix")}
            r = subprocess.run([FETCH_ONE, "--validate", kind,
                                json.dumps(table), "x"],
                               stdout=subprocess.PIPE)
            assert r.returncode == 0, (name, r.stdout)
            n += 1
    assert n >= 4


def test_documented_keys_are_known():
    text, _ = blocks()
    sections = re.split(r"^## ", text, flags=re.M)
    for sec in sections:
        title = sec.split("\n", 1)[0].strip("` ")
        if title not in ("s3", "sftp"):
            continue
        keys = re.findall(r"^\| `([a-z_0-9]+)` \|", sec, re.M)
        assert len(keys) >= 8, title
        with open(os.path.join(ROOT, "src", "sources", title + ".c")) as f:
            code = f.read()
        table = re.search(r"%s_keys\[\] = \{(.*?)NULL" % title, code,
                          re.S).group(1)
        known = set(re.findall(r'"([a-z_0-9]+)"', table))
        assert set(keys) == known, (title, set(keys) ^ known)
