"""What ci/gpu runs for issue 6: the driver without and with --fix, 5 runs each, judged.

    python3 -m safetune_triton.driver.run_gpu OUTDIR [--safetune PATH] [--runs 5] [--pairs 9]

Writes OUTDIR/unfixed/ and OUTDIR/fixed/ (each run's trace, `safetune check` text report,
summary.json, and the Triton-report scenario's Chrome timeline report-run1.chrome.json, for
ui.perfetto.dev) and OUTDIR/driver-unfixed.log, driver-fixed.log. It prints the figures, and
last one line for ci/gpu's summary row.

Exit status:
- 0: all three claims of issue 6 hold: unfixed Triton fails the report scenario with R2 or R3 in
  every run; with --fix every scenario passes every run with one attempt per key; the recorder
  adds at most 10% wall time to each scenario and to the total (measured with the fix, where the
  work is the same every run: the median over --pairs interleaved pairs of runs with and without
  the recorder of their ratio, the driver's --overhead and results.overhead);
- 1: one does not hold, or the driver failed;
- 3: skipped, Triton, torch or a GPU is missing (the last line starts "skipped:"). ci/gpu
  counts that as not passing.
"""

import argparse
import json
import os
import subprocess
import sys

from .results import judge_fixed, judge_overhead, judge_unfixed

EXIT_SKIPPED = 3


def drive(out, mode, args):
    """Runs the driver into OUTDIR/MODE; (exit status, its summary.json or None, last line)."""
    folder = os.path.join(out, mode)
    command = [
        sys.executable,
        "-m",
        "safetune_triton.driver",
        "--runs",
        str(args.runs),
        "--out",
        folder,
    ]
    command += ["--fix", "--overhead", "--pairs", str(args.pairs)] if mode == "fixed" else []
    command += ["--safetune", args.safetune] if args.safetune else []
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    log_path = os.path.join(out, "driver-{}.log".format(mode))
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("$ " + " ".join(command) + "\n")
        log.flush()
        status = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    with open(log_path, encoding="utf-8") as log:
        lines = [line.rstrip("\n") for line in log if line.strip()]
    summary = os.path.join(folder, "summary.json")
    content = None
    if status in (0, 1) and os.path.exists(summary):
        with open(summary, encoding="utf-8") as file:
            content = json.load(file)
    return status, content, lines[-1] if lines else "(no output)"


def main(argv=None):
    parser = argparse.ArgumentParser(description="issue 6's GPU step: the Triton driver, judged")
    parser.add_argument("out", help="results folder")
    parser.add_argument("--safetune", help="the safetune binary (default: build/cuda/bin/safetune)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--pairs", type=int, default=9, help="overhead pairs per scenario, with --fix (9)"
    )
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    lines, ok = [], True
    for mode, judge in (("unfixed", judge_unfixed), ("fixed", judge_fixed)):
        status, summary, last = drive(args.out, mode, args)
        if status == EXIT_SKIPPED:
            print(last)
            return EXIT_SKIPPED
        if summary is None:
            print("driver {} exited {}: {} (see driver-{}.log)".format(mode, status, last, mode))
            return 1
        claims = [judge(summary["results"])]
        if mode == "fixed":
            claims.append(judge_overhead(summary.get("overhead_pairs", [])))
        ok = ok and all(holds for holds, _ in claims)
        lines += [line for _, line in claims]
    print("\n".join(lines))
    print("; ".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
