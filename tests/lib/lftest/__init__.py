"""lftest: the Python helpers the test suites and benchmarks share.

One package on the import path instead of each script putting its
neighbours' directories on sys.path. tests/run-all sets PYTHONPATH for every
suite (tests/lib and the directories of the per-suite modules: lfenv,
harness, storeenv, ...), the repository's pytest.ini does the same for a
pytest run by hand from the repository root, and a script run by hand takes
PYTHONPATH=tests/lib (docs/testing.md, "Running one suite by hand").

Only what is the same in every user lives here; a per-suite module keeps
what is its own (lfenv.as_user runs with the account's supplementary groups,
hubenv.run_as with none: they are not merged).
"""
from lftest.accounts import setpriv, uid_of  # noqa: F401
from lftest.files import sha256_file, snapshot  # noqa: F401
from lftest.tap import Tap  # noqa: F401
from lftest.wait import free_port, wait_for  # noqa: F401
