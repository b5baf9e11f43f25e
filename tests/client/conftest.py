import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))

from fake_console import TEXTS  # noqa: E402
from whitelist import Whitelist  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
# The client binary under test: the plain build, or (CLIENT_BUILD) the
# sanitized one; plugins and the console always come from $BUILD.
CLIENT_BUILD = os.environ.get("CLIENT_BUILD", BUILD)


@pytest.fixture(scope="session")
def lockfile_bin():
    return os.path.join(CLIENT_BUILD, "lockfile")


@pytest.fixture(scope="session")
def wl():
    return Whitelist.for_build(BUILD, extra_texts=TEXTS.values())
