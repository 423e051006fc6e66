"""Shared pieces of the recorder tests: threads started together, the binary, traces.

conftest.py puts the package's source (stress/triton/) and this folder on sys.path.
"""

import json
import os
import subprocess
import threading
from pathlib import Path

from standin_autotuner import Autotuner

REPO = Path(__file__).resolve().parents[2]


def run_together(threads, body):
    """Runs body(i) on `threads` threads released at once; returns each result or exception."""
    barrier = threading.Barrier(threads)
    outcomes = [None] * threads

    def worker(i):
        barrier.wait()
        try:
            outcomes[i] = body(i)
        except Exception as error:  # the test inspects it
            outcomes[i] = error

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=60)
        if thread.is_alive():
            raise AssertionError("a worker thread hung for 60 s")
    return outcomes


def safetune_binary():
    """$SAFETUNE_BINARY (ctest sets it). Unset, or naming no runnable file, fails the test that
    needs it: a suite that cannot run its checks must not pass as if it had."""
    path = os.environ.get("SAFETUNE_BINARY")
    if not path:
        raise AssertionError("SAFETUNE_BINARY is not set: set it to the built safetune binary")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise AssertionError("SAFETUNE_BINARY={!r} is not a runnable file".format(path))
    return path


def safetune_check(trace, *flags):
    return subprocess.run(
        [safetune_binary(), "check", str(trace), *flags], capture_output=True, text=True, timeout=60
    )


def fresh_autotuner_class():
    """A subclass of the stand-in Autotuner, so that each test patches a class of its own."""
    return type("Autotuner", (Autotuner,), {})


def read_trace(path):
    """(header, events) of a trace file, each line parsed."""
    with open(path, encoding="utf-8") as trace:
        lines = [json.loads(line) for line in trace if line.strip()]
    return lines[0], lines[1:]
