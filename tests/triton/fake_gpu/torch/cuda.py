"""Fake torch.cuda: streams that do nothing, one current stream per thread."""

import contextlib
import itertools
import threading

_ids = itertools.count(1)
_current = threading.local()


def is_available():
    return True


def synchronize():
    pass


class Stream:
    def __init__(self):
        self.cuda_stream = next(_ids)

    def synchronize(self):
        pass


@contextlib.contextmanager
def stream(s):
    previous = getattr(_current, "stream", None)
    _current.stream = s
    try:
        yield
    finally:
        _current.stream = previous


def current_device():
    return 0


def get_device_name(index=0):
    return "Fake GPU"


def get_device_capability(index=0):
    return (0, 0)
