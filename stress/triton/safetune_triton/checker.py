"""Runs `safetune check` on a trace and returns its verdict (README, "safetune check TRACE").

Contract:
- find_safetune(path) is the safetune binary: `path` when given (--safetune), else $SAFETUNE,
  else `safetune` on PATH, else, when this package runs from a safetune checkout, the build
  tree's build/cuda/bin/safetune (what ci/gpu builds) or build/release/bin/safetune. A path
  given (argument or $SAFETUNE) that is not a runnable file is an error, never passed over.
  ValueError names every place it looked when there is none.
- check(safetune, trace, report, chrome) (`trace`: a file, or a list of the files of one run's
  processes, merged by the checker) writes the text report to `report` (and a Chrome
  timeline to `chrome` when given) and returns a dict: exit (0 pass, 1 violation, 2 input error),
  verdict ("pass", "fail" or "input error"), rules (sorted rule ids), violations, stats (calls,
  attempts, successful_tunings, duplicate_tunings, benches, failed_benches, errors, hung_calls)
  and, for an input error, error (the checker's message).
"""

import json
import os
import shutil
import subprocess

# stress/triton/safetune_triton/ in a checkout: the repository is three levels up. An installed
# package is in no checkout, and has no build tree.
_CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_IN_CHECKOUT = os.path.isfile(os.path.join(_CHECKOUT, "stress", "triton", "pyproject.toml"))
BUILD_TREE_BINARIES = ("build/cuda/bin/safetune", "build/release/bin/safetune")
BUILD_HINT = (
    "build it (cmake --preset release && cmake --build --preset release) and put "
    "build/release/bin on PATH, set SAFETUNE=PATH, or pass --safetune PATH"
)


def _runnable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_safetune(path=None):
    for given, source in ((path, "--safetune"), (os.environ.get("SAFETUNE"), "$SAFETUNE")):
        if given:
            if _runnable(given):
                return given
            raise ValueError("{} names {!r}, which is not a runnable file".format(source, given))
    on_path = shutil.which("safetune")
    if on_path:
        return on_path
    tree = [os.path.join(_CHECKOUT, b) for b in BUILD_TREE_BINARIES] if _IN_CHECKOUT else []
    for candidate in tree:
        if _runnable(candidate):
            return candidate
    where = "none at " + " or ".join(tree) if tree else "and this package runs from no checkout"
    raise ValueError(
        "no safetune binary: not given (--safetune), $SAFETUNE unset, none on PATH, {}; {}".format(
            where, BUILD_HINT
        )
    )


def check(safetune, trace, report, chrome=None):
    traces = [trace] if isinstance(trace, str) else list(trace)  # several: one run's processes
    text_command = [safetune, "check", *traces] + (["--chrome", chrome] if chrome else [])
    text = subprocess.run(text_command, capture_output=True, text=True, timeout=600)
    with open(report, "w", encoding="utf-8") as out:
        out.write(text.stdout + text.stderr)
    if text.returncode not in (0, 1):
        return {
            "exit": text.returncode,
            "verdict": "input error",
            "rules": [],
            "violations": [],
            "stats": {},
            "error": (text.stderr or text.stdout).strip(),
        }
    result = subprocess.run(
        [safetune, "check", *traces, "--json"], capture_output=True, text=True, timeout=600
    )
    parsed = json.loads(result.stdout)
    parsed["exit"] = result.returncode
    parsed["rules"] = sorted({v["rule"] for v in parsed["violations"]})
    return parsed
