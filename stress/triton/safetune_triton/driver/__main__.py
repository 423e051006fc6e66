"""python3 -m safetune_triton.driver: the driver (main.py)."""

import sys

from .main import run

sys.exit(run())
