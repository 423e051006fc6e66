"""Fake triton (see ../README.md): jit, autotune, Config and cdiv over the stand-in autotuner."""

import inspect
import os

from . import language, testing  # noqa: F401
from .runtime.autotuner import Autotuner, Config  # noqa: F401

__version__ = "3.6.0+fake"


class JITFunction:
    """Runs a Python reference of the kernel (REFERENCE below) on the fake tensors."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = list(inspect.signature(fn).parameters)

    def run(self, *args, grid=None, warmup=False, **kwargs):
        REFERENCE[self.fn.__name__](*args)

    def __getitem__(self, grid):  # kernel[grid](*args, **meta): a direct launch
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


def _add(x, y, out, n):
    out.value = x.value + y.value


def _scale(x, out, n):
    out.value = x.value * 2.0 + 1.0


def _bump_and_total(x, total, n):
    total.value += x.value * n
    x.value += 1.0


REFERENCE = {
    "empty_kernel": lambda n: None,
    "add_kernel": _add,
    "scale_kernel": _scale,
    "bump_and_total_kernel": _bump_and_total,
}


def jit(fn):
    return JITFunction(fn)


def cdiv(a, b):
    return -(-a // b)


def autotune(
    configs,
    key,
    prune_configs_by=None,
    reset_to_zero=None,
    restore_value=None,
    do_bench=None,
    cache_results=False,
):
    """The stand-in's disk cache, like Triton's, is in TRITON_CACHE_DIR."""

    def decorator(fn):
        return Autotuner(
            fn,
            fn.arg_names,
            configs,
            key,
            reset_to_zero=reset_to_zero,
            restore_value=restore_value,
            prune_configs_by=prune_configs_by,
            do_bench=do_bench,
            cache_results=cache_results,
            cache_dir=os.environ.get("TRITON_CACHE_DIR"),
        )

    return decorator
