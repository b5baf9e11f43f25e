"""lftest: the Python helpers the test suites and benchmarks share.

One package on the import path instead of each script putting its
neighbours' directories on sys.path. The repository's pytest.ini lists the
path (tests/lib and the directories of the per-suite modules: lfenv,
harness, storeenv, ...): pytest run by hand from the repository root uses
it, tests/run-all sets it as PYTHONPATH for every suite, and a script run by
hand takes PYTHONPATH=tests/lib (docs/testing.md, "Running one suite").

Only what is the same in every user lives here; a per-suite module keeps
what is its own (lfenv.as_user runs with the account's supplementary groups,
hubenv.run_as with none: they are not merged).
"""
from lftest.accounts import setpriv, uid_of  # noqa: F401
from lftest.files import sha256_file, snapshot  # noqa: F401
from lftest.tap import Tap  # noqa: F401
from lftest.wait import free_port, wait_for  # noqa: F401
