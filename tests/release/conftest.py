import os
import shutil
import types

import pytest


from relenv import (Prefix, Release, Server, Signer, Trust,  # noqa: E402
                    make_base, make_pki)


@pytest.fixture(scope="session")
def signer():
    base = make_base("lfrel-sig-")
    yield Signer(base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def releases(signer):
    """v0.1.0 and v0.2.0, signed as release.yml of lockfile-test/lockfile
    on their tags."""
    base = make_base("lfrel-pub-")
    yield {t: Release(base, signer, t).publish() for t in ("v0.1.0", "v0.2.0")}
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def pki(signer):
    base = make_base("lfrel-pki-")
    yield make_pki(os.path.join(base, "pki"))
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def w(signer, releases, pki):
    """A world: the HTTPS server serving v0.1.0 and v0.2.0 (the latest), a
    trust configuration naming it, and an empty root-owned prefix."""
    base = make_base("lfrel-")
    srv = Server(base, pki)
    srv.serve(releases["v0.1.0"])
    srv.serve(releases["v0.2.0"], latest=True)
    trust = Trust(base, signer, srv.url)
    pfx = Prefix(base)
    yield types.SimpleNamespace(base=base, srv=srv, trust=trust, pfx=pfx,
                                signer=signer, rel=releases)
    srv.stop()
    shutil.rmtree(base, ignore_errors=True)
