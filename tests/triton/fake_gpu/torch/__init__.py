"""Fake torch (see ../README.md): a Tensor is n copies of one float."""

import random

from . import cuda  # noqa: F401  (torch.cuda)

__version__ = "0.0+fake"


class version:  # noqa: N801  (torch.version.cuda)
    cuda = "0.0+fake"


class Tensor:
    dtype = "torch.float32"

    def __init__(self, n, value):
        self.n, self.value = n, float(value)

    def __add__(self, other):
        return Tensor(self.n, self.value + _value(other))

    def __mul__(self, other):
        return Tensor(self.n, self.value * _value(other))

    def __eq__(self, other):
        return Tensor(self.n, float(self.value == _value(other)))

    __hash__ = object.__hash__

    def __bool__(self):
        return self.value != 0

    def item(self):
        return self.value

    def clone(self):
        return Tensor(self.n, self.value)

    def copy_(self, other):
        if other.n != self.n:
            raise RuntimeError(
                "The size of tensor a ({}) must match the size of tensor b ({})".format(
                    self.n, other.n
                )
            )
        self.value = other.value

    def zero_(self):
        self.value = 0.0


def _value(other):
    return other.value if isinstance(other, Tensor) else float(other)


def _length(shape):
    return shape[0] if isinstance(shape, tuple) else shape


def rand(n, device=None):
    return Tensor(_length(n), random.random())


def full(shape, value, device=None):
    return Tensor(_length(shape), value)


def zeros(n, device=None):
    return Tensor(_length(n), 0.0)


def empty(n, device=None):
    return Tensor(_length(n), float("nan"))


def equal(a, b):
    return a.n == b.n and a.value == b.value


def allclose(a, b):
    return a.n == b.n and abs(a.value - b.value) <= 1e-5 * max(1.0, abs(b.value))


def all(tensor):  # noqa: A001  (torch's name)
    return Tensor(1, float(tensor.value != 0))
