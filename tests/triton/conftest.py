"""pytest's set-up for the tests of safetune-triton (stress/triton/).

The tests import the package from its source, stress/triton/ (tests/package/ tests the installed
one), and the stand-ins from this folder: standin_autotuner.py, a stand-in for Triton's
Autotuner with the same private names, and harness.py. fake_gpu/ (fake torch and triton) is put
on the path only by the tests that run the driver, in a child process.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parents[1] / "stress" / "triton"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
