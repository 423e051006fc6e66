#!/usr/bin/env python3
"""Per-call overhead and scaling of the tuned hot path, from safetune-bench JSON output.

Usage:
  safetune-bench --benchmark_format=json > bench.json
  python3 stress/bench/overhead.py bench.json [--json]

overhead_ns = time per call of BM_TunedLaunch minus BM_DirectLaunch, at 1 thread.
handle_overhead_ns = the same of BM_HandleLaunch (the call through the key's handle, no lookup).
scaling     = (rate@2 / rate@1 of Tuned) / (rate@2 / rate@1 of Direct), where rate is the total
              calls per second over all threads (items_per_second). 1.0 means the tuned path
              scales with threads exactly as well as a direct launch does.

safetune-bench runs 9 repetitions with random interleaving unless told otherwise. Then each
figure is a median over repetitions, and scaling is the median of the scaling computed within
each repetition: Google Benchmark's interleaving runs repetition r of every benchmark in one
shuffled round, so the four rates of one repetition are taken close together in time, and a
machine that slows down for a few seconds moves all four instead of one. (On the 2-vCPU CI
machines the speed of one vCPU changes by 1.6x from one second to the next.) With a single
repetition, the single figures are used.
Exit status: 0 on success, 2 when the input lacks a needed benchmark (named in the message).
"""
import json
import re
import statistics
import sys

NAME = re.compile(r"^BM_(Tuned|Direct|Handle)Launch/.*threads:(\d+)")
TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
NEEDED = [(kind, threads) for kind in ("Tuned", "Direct") for threads in (1, 2)] + [("Handle", 1)]


def load_repetitions(path):
    """{(kind, threads): {repetition_index: run}} for the plain (non-aggregate) runs."""
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    runs = {}
    for entry in document.get("benchmarks", []):
        match = NAME.match(entry.get("name", ""))
        if not match or entry.get("run_type", "iteration") != "iteration":
            continue
        key = (match.group(1), int(match.group(2)))
        runs.setdefault(key, {})[entry.get("repetition_index", 0)] = entry
    for kind, threads in NEEDED:
        if (kind, threads) not in runs:
            raise LookupError(f"no BM_{kind}Launch run with threads:{threads} in the input")
    return runs


def time_per_call_ns(entry):
    return entry["real_time"] * TO_NS[entry.get("time_unit", "ns")]


def rate(entry):
    if "items_per_second" not in entry:
        raise LookupError(f"{entry['name']} has no items_per_second")
    return entry["items_per_second"]


def scaling_in(runs, repetition):
    tuned = rate(runs[("Tuned", 2)][repetition]) / rate(runs[("Tuned", 1)][repetition])
    direct = rate(runs[("Direct", 2)][repetition]) / rate(runs[("Direct", 1)][repetition])
    return tuned / direct


def summarize(runs):
    # Repetitions present in all five runs (a run cut short leaves fewer).
    repetitions = sorted(set.intersection(*(set(runs[key]) for key in NEEDED)))
    if not repetitions:
        raise LookupError("the five runs share no repetition index")
    tuned_ns = statistics.median(time_per_call_ns(runs[("Tuned", 1)][r]) for r in repetitions)
    direct_ns = statistics.median(time_per_call_ns(runs[("Direct", 1)][r]) for r in repetitions)
    handle_ns = statistics.median(time_per_call_ns(runs[("Handle", 1)][r]) for r in repetitions)
    scalings = [scaling_in(runs, r) for r in repetitions]
    return {
        "repetitions": len(repetitions),
        "tuned_ns_per_call": tuned_ns,
        "direct_ns_per_call": direct_ns,
        "overhead_ns": tuned_ns - direct_ns,
        "handle_ns_per_call": handle_ns,
        "handle_overhead_ns": handle_ns - direct_ns,
        "scaling": statistics.median(scalings),
        "scaling_min": min(scalings),
        "scaling_max": max(scalings),
    }


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    try:
        summary = summarize(load_repetitions(argv[1]))
    except (OSError, ValueError, KeyError, LookupError) as error:
        print(f"overhead.py: cannot read {argv[1]}: {error}", file=sys.stderr)
        return 2
    if "--json" in argv[2:]:
        print(json.dumps(summary))
    else:
        for name, value in summary.items():
            print(f"{name}: {value:.3f}" if isinstance(value, float) else f"{name}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
