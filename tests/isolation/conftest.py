import importlib.util
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(os.path.dirname(HERE), "e2e")
from isoenv import IsoEnv  # noqa: E402

# make_pdf from the e2e suite's conftest, loaded under another name.
_spec = importlib.util.spec_from_file_location(
    "e2e_conftest", os.path.join(E2E, "conftest.py"))
_e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_e2e)
make_pdf = _e2e.make_pdf


@pytest.fixture
def iso():
    """An IsoEnv with one local profile, is-pdf and contains installed, a
    one-second quantum; not started (each test builds its situation)."""
    e = IsoEnv()
    e.add_local_profile("invoices", prefix="2024/", files={
        "2024/a.pdf": make_pdf(), "2024/c.txt": b"contact: alice@example.org\n"})
    e.install_plugin("is-pdf")
    e.install_plugin("contains")
    e.write_policy(answer_quantum_s=1, security_level=1)
    yield e
    e.cleanup()
