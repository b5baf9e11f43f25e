import shutil
import types

import pytest


from storeenv import Market, Signer, Store, Trust, make_base  # noqa: E402


@pytest.fixture(scope="session")
def signer():
    base = make_base("lfst-sig-")
    yield Signer(base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def w(signer):
    """A world: the official marketplace (the four real plugins, index
    version 3, signed), a trust configuration naming it official, and an
    empty console home."""
    base = make_base("lfst-")
    mk = Market(base, "official", signer)
    mk.publish(3)
    trust = Trust(base, signer, [("official", mk, True)])
    st = Store(base=base)
    yield types.SimpleNamespace(base=base, mk=mk, trust=trust, st=st,
                                signer=signer)
    shutil.rmtree(base, ignore_errors=True)
