"""Full plans on real sample files, approved in the console's real terminal:
PDFs written by independent generators (ghostscript's pdfwrite, qpdf in
several layouts, mupdf), broken ones made from them, JSON from
JSONTestSuite, and UTF-8 edge cases. The expected answers come from the
files' construction (and Python's strict UTF-8 decoder), never from the
plugins. Every response is gated on the closed list and checked for leaks."""
import json
import os
import shutil
import subprocess
import threading
import time

import pytest

from lfenv import assert_no_leak, check_reply

SUITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                     "JSONTestSuite", "test_parsing")
PLUGINS = ("is-pdf", "is-utf8", "is-json")


def run(argv, **kw):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=60, **kw)


def make_pdfs(tmp):
    """{name: (bytes, is a well-formed PDF)}"""
    for tool in ("gs", "qpdf", "mutool"):
        if shutil.which(tool) is None:
            pytest.fail("%s missing: scripts/install-deps.d/console-tests.sh "
                        "installs it" % tool)
    gs = os.path.join(tmp, "gs.pdf")
    run(["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite",
         "-sOutputFile=" + gs, "-c",
         "/Helvetica findfont 12 scalefont setfont 72 720 moveto "
         "(invoice 2024-117: total 1200 EUR) show showpage "
         "72 720 moveto (page two) show showpage"])
    out = {}
    for name, argv in (("qdf.pdf", ["qpdf", "--qdf", gs]),
                       ("objstm.pdf", ["qpdf", "--object-streams=generate",
                                       gs]),
                       ("linearized.pdf", ["qpdf", "--linearize", gs]),
                       ("encrypted.pdf", ["qpdf", "--encrypt", "u", "o", "256",
                                          "--", gs]),
                       ("mutool.pdf", ["mutool", "clean", "-gg", gs])):
        p = os.path.join(tmp, name)
        run(argv + [p])
        with open(p, "rb") as f:
            out[name] = (f.read(), True)
    with open(gs, "rb") as f:
        good = f.read()
    out["gs.pdf"] = (good, True)
    out["truncated.pdf"] = (good[:len(good) // 2], False)
    out["header-only.pdf"] = (b"%PDF-1.7\n", False)
    sx = good.rindex(b"startxref")
    out["bad-startxref.pdf"] = (good[:sx] + b"startxref\n7\n%%EOF\n", False)
    out["no-eof.pdf"] = (good[:good.rindex(b"%%EOF")], False)
    out["text-with-header.pdf"] = (b"%PDF-1.4\nnot a pdf at all\n%%EOF\n",
                                   False)
    return out


def json_cases():
    names = sorted(os.listdir(SUITE))
    ys = [n for n in names if n.startswith("y_")]
    ns = [n for n in names if n.startswith("n_")]
    pick = ys[::19] + ns[::31]          # spread over the suite, deterministic
    out = {}
    for n in pick:
        with open(os.path.join(SUITE, n), "rb") as f:
            out["json/" + n] = (f.read(), n.startswith("y_"))
    return out


def utf8_cases():
    chunk = "\u00e9\u4e2d\U0001f600".encode() * 30000
    at = 65536 - 2                      # a 4-byte sequence across 64 KiB
    straddle = b"a" * at + "\U0001f600".encode() + b"b" * 100
    return {
        "empty.txt": b"",
        "bom.txt": b"\xef\xbb\xbfwith a BOM\n",
        "max.txt": "\U0010ffff".encode(),
        "nonchar.txt": "\uffff\ufdd0".encode(),
        "nul.txt": b"nul \x00 and controls \x01\x1b[2J\n",
        "big-valid.txt": chunk,
        "straddle.txt": straddle,
        "above-max.txt": b"x\xf4\x90\x80\x80",
        "surrogate.txt": b"x\xed\xa0\x80",
        "overlong2.txt": b"\xc0\xaf",
        "overlong3.txt": b"\xe0\x80\xaf",
        "truncated.txt": b"abc\xe2\x82",
        "lone-cont.txt": b"\x80abc",
        "big-bad-at-end.txt": chunk + b"\xff",
        "cp1252.txt": "caf\u00e9".encode("cp1252"),
    }


def utf8_ok(data):
    try:
        data.decode("utf-8", "strict")
        return True
    except UnicodeDecodeError:
        return False


def wait_prompt(env, timeout=20):
    t0 = time.time()
    while time.time() - t0 < timeout:
        r = env.tmux("capture-pane", "-p", "-t", "lf", check=False)
        lines = [l for l in r.stdout.decode("utf-8", "replace").splitlines()
                 if l.strip()]
        if lines and lines[-1].startswith("Approve?") and \
                lines[-1].endswith("deny:"):
            return
        time.sleep(0.02)
    raise AssertionError("no approval prompt:\n" + env.screen()[-2000:])


def approved(env, key, plugins):
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", {
            "profile": "samples", "key": key,
            "plugins": [{"name": p} for p in plugins]})
    t = threading.Thread(target=go)
    t.start()
    wait_prompt(env)
    env.type("y")
    t.join()
    assert check_reply(box["req"], box["line"]) == "result", box["line"]
    assert_no_leak(box["line"], extra=[os.path.basename(key)])
    res = json.loads(box["line"])["result"]
    return {a["plugin"]: a["result"] for a in res["answers"]}


@pytest.fixture
def samples(env):
    tmp = os.path.join(env.base, "gen")
    os.mkdir(tmp)
    files = {}
    files.update(make_pdfs(tmp))
    files.update(json_cases())
    files.update({k: (v, None) for k, v in utf8_cases().items()})
    env.add_local_profile("samples",
                          files={k: v[0] for k, v in files.items()})
    for p in PLUGINS:
        env.install_plugin(p)
    env.write_policy(max_plugins_per_handle=8)
    env.start()
    return env, files


def test_real_files(samples):
    env, files = samples
    wrong = []
    for key, (data, truth) in sorted(files.items()):
        if key.endswith(".pdf"):
            want = {"is-pdf": int(truth), "is-utf8": int(utf8_ok(data)),
                    "is-json": 0}
        elif key.startswith("json/"):
            want = {"is-json": int(truth), "is-utf8": int(utf8_ok(data))}
        else:
            want = {"is-utf8": int(utf8_ok(data))}
        got = approved(env, key, list(want))
        if got != want:
            wrong.append((key, want, got))
    assert not wrong, wrong
    recs = [r for r in env.audit() if r.get("method") == "file.plan"]
    assert len(recs) == len(files)
    assert all(r["outcome"] == "answered" for r in recs)
    assert env.work_entries() and len(env.work_entries()) == len(files)
