
import pytest


from lfenv import ConsoleEnv  # noqa: E402


PDF = (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
       b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")


def make_pdf():
    """A small well-formed PDF with a correct xref table and startxref."""
    body = PDF
    off1 = body.index(b"1 0 obj")
    off2 = body.index(b"2 0 obj")
    xref = len(body)
    tail = (b"xref\n0 3\n0000000000 65535 f \n%010d 00000 n \n%010d 00000 n \n"
            b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (off1, off2, xref))
    return body + tail


@pytest.fixture
def env():
    e = ConsoleEnv()
    yield e
    e.cleanup()


@pytest.fixture
def basic(env):
    """A console with one local profile, the four official plugins and a
    one-second quantum, started and ready."""
    env.add_local_profile("invoices", prefix="2024/", files={
        "2024/a.pdf": make_pdf(),
        "2024/b.json": b'{"total": 12, "lines": [1, 2]}\n',
        "2024/c.txt": b"contact: alice@example.org\n",
        "2024/bad.bin": b"\xff\xfe\x00 not utf8 \xc0\xaf",
        "secret/outside.txt": b"never served",
    })
    for p in ("is-pdf", "is-utf8", "is-json", "contains"):
        env.install_plugin(p)
    env.write_policy(answer_quantum_s=1, security_level=0,
                     max_plugins_per_handle=6)
    env.start()
    return env
