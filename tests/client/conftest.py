import os
import shutil
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

from fake_console import TEXTS  # noqa: E402
from whitelist import Whitelist  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
# The client binary under test: the plain build, or (CLIENT_BUILD) the
# sanitized one; plugins and the console always come from $BUILD.
CLIENT_BUILD = os.environ.get("CLIENT_BUILD", BUILD)


@pytest.fixture(scope="session")
def lockfile_bin():
    """A copy of the client binary, taken once: a rebuild of the tree
    during the run (other work in progress) cannot swap it mid-test."""
    d = tempfile.mkdtemp(prefix="lfc-bin-", dir="/tmp")
    os.chmod(d, 0o755)
    dst = os.path.join(d, "lockfile")
    shutil.copy2(os.path.join(CLIENT_BUILD, "lockfile"), dst)
    os.chmod(dst, 0o755)
    yield dst
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def wl():
    return Whitelist.for_build(BUILD, extra_texts=TEXTS.values())
