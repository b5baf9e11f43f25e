"""Files: digests and private copies of built binaries."""
import hashlib
import os
import shutil
import subprocess
import time


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def snapshot(binary, tmp):
    """Run a private copy: the tree is shared, and a rebuild that relinks
    the binary mid-run must not turn into failures or mix two builds. A
    copy taken while the linker writes is caught by running it once."""
    dst = os.path.join(tmp, os.path.basename(binary))
    # lockfile forwards verify-bundle to lockfile-console beside it
    # (docs/hacking.md, "Executables"): that one is copied too.
    extra = ["lockfile-console"] if os.path.basename(binary) == "lockfile" \
        else []
    for _ in range(10):
        try:
            os.makedirs(tmp, exist_ok=True)
            for name in extra:
                shutil.copy2(os.path.join(os.path.dirname(binary), name),
                             os.path.join(tmp, name))
            shutil.copy2(binary, dst)
            os.chmod(dst, 0o755)
            if subprocess.run([dst], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              timeout=30).returncode >= 0:
                return dst
        except OSError:
            pass
        time.sleep(3)
    return dst
