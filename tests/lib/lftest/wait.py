"""Waiting: for a condition, for a free port."""
import socket
import time


def wait_for(cond, timeout=10):
    """True once cond() is, polled every 50 ms; False after timeout s."""
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def free_port():
    """A loopback TCP port free now (the kernel's pick), for a test server:
    suites run side by side and none may take a fixed one."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
