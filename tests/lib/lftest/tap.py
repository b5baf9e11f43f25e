"""A TAP writer: the plan first, then one line per result, a failure's
diagnostics as "#" lines under it (what tests/run-all counts)."""


class Tap:
    def __init__(self, planned):
        self.n = 0
        self.failed = 0
        print("1..%d" % planned, flush=True)

    def result(self, ok, desc, diag=None):
        self.n += 1
        if not ok:
            self.failed += 1
        print("%sok %d - %s" % ("" if ok else "not ", self.n, desc), flush=True)
        if not ok and diag:
            for line in str(diag).splitlines():
                print("#   " + line, flush=True)
        return ok
