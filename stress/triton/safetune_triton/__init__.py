"""safetune-triton: Triton's @triton.autotune recorded as a safetune trace, and fixed.

    from safetune_triton import Recorder, SingleFlightFix

- Recorder (recorder.py): while installed, every call of an autotuned kernel is recorded as a
  black-box trace that `safetune check` judges (docs/checking-triton.md).
- SingleFlightFix (fix.py): one tuning per key, per-thread scratch fields, and selection on the
  median; safetune_triton.fix.install() applies it alone, without recording.
- The command `safetune-triton` (cli.py): record a script, drive the GPU scenarios, check traces.
"""

from .fix import ReentrantTuning, SingleFlightFix, TuningFailed
from .recorder import Recorder

__all__ = ["Recorder", "SingleFlightFix", "ReentrantTuning", "TuningFailed"]
