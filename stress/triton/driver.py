#!/usr/bin/env python3
"""Runs Triton's @triton.autotune from many threads, records traces, and has safetune judge them.

    python3 stress/triton/driver.py [--fix] [--runs N] [--threads N] [--scenarios a,b]
                                    [--out DIR] [--safetune PATH] [--bench-ms W,R] [--overhead]

For each run and scenario (scenarios.py) it builds fresh autotuners, installs the recorder
(recorder.py; with --fix, the fix of single_flight.py under it), runs the scenario's threads
(workers.py), writes OUT/SCENARIO-runN.jsonl, runs `safetune check` on it (the text report in
.check.txt; a Chrome timeline of the report scenario's first run in .chrome.json), and prints one
row. At the end it prints each scenario's figures over its runs and writes OUT/summary.json.

--overhead also runs every scenario without the recorder (with --fix: with the fix alone), and
reports the recorder's cost in wall time. Before the runs, an untimed, unrecorded single-thread
pass compiles every config (so that runs time tuning, not Triton's compiler), unless
--no-warmup. --bench-ms sets do_bench's warm-up and repetition times (Triton's default is 25,100;
shorter keeps the 100-config scenario within minutes, and the race does not depend on it).

Exit status: 0 every trace passed the check, 1 a trace broke a rule (or threads hung), 2 usage or
checker input error, 3 skipped: Triton, torch or a CUDA device is missing.
"""

import argparse
import json
import os
import sys
import time

from recorder import Recorder, describe
from results import overhead, per_scenario, table
from safetune_check import check, find_safetune
from single_flight import SingleFlightFix
from triton_api import triton_version

SCENARIO_NAMES = ("report", "vector_add", "restore", "two_kernels")
EXIT_SKIPPED = 3


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fix", action="store_true", help="apply the single-flight fix")
    parser.add_argument("--runs", type=int, default=1, help="runs of every scenario (1)")
    parser.add_argument("--threads", type=int, help="threads (default: each scenario's, 10)")
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIO_NAMES),
        help="comma-separated, from " + ", ".join(SCENARIO_NAMES),
    )
    parser.add_argument("--out", help="output folder (build/triton-stress/fixed or .../unfixed)")
    parser.add_argument(
        "--safetune", help="the safetune binary (build/cuda/bin or build/release/bin)"
    )
    parser.add_argument("--bench-ms", default="1,5", help="do_bench warm-up,repetition ms (1,5)")
    parser.add_argument(
        "--overhead", action="store_true", help="also time runs without the recorder"
    )
    parser.add_argument("--no-warmup", action="store_true", help="skip the compiling pass")
    args = parser.parse_args(argv)
    args.scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = [s for s in args.scenarios if s not in SCENARIO_NAMES]
    if unknown or not args.scenarios:
        parser.error(
            "unknown scenario(s) {} (expected some of {})".format(
                unknown, ", ".join(SCENARIO_NAMES)
            )
        )
    try:
        args.bench_ms = tuple(float(v) for v in args.bench_ms.split(","))
    except ValueError:
        args.bench_ms = ()
    if len(args.bench_ms) != 2 or min(args.bench_ms) <= 0:
        parser.error("--bench-ms wants two positive numbers, WARMUP,REP (e.g. 1,5)")
    if args.runs < 1 or (args.threads is not None and args.threads < 1):
        parser.error("--runs and --threads must be at least 1")
    args.out = args.out or os.path.join(
        "build", "triton-stress", "fixed" if args.fix else "unfixed"
    )
    return args


def import_gpu_side():
    """(torch, scenarios, workers), or why this machine cannot run them ("skipped: ...")."""
    try:
        import torch
        import triton  # noqa: F401
    except Exception as error:  # ImportError, or a broken install failing as it loads
        return "skipped: triton not importable ({})".format(describe(error))
    if not torch.cuda.is_available():
        return "skipped: torch sees no CUDA device"
    import scenarios  # from here on, a failure is the driver's, not a missing Triton
    import workers

    return torch, scenarios, workers


def make_bench(warmup_ms, rep_ms):
    import triton.testing

    def bench(kernel_call, quantiles):  # what Autotuner does with warmup= and rep= (deprecated)
        return triton.testing.do_bench(
            kernel_call, warmup=warmup_ms, rep=rep_ms, quantiles=quantiles
        )

    return bench


def warm_up(scenario, bench, threads, torch):
    """Every thread's calls, one after another on one thread: compiles every config once."""
    kernels = scenario.build(bench)
    with torch.cuda.stream(torch.cuda.Stream()):
        for thread in range(threads):
            state = scenario.prepare(thread)
            for j in range(scenario.calls):
                scenario.call(kernels, state, thread, j)
        torch.cuda.synchronize()


def untraced_wall(scenario, args, bench, threads, workers):
    fix = SingleFlightFix().install() if args.fix else None
    try:
        return workers.run_threads(scenario, scenario.build(bench), threads)["wall_s"]
    finally:
        if fix:
            fix.uninstall()


def traced_run(scenario, run, args, bench, threads, workers, safetune):
    kernels = scenario.build(bench)
    with Recorder(fix=args.fix) as recorder:
        outcome = workers.run_threads(scenario, kernels, threads, recorder)
    stem = os.path.join(args.out, "{}-run{}".format(scenario.name, run))
    recorder.write(stem + ".jsonl")
    chrome = stem + ".chrome.json" if scenario.name == "report" and run == 1 else None
    verdict = check(safetune, stem + ".jsonl", stem + ".check.txt", chrome)
    verdict["violations"] = _first_of_each_rule(verdict["violations"])
    keys = {(e["kernel"], e["key"]) for e in recorder.log.events() if e["event"] == "call_begin"}
    outcome.update(
        scenario=scenario.name,
        run=run,
        fix=args.fix,
        threads=threads,
        keys=len(keys),
        trace=stem + ".jsonl",
        check=verdict,
        wall_untraced_s=None,
    )
    return outcome


def _first_of_each_rule(violations):
    first = {}
    for violation in violations:
        first.setdefault(violation["rule"], violation)
    return list(first.values())


def main(argv=None):
    args = parse_args(argv)
    try:
        safetune = find_safetune(args.safetune)
    except ValueError as error:
        print("driver: " + str(error), file=sys.stderr)
        return 2
    # Triton's disk cache of tuning results would let a call choose without benching, which a
    # black-box trace cannot tell from early use (R6): every run must tune.
    if os.environ.pop("TRITON_CACHE_AUTOTUNING", None) not in (None, "", "0"):
        print("driver: TRITON_CACHE_AUTOTUNING was set; turned off for these runs")
    gpu_side = import_gpu_side()
    if isinstance(gpu_side, str):
        print(gpu_side)
        return EXIT_SKIPPED
    torch, scenarios, workers = gpu_side
    os.makedirs(args.out, exist_ok=True)
    bench = make_bench(*args.bench_ms)
    chosen = [scenarios.SCENARIOS[name] for name in args.scenarios]
    print(
        "triton {}, torch {}, fix {}, do_bench warmup,rep {} ms, {} run(s); out {}".format(
            triton_version(),
            torch.__version__,
            "on" if args.fix else "off",
            args.bench_ms,
            args.runs,
            args.out,
        )
    )
    if not args.no_warmup:
        start = time.perf_counter()
        for scenario in chosen:
            warm_up(scenario, bench, args.threads or scenario.threads, torch)
        print("warm-up (compiling every config): {:.1f} s".format(time.perf_counter() - start))
    results = run_all(chosen, args, bench, workers, safetune)
    return finish(results, args)


def run_all(chosen, args, bench, workers, safetune):
    results = []
    print(table([]))
    for run in range(1, args.runs + 1):
        for scenario in chosen:
            threads = args.threads or scenario.threads
            untraced = None
            if args.overhead and run % 2:  # alternate the order, so that drift cancels out
                untraced = untraced_wall(scenario, args, bench, threads, workers)
            result = traced_run(scenario, run, args, bench, threads, workers, safetune)
            if args.overhead and untraced is None:
                untraced = untraced_wall(scenario, args, bench, threads, workers)
            result["wall_untraced_s"] = untraced
            results.append(result)
            print(table([result]).splitlines()[-1], flush=True)
            if result["hung_threads"]:
                print(
                    "driver: {} thread(s) hung in {}; stopping".format(
                        result["hung_threads"], scenario.name
                    )
                )
                finish(results, args)
                os._exit(1)  # hung threads cannot be joined
    return results


def finish(results, args):
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as out:
        json.dump(
            {
                "fix": args.fix,
                "triton": triton_version(),
                "bench_ms": args.bench_ms,
                "results": results,
                "overhead": overhead(results),
            },
            out,
            indent=1,
        )
    print("\n" + table(results) + "\n")
    for line in per_scenario(results):
        print(line)
    costs = overhead(results)
    if costs:
        print(
            "recorder overhead (median wall with / without - 1): "
            + ", ".join("{} {:+.1%}".format(name, cost) for name, cost in costs.items())
        )
    failed = [r for r in results if r["check"]["exit"] != 0 or r["hung_threads"]]
    for trace in sorted({r["scenario"]: r["trace"] for r in reversed(failed)}.values()):
        print(
            "check again: safetune check {} --chrome {}".format(
                trace, trace[: -len(".jsonl")] + ".chrome.json"
            )
        )
    if any(r["check"]["exit"] == 2 for r in results):
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as error:  # a recorder mismatch, a CUDA failure: say it in one line
        print("driver: " + describe(error), file=sys.stderr)
        raise
