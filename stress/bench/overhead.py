#!/usr/bin/env python3
"""Per-call overhead and scaling of the tuned hot path, from safetune-bench JSON output.

Usage:
  safetune-bench --benchmark_format=json [--benchmark_repetitions=5] > bench.json
  python3 stress/bench/overhead.py bench.json [--json]

overhead_ns = time per call of BM_TunedLaunch minus BM_DirectLaunch, at 1 thread.
scaling     = (rate@2 / rate@1 of Tuned) / (rate@2 / rate@1 of Direct), where rate is the total
              calls per second over all threads (items_per_second). 1.0 means the tuned path
              scales with threads exactly as well as a direct launch does.
Exit status: 0 on success, 2 when the input lacks a needed benchmark (named in the message).
"""
import json
import re
import sys

NAME = re.compile(r"^BM_(Tuned|Direct)Launch/.*threads:(\d+)")
TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load_runs(path):
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    runs = {}
    medians = set()
    for entry in document.get("benchmarks", []):
        match = NAME.match(entry.get("name", ""))
        if not match:
            continue
        # With --benchmark_repetitions the median aggregate stands for the run; without, the
        # single iteration entry does.
        is_median = entry.get("run_type") == "aggregate" and entry.get("aggregate_name") == "median"
        is_single = entry.get("run_type", "iteration") == "iteration"
        key = (match.group(1), int(match.group(2)))
        if is_median or (is_single and key not in medians):
            runs[key] = entry
        if is_median:
            medians.add(key)
    return runs


def need(runs, kind, threads):
    entry = runs.get((kind, threads))
    if entry is None:
        raise LookupError(f"no BM_{kind}Launch run with threads:{threads} in the input")
    return entry


def time_per_call_ns(entry):
    return entry["real_time"] * TO_NS[entry.get("time_unit", "ns")]


def rate(entry):
    if "items_per_second" not in entry:
        raise LookupError(f"{entry['name']} has no items_per_second")
    return entry["items_per_second"]


def summarize(runs):
    tuned1, tuned2 = need(runs, "Tuned", 1), need(runs, "Tuned", 2)
    direct1, direct2 = need(runs, "Direct", 1), need(runs, "Direct", 2)
    return {
        "tuned_ns_per_call": time_per_call_ns(tuned1),
        "direct_ns_per_call": time_per_call_ns(direct1),
        "overhead_ns": time_per_call_ns(tuned1) - time_per_call_ns(direct1),
        "scaling": (rate(tuned2) / rate(tuned1)) / (rate(direct2) / rate(direct1)),
    }


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    try:
        summary = summarize(load_runs(argv[1]))
    except (OSError, ValueError, KeyError, LookupError) as error:
        print(f"overhead.py: cannot read {argv[1]}: {error}", file=sys.stderr)
        return 2
    if "--json" in argv[2:]:
        print(json.dumps(summary))
    else:
        for name, value in summary.items():
            print(f"{name}: {value:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
