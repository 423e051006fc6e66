"""python3 -m safetune_triton: the safetune-triton command (cli.py)."""

import sys

from .cli import main

sys.exit(main())
