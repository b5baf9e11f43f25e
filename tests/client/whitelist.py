"""whitelist: the tests' check of everything the agent's side prints.

The CLI and MCP tests check their text, JSON, structured content and
progress output against the same whitelist: any key, value or word outside
it fails. This module is that whitelist, written apart from the C code
from docs/protocol.md (the closed list), so a mistake in the client's table
or in its printing is caught rather than copied:

  wl = Whitelist.for_build(build)       # knows the built plugins' manifests
  wl.cli_json("file.plan", stdout)      # --json output
  wl.cli_text("file.plan", stdout, stderr)
  wl.mcp_result("plan", call_tool_result)   # structuredContent + text
  wl.mcp_progress(notification)

Every check raises WhitelistError naming what is outside the list. The
error codes are those of docs/protocol.md; their numbers and hints are read
from the compiled table (src/protocol/table.c, dumped as JSON by
$BUILD/tests/harness/dump-table) and must be static printable text. Manifest
text (question, one, zero) must be one of the manifests the test installed:
a console that forwards any other text fails even when it is printable.

Also a command: whitelist.py KIND METHOD < OUTPUT (KIND: cli-json, cli-text,
mcp-result, mcp-progress) exits 1 with the reason on anything outside.
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# docs/protocol.md, "Errors": the only error codes a console may send.
PROTOCOL_ERRORS = (
    "E_KEY_OUTSIDE_PREFIX", "E_TOO_MANY_PLUGINS", "E_UNKNOWN_PROFILE",
    "E_PLUGIN_NOT_INSTALLED", "E_PLUGIN_TAMPERED", "E_PLUGIN_YANKED",
    "E_SANDBOX_UNAVAILABLE", "E_PROC_NOT_HIDDEN", "E_HANDLE_EXPIRED",
    "E_FETCH_FAILED", "E_APPROVAL_DENIED", "E_APPROVAL_TIMEOUT", "E_STALE",
    "E_LITERAL_INPUT", "E_INPUT_INVALID", "E_BAD_REQUEST", "E_PEER_REFUSED",
    "E_ANSWER_CAP", "E_TOO_MANY_PENDING",
)

# The client's own outcomes (docs/client.md): code, words, hint.
OWN = {
    "console error": ("console error",
                      "the console's answer was outside the closed list; "
                      "nothing of it is shown"),
    "busy": ("busy",
             "the console is serving another request (a plan waiting for the "
             "human, or a run held until its quantum); try again later"),
    "unreachable": ("unreachable",
                    "no console answers on the socket, or this account may not "
                    "use it"),
    "timeout": ("timeout",
                "no answer within the client's wait; a card still waiting "
                "for the human is withdrawn"),
}

PROGRESS_TEXT = ("waiting for the lockfile console: a human approves every "
                 "plan, and answers leave on the console's quantum")

TOOLS = {"status": "status", "sources": "sources", "plugins": "file.plugins",
         "plan": "file.plan", "run": "file.run", "release": "file.release",
         "request_change": "change.request"}

NAME = r"[a-z][a-z0-9-]{0,31}"
PROFILE = r"[a-z0-9][a-z0-9_-]{0,63}"
INPUT = r"[a-z][a-z0-9_]{0,31}"
VERSION = r"(?:0|[1-9][0-9]{0,5})\.(?:0|[1-9][0-9]{0,5})\.(?:0|[1-9][0-9]{0,5})"
INT = r"(?:0|[1-9][0-9]{0,9})"
PLAN = r"pl_[0-9a-f]{32}"
HANDLE = r"f_[0-9a-f]{32}"
TICKET = r"t_[0-9a-f]{32}"
# The pending answer's one text (src/protocol/table.h, PROTO_PENDING_TEXT).
PENDING_TEXT = ("waiting for the human on lockhub: run this plan id "
                "(file.run) for its answers")


class WhitelistError(AssertionError):
    pass


def fail(what, where):
    raise WhitelistError("outside the whitelist: %s at %s" % (what, where))


def default_build():
    return os.environ.get("BUILD", os.path.join(ROOT, "build"))


def dump_table(build=None):
    """The compiled table as dump-table prints it (a dict)."""
    exe = os.path.join(build or default_build(), "tests", "harness",
                       "dump-table")
    try:
        p = subprocess.run([exe], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
    except OSError as e:
        fail("no table (%s: build the tree first)" % e.strerror, exe)
    if p.returncode != 0:
        fail("dump-table exit status %d" % p.returncode, exe)
    return json.loads(p.stdout)


def check_table(doc):
    """{name: (code, hint)} from a dumped table, checked against the
    protocol's list: every code once, distinct numbers, static hints."""
    if not isinstance(doc, dict) or sorted(doc) != ["errors", "methods"] or \
            not isinstance(doc["errors"], list):
        fail("a table that is not {errors, methods}", "dump-table")
    table, numbers = {}, set()
    for row in doc["errors"]:
        if not isinstance(row, dict) or sorted(row) != ["code", "hint", "name"]:
            fail("an error row that is not {name, code, hint}", "dump-table")
        name, code, hint = row["name"], row["code"], row["hint"]
        if not is_str(name, r"E_[A-Z_]{1,40}") or name in table:
            fail("error row %r" % (name,), "dump-table")
        if type(code) is not int or code in numbers:
            fail("error number %r" % (code,), name)
        if not is_str(hint, r"[ -~]{1,200}"):
            fail("a hint that is not plain static text", name)
        table[name] = (code, hint)
        numbers.add(code)
    for m in doc["methods"]:
        for e in m.get("errors", ()):
            if e not in table:
                fail("method %r answers %r" % (m.get("name"), e), "dump-table")
    if sorted(table) != sorted(PROTOCOL_ERRORS):
        fail("error codes %s" % sorted(set(table) ^ set(PROTOCOL_ERRORS)),
             "table vs docs/protocol.md")
    return table


def read_table(build=None):
    """{name: (code, hint)} from the compiled table of build."""
    return check_table(dump_table(build))


def is_int(v, lo, hi):
    return type(v) is int and lo <= v <= hi


def is_str(v, rx):
    return isinstance(v, str) and re.fullmatch(rx, v) is not None


class Whitelist:
    def __init__(self, texts=(), table=None):
        self.texts = set(texts)
        self.table = table or read_table()

    @classmethod
    def for_build(cls, build, extra_texts=()):
        texts = set(extra_texts)
        for m in glob.glob(os.path.join(build, "plugins", "*", "manifest.json")):
            with open(m) as f:
                doc = json.load(f)
            texts.update([doc["question"], doc["one"], doc["zero"]])
        return cls(texts, read_table(build))

    # ---- the console's results (docs/protocol.md) ----
    def _keys(self, obj, required, optional, where):
        if not isinstance(obj, dict):
            fail("not an object", where)
        for k in obj:
            if k not in required and k not in optional:
                fail("key %r" % k, where)
        for k in required:
            if k not in obj:
                fail("missing %r" % k, where)

    def _text(self, v, where):
        if not is_str(v, r"[ -~]{1,200}"):
            fail("manifest text that is not printable ASCII", where)
        if v not in self.texts:
            fail("manifest text no installed plugin has", where)

    def result(self, method, r, where="result"):
        if method == "status":
            self._keys(r, ("console", "production", "security_level",
                           "idle_timeout_s", "session_left_s",
                           "plugin_protocol", "sandbox", "answer_quantum_s"),
                       ("profile",), where)
            ok = (r["console"] == "up" and type(r["production"]) is bool and
                  is_int(r["security_level"], 0, 1) and
                  is_int(r["idle_timeout_s"], 0, 31 * 86400) and
                  is_int(r["session_left_s"], 0, 31 * 86400) and
                  isinstance(r["plugin_protocol"], list) and
                  len(r["plugin_protocol"]) <= 2 and
                  all(is_int(p, 1, 2) for p in r["plugin_protocol"]) and
                  r["sandbox"] in ("ok", "unavailable") and
                  is_int(r["answer_quantum_s"], 1, 3600) and
                  ("profile" not in r or is_str(r["profile"], PROFILE)))
            if not ok:
                fail("a status value", where)
        elif method == "sources":
            self._keys(r, ("sources",), (), where)
            if not isinstance(r["sources"], list):
                fail("not a list", where + ".sources")
            for i, s in enumerate(r["sources"]):
                w = "%s.sources[%d]" % (where, i)
                self._keys(s, ("profile", "production"), (), w)
                if not is_str(s["profile"], PROFILE) or \
                        type(s["production"]) is not bool:
                    fail("a source value", w)
        elif method == "file.plugins":
            self._keys(r, ("plugins",), (), where)
            if not isinstance(r["plugins"], list):
                fail("not a list", where + ".plugins")
            for i, p in enumerate(r["plugins"]):
                w = "%s.plugins[%d]" % (where, i)
                self._keys(p, ("name", "version", "official", "question",
                               "one", "zero", "protocol", "inputs"),
                           ("warning",), w)
                if not is_str(p["name"], NAME) or \
                        not is_str(p["version"], VERSION) or \
                        type(p["official"]) is not bool or \
                        not is_int(p["protocol"], 1, 2):
                    fail("a plugin value", w)
                if p["official"] == ("warning" in p) or \
                        p.get("warning", "unofficial_marketplace") != \
                        "unofficial_marketplace":
                    fail("the warning", w)
                for k in ("question", "one", "zero"):
                    self._text(p[k], w + "." + k)
                if not isinstance(p["inputs"], list) or \
                        (p["protocol"] == 1) != (len(p["inputs"]) == 0):
                    fail("the inputs", w)
                for j, inp in enumerate(p["inputs"]):
                    wi = "%s.inputs[%d]" % (w, j)
                    self._keys(inp, ("name", "kind", "max_bytes"), (), wi)
                    if not is_str(inp["name"], INPUT) or \
                            inp["kind"] not in ("text", "email") or \
                            not is_int(inp["max_bytes"], 1, 4096):
                        fail("an input value", wi)
        elif method in ("file.plan", "file.run") and "status" in r:
            # hub mode: the pending shape and its one fixed text
            self._keys(r, ("status", "plan", "ticket", "lock", "instance",
                           "text"), (), where)
            if r["status"] != "pending" or r["lock"] != "lockfile" or \
                    not is_str(r["plan"], PLAN) or \
                    not is_str(r["ticket"], TICKET) or \
                    not is_str(r["instance"], PROFILE) or \
                    r["text"] != PENDING_TEXT:
                fail("a pending value", where)
        elif method in ("file.plan", "file.run"):
            self._keys(r, ("plan", "handle", "answers", "held_inputs"), (),
                       where)
            if not is_str(r["plan"], PLAN) or not is_str(r["handle"], HANDLE):
                fail("an id", where)
            if not isinstance(r["answers"], list) or \
                    not isinstance(r["held_inputs"], list):
                fail("not a list", where)
            for i, a in enumerate(r["answers"]):
                w = "%s.answers[%d]" % (where, i)
                self._keys(a, ("plugin", "version", "result"), ("error",), w)
                if not is_str(a["plugin"], NAME) or \
                        not is_str(a["version"], VERSION):
                    fail("a name or version", w)
                if a["result"] is None:
                    if a.get("error") != "plugin_error":
                        fail("a null result without plugin_error", w)
                elif type(a["result"]) is not int or a["result"] not in (0, 1) \
                        or "error" in a:
                    fail("a result that is not 1, 0 or null", w)
            for i, h in enumerate(r["held_inputs"]):
                if not is_str(h, INPUT):
                    fail("a held input", "%s.held_inputs[%d]" % (where, i))
        elif method == "file.release":
            self._keys(r, ("released",), (), where)
            if r["released"] is not True:
                fail("released", where)
        elif method == "change.request":
            self._keys(r, ("queued",), (), where)
            if r["queued"] is not True:
                fail("queued", where)
        else:
            fail("method %r" % method, where)

    def error(self, e, where="error"):
        """{"error": CODE, "hint": HINT}: a table code with its hint, or one
        of the client's own outcomes."""
        self._keys(e, ("error", "hint"), (), where)
        code, hint = e["error"], e["hint"]
        if code in self.table:
            if hint != self.table[code][1]:
                fail("a hint that is not the table's", where)
        elif code in OWN:
            if hint != OWN[code][1]:
                fail("a hint that is not the client's", where)
        else:
            fail("error code %r" % code, where)
        return code

    # ---- CLI ----
    def cli_json(self, method, stdout):
        """One line, one object: {"result": R} or {"error", "hint"}.
        Returns "result" or the error code."""
        if isinstance(stdout, bytes):
            stdout = stdout.decode("ascii")   # the client prints ASCII only
        lines = stdout.split("\n")
        if len(lines) != 2 or lines[1] != "":
            fail("not exactly one line", "cli json")
        doc = json.loads(lines[0])
        if isinstance(doc, dict) and set(doc) == {"result"}:
            self.result(method, doc["result"])
            return "result"
        return self.error(doc)

    def _line(self, line, templates, where):
        for t in templates:
            m = re.fullmatch(t, line)
            if m:
                for k, v in m.groupdict().items():
                    if k.startswith("text") and v is not None:
                        self._text(v, where)
                return t
        fail("line %r" % line, where)

    def cli_text(self, method, stdout, stderr=b""):
        """Text output: every stdout line one of the method's templates,
        stderr empty or one failure line. Returns "result" or the code."""
        if isinstance(stdout, bytes):
            stdout = stdout.decode("ascii")
        if isinstance(stderr, bytes):
            stderr = stderr.decode("ascii")
        if stderr:
            if stdout:
                fail("output on both stdout and stderr", "cli text")
            lines = stderr.split("\n")
            if len(lines) != 2 or lines[1] != "":
                fail("not exactly one line", "cli stderr")
            m = re.fullmatch(r"lockfile: ([A-Za-z_ ]+): (.*)", lines[0])
            if not m:
                fail("line %r" % lines[0], "cli stderr")
            word, hint = m.groups()
            for code, (words, h) in OWN.items():
                if word == words:
                    if hint != h:
                        fail("a hint that is not the client's", "cli stderr")
                    return code
            if word in self.table and hint == self.table[word][1]:
                return word
            fail("failure %r" % word, "cli stderr")
        if not stdout.endswith("\n"):
            fail("no final newline", "cli text")
        lines = stdout[:-1].split("\n")
        T = {
            "status": [r"console: up", r"profile: " + PROFILE,
                       r"production: (yes|no)", r"security level: [01]",
                       r"idle timeout: %s s" % INT, r"session left: %s s" % INT,
                       r"plugin protocols:( [12](, [12])?)?",
                       r"sandbox: (ok|unavailable)",
                       r"answer quantum: %s s" % INT],
            "sources": [r"no profiles",
                        r"profile %s( \(production\))?" % PROFILE],
            "file.plugins": [
                r"no plugins",
                r"plugin %s %s \((official|unofficial_marketplace)\)"
                % (NAME, VERSION),
                r"  question: (?P<text>[ -~]+)", r"  1 means: (?P<text>[ -~]+)",
                r"  0 means: (?P<text>[ -~]+)", r"  protocol: [12]",
                r"  input %s: (text|email), at most %s bytes" % (INPUT, INT)],
            "file.plan": [r"plan: " + PLAN, r"handle: " + HANDLE,
                          r"pending: ticket %s \(lock lockfile, instance %s\)"
                          % (TICKET, PROFILE), re.escape(PENDING_TEXT),
                          r"answer %s %s: (1|0|no answer \(plugin_error\))"
                          % (NAME, VERSION),
                          r"held inputs: %s(, %s)*" % (INPUT, INPUT)],
            "file.release": [r"released"],
            "change.request": [r"queued for the human"],
        }
        T["file.run"] = T["file.plan"]
        if method not in T:
            fail("method %r" % method, "cli text")
        used = [self._line(l, T[method], "cli text line %d" % (i + 1))
                for i, l in enumerate(lines)]
        if method == "status" and used[0] != r"console: up":
            fail("status without its first line", "cli text")
        return "result"

    # ---- MCP ----
    def mcp_result(self, tool, r):
        """A CallToolResult: content (one text block whose JSON is the
        structuredContent, or the error), structuredContent, isError,
        resultType. Returns "result" or the error code."""
        if tool not in TOOLS:
            fail("tool %r" % tool, "mcp")
        self._keys(r, ("content", "isError"),
                   ("structuredContent", "resultType"), "mcp result")
        if "resultType" in r and r["resultType"] != "complete":
            fail("resultType", "mcp result")
        c = r["content"]
        if not isinstance(c, list) or len(c) != 1:
            fail("content that is not one block", "mcp result")
        self._keys(c[0], ("type", "text"), (), "mcp content")
        if c[0]["type"] != "text" or not is_str(c[0]["text"], r"[ -~]+"):
            fail("a content block", "mcp content")
        doc = json.loads(c[0]["text"])
        if r["isError"] is False:
            if "structuredContent" not in r or doc != r["structuredContent"]:
                fail("text that is not the structured content", "mcp result")
            self.result(TOOLS[tool], r["structuredContent"],
                        "structuredContent")
            return "result"
        if r["isError"] is not True or "structuredContent" in r:
            fail("isError", "mcp result")
        return self.error(doc, "mcp error")

    def mcp_progress(self, msg):
        self._keys(msg, ("jsonrpc", "method", "params"), (), "progress")
        if msg["jsonrpc"] != "2.0" or msg["method"] != "notifications/progress":
            fail("method", "progress")
        p = msg["params"]
        self._keys(p, ("progressToken", "progress", "message"), (),
                   "progress.params")
        if not isinstance(p["progressToken"], (int, str)) or \
                not is_int(p["progress"], 1, 10 ** 9) or \
                p["message"] != PROGRESS_TEXT:
            fail("a progress value", "progress.params")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: whitelist.py KIND METHOD < OUTPUT\n")
        return 2
    wl = Whitelist.for_build(default_build())
    data = sys.stdin.read()
    try:
        kind, method = argv[1], argv[2]
        if kind == "cli-json":
            print(wl.cli_json(method, data))
        elif kind == "cli-text":
            print(wl.cli_text(method, data))
        elif kind == "mcp-result":
            print(wl.mcp_result(method, json.loads(data)))
        elif kind == "mcp-progress":
            wl.mcp_progress(json.loads(data))
            print("progress")
        else:
            sys.stderr.write("unknown kind\n")
            return 2
    except (WhitelistError, ValueError, KeyError, TypeError) as e:
        print("bad: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
