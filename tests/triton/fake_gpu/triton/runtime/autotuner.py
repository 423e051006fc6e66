"""Fake triton.runtime.autotuner: the tests' stand-in Autotuner and Config."""

from standin_autotuner import Autotuner, Config  # noqa: F401
