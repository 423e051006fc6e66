"""Fake triton.testing.do_bench: runs the call, sleeps 0.2 ms (a sync), returns a random time."""

import random
import time


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    fn()
    time.sleep(0.0002)
    ms = random.uniform(0.001, 0.002)
    return [ms, ms * 0.9, ms * 1.1] if quantiles else ms
