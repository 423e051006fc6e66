"""Runs `safetune check` on a trace and returns its verdict (README, "safetune check TRACE").

Contract:
- find_safetune(path) is `path` when given, else the first of build/cuda/bin/safetune (what
  ci/gpu builds) and build/release/bin/safetune that exists; ValueError when there is none.
- check(safetune, trace, report, chrome) writes the text report to `report` (and a Chrome
  timeline to `chrome` when given) and returns a dict: exit (0 pass, 1 violation, 2 input error),
  verdict ("pass", "fail" or "input error"), rules (sorted rule ids), violations, stats (calls,
  attempts, successful_tunings, duplicate_tunings, benches, failed_benches, errors, hung_calls)
  and, for an input error, error (the checker's message).
"""

import json
import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BINARIES = ("build/cuda/bin/safetune", "build/release/bin/safetune")


def find_safetune(path=None):
    candidates = [path] if path else [os.path.join(REPO, p) for p in DEFAULT_BINARIES]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise ValueError(
        "no safetune binary at {} (build it: cmake --preset cuda && cmake --build "
        "build/cuda --target safetune, or pass --safetune PATH)".format(" or ".join(candidates))
    )


def check(safetune, trace, report, chrome=None):
    text_command = [safetune, "check", trace] + (["--chrome", chrome] if chrome else [])
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
        [safetune, "check", trace, "--json"], capture_output=True, text=True, timeout=600
    )
    parsed = json.loads(result.stdout)
    parsed["exit"] = result.returncode
    parsed["rules"] = sorted({v["rule"] for v in parsed["violations"]})
    return parsed
