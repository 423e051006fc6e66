"""Issue 5's figures from safetune-cuda-bench's JSON outputs, as one line for ci/gpu's summary.

Usage: bench_figures.py --launch BENCH.json --tuning TUNING.json --paired P1.json [P2.json ...]
                        [--paired-once EXTRA.json] [--profile PROFILE.json]

--launch: BM_BareLaunch and BM_TunedLaunch at 1, 4 and 16 threads (medians of their repetitions):
  launch rates only. Their ratio would compare two runs seconds apart, which differ by more than
  the goal; the paired benchmark gives the ratios.
--tuning: BM_ColdKeys and BM_TuningQuality.
--paired: BM_LaunchPaired through:0 (the tuned call), 5 (the tuned call through the key's handle)
  and 3 (the control, bare against bare), at 1, 4 and 16 threads, one file per process; with
  each thread count, what a bare launch cost beside the tuned call, in ns.
--paired-once: BM_LaunchPaired through:1, 2 and 4 at 1 thread, from one process (shown, not judged).
--profile: BM_LaunchProfile through:0, 5 and 1: each path's spans before, in and after the
  driver's enqueue against the bare launch's, in TSC ticks per launch (shown, not judged).

Why several processes for the 1-thread ratio: within one process the paired benchmark's
repetitions agree to about 0.2%, but from one process to the next the ratio moves by 0.4-0.7%
(probably with where the driver's libraries and data land in memory, which changes with each
process), more than the 1% goal's margin. Where the benchmark's own loops land is sampled within
each run (BM_LaunchPaired runs each side through 8 copies of its loop); the rest is not. One
process is one draw of that; the median over processes is the figure, and the range of the
per-process medians is printed with it. Every process's own figure is a ratio taken within one
run, of alternating blocks, so no ratio compares two runs.

Exits 1 naming the file and the benchmark when an input lacks one it needs.
"""

import argparse
import json
import statistics
import sys


class MissingBenchmark(Exception):
    pass


def load(path):
    """Every benchmark record of one output file (repetitions and aggregates)."""
    try:
        with open(path) as f:
            return json.load(f)["benchmarks"]
    except (OSError, ValueError, KeyError) as error:
        raise MissingBenchmark(f"{path}: not a Google Benchmark JSON output ({error})")


def named(name, pattern):
    """A pattern ending in '/' names a benchmark and any arguments after it; else the full name
    ("threads:1" must not match "threads:16")."""
    return name.startswith(pattern) if pattern.endswith("/") else name == pattern


def median_of(records, path, pattern, key, threads=None):
    """The median of `key` over the repetitions (not the aggregates) of the named benchmark, of
    those run at `threads` threads when it is given (Google Benchmark's "threads" field)."""
    runs = [r for r in records if r.get("run_type", "iteration") == "iteration" and named(r["name"], pattern)
            and (threads is None or r.get("threads", 1) == threads)]
    if not runs:
        at = "" if threads is None else f" at {threads} threads"
        raise MissingBenchmark(f"{path}: no benchmark named {pattern}{at}")
    for run in runs:
        if run.get("error_occurred"):
            raise MissingBenchmark(f"{path}: {run['name']} reported an error: {run.get('error_message', '?')}")
        if key not in run:
            raise MissingBenchmark(f"{path}: {run['name']} has no {key}")
    return statistics.median(r[key] for r in runs)


def launch_rates(path):
    records = load(path)
    parts = []
    for threads in (1, 4, 16):
        bare = median_of(records, path, f"BM_BareLaunch/real_time/threads:{threads}", "items_per_second")
        tuned = median_of(records, path, f"BM_TunedLaunch/real_time/threads:{threads}", "items_per_second")
        parts.append(f"{threads} thr: bare {bare / 1e3:.0f}k/s tuned {tuned / 1e3:.0f}k/s")
    return ["unpaired launch rates (for the ratios, see the paired launches), " + ", ".join(parts)]


def process_median(path, records, through, threads=1, key="tuned_over_bare"):
    return median_of(records, path, f"BM_LaunchPaired/through:{through}/", key, threads)


def over_processes(processes, through, threads):
    """The median over processes (path, records) of each one's median ratio, with their range."""
    medians = sorted(process_median(path, records, through, threads) for path, records in processes)
    return f"{statistics.median(medians):.4f} [{medians[0]:.4f}-{medians[-1]:.4f}]"


def bare_launch_ns(processes, threads):
    """What a bare launch cost beside the tuned call (the median over processes of each one's
    median): a ratio is a share of it, so the same nanoseconds are a larger ratio on a host
    whose driver launches faster."""
    return statistics.median(process_median(path, records, 0, threads, "bare_ns") for path, records in processes)


def paired(paths, once):
    processes = [(path, load(path)) for path in paths]  # each file read once
    parts = []
    for threads in (1, 4, 16):
        parts.append(f"{threads} thr paired (a bare launch {bare_launch_ns(processes, threads):.0f} ns):"
                     f" tuned cost / bare cost {over_processes(processes, 0, threads)},"
                     f" through a key's handle {over_processes(processes, 5, threads)},"
                     f" control (bare against bare) {over_processes(processes, 3, threads)}")
    line = (f"paired launches (alternating blocks in each thread; each process's median of its"
            f" repetitions, then the median [range] over {len(paths)} processes): " + "; ".join(parts))
    if once:
        records = load(once)
        line += (f"; in one process, 1 thr: the winner's prepared launch alone, no lookup:"
                 f" {process_median(once, records, 1):.4f}; the kernel's launch(inv, config), reading the config:"
                 f" {process_median(once, records, 2):.4f}; tuned, kernel that prepares nothing:"
                 f" {process_median(once, records, 4):.4f}")
    return line


def launch_profile(path):
    """Each profiled path's spans against the bare launch's, the medians of the repetitions."""
    records = load(path)
    parts = []
    for through, label in ((0, "tuned call"), (5, "through a key's handle"), (1, "prepared launch alone")):
        pattern = f"BM_LaunchProfile/through:{through}/"
        spans = []
        for span in ("before", "driver", "after"):
            bare = median_of(records, path, pattern, f"bare_{span}")
            tuned = median_of(records, path, pattern, f"tuned_{span}")
            spans.append(f"{span} {bare:.0f} -> {tuned:.0f} ({tuned - bare:+.0f})")
        parts.append(f"{label}: " + ", ".join(spans))
    return "profile (TSC ticks per launch, bare -> the path): " + "; ".join(parts)


def tuning(path):
    records = load(path)
    seq = median_of(records, path, "BM_ColdKeys/parallel:0/", "real_time")
    par = median_of(records, path, "BM_ColdKeys/parallel:1/", "real_time")
    parts = [f"8 cold keys: sequential {seq:.1f} ms, 8 threads {par:.1f} ms"]
    for size in (256, 1024, 2048):
        ratio = median_of(records, path, f"BM_TuningQuality/size:{size}/", "ratio")
        parts.append(f"quality {size}: ratio {ratio:.3f}")
    return parts


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launch", required=True)
    parser.add_argument("--tuning", required=True)
    parser.add_argument("--paired", required=True, nargs="+")
    parser.add_argument("--paired-once")
    parser.add_argument("--profile")
    args = parser.parse_args(argv)
    try:
        parts = launch_rates(args.launch) + [paired(args.paired, args.paired_once)]
        if args.profile:
            parts.append(launch_profile(args.profile))
        parts += tuning(args.tuning)
    except MissingBenchmark as error:
        print(f"bench_figures.py: {error}", file=sys.stderr)
        return 1
    print("; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
