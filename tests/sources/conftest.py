import os
import shutil

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

from swiftenv import SwiftEnv  # noqa: E402
from sshenv import SshEnv  # noqa: E402
import srcutil  # noqa: E402

# Objects every S3 test may read: keys that need percent-encoding, once.
KEYS = {
    "plain.txt": b"plain object\n",
    "with space/and more spaces.txt": b"spaces\n",
    "\u00fcnic\u00f6de/\u65e5\u672c\u8a9e \u20ac.bin": b"\x00\x01unicode\xff",
    "odd !$&'()*+,;=:@[]%25 #~.txt": b"reserved characters\n",
    "a+b=c&d.txt": b"plus equals\n",
    "deep/a/b/c/d/e/f.txt": b"deep\n",
}
BIG = 2 * 1024 * 1024 + 17      # over the smallest workspace cap (1 MiB)


@pytest.fixture(scope="session")
def swift():
    sw = SwiftEnv()
    try:
        sw.start()
        sw.bucket("bkt")
        sw.bucket("other-bkt")
        for k, v in KEYS.items():
            sw.put("bkt", k, v)
        sw.put("bkt", "big.bin", os.urandom(BIG))
        yield sw
    finally:
        sw.cleanup()


@pytest.fixture(scope="module")
def sshd():
    sd = SshEnv()
    try:
        sd.start()
        yield sd
    finally:
        sd.cleanup()


@pytest.fixture
def home():
    d = srcutil.credhome()
    yield d
    shutil.rmtree(d, ignore_errors=True)
