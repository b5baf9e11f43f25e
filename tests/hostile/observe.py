#!/usr/bin/python3
"""What another account (the agent) can see of a running plugin.

Run as the agent account by run-hostile.py, for the exfiltration attempts
whose success only an outsider can judge. Samples until SIGTERM, then prints
one JSON object on stdout.

  observe.py locks INODE OFFSET   a lock on inode INODE starting at OFFSET
                                  listed in /proc/locks: {"seen": bool}
  observe.py tasks                the height of the highest plateau of the
                                  machine's task count (nr_threads in
                                  /proc/loadavg): {"level": N}
"""
import json
import signal
import sys
import time

BASE_S = 0.25
WINDOW_S = 0.2
stop = False


def on_term(signo, frame):
    global stop
    stop = True


def lock_seen(inode, offset):
    with open("/proc/locks") as f:
        for line in f:
            fields = line.split()
            if fields and fields[1] == "->":
                fields = fields[:1] + fields[2:]
            if len(fields) < 8:
                continue
            dev_ino = fields[5].rsplit(":", 1)
            if len(dev_ino) == 2 and dev_ino[1] == str(inode) and \
                    fields[6] == str(offset):
                return True
    return False


def tasks_now():
    with open("/proc/loadavg") as f:
        return int(f.read().split()[3].split("/")[1])


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def plateau(samples):
    """Height of the highest plateau of the level over its level in the first
    BASE_S seconds, both as medians (over WINDOW_S for the plateau), so that
    short-lived tasks of the machine's own activity do not count."""
    t0 = samples[0][0]
    base = median([v for t, v in samples if t - t0 < BASE_S])
    peak, j = base, 0
    for i in range(len(samples)):
        while samples[i][0] - samples[j][0] > WINDOW_S:
            j += 1
        if samples[i][0] - t0 >= BASE_S + WINDOW_S:
            peak = max(peak, median([v for _, v in samples[j:i + 1]]))
    return peak - base


def main():
    signal.signal(signal.SIGTERM, on_term)
    mode = sys.argv[1]
    if mode == "locks":
        inode, offset = int(sys.argv[2]), int(sys.argv[3])
        seen = False
        while not stop and not seen:
            seen = lock_seen(inode, offset)
            time.sleep(0.01)
        while not stop:
            time.sleep(0.01)
        print(json.dumps({"seen": seen}))
    elif mode == "tasks":
        samples = []
        while not stop:
            samples.append((time.monotonic(), tasks_now()))
            time.sleep(0.002)
        print(json.dumps({"level": plateau(samples),
                          "samples": len(samples)}))
    else:
        sys.exit("observe.py: unknown mode %r" % mode)


if __name__ == "__main__":
    main()
