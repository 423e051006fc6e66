"""Runs Triton's @triton.autotune from many threads, records traces, and has safetune judge them.

    safetune-triton drive [--fix] [--runs N] [--threads N] [--scenarios a,b]
                          [--out DIR] [--safetune PATH] [--bench-ms W,R]
                          [--overhead [--pairs N]]
    (or python3 -m safetune_triton.driver ...)

For each run and scenario (scenarios.py) it builds fresh autotuners, installs the recorder
(recorder; with --fix, the fix under it), runs the scenario's threads
(workers.py), writes OUT/SCENARIO-runN.jsonl, runs `safetune check` on it (the text report in
.check.txt; a Chrome timeline of the report scenario's first run in .chrome.json), and prints one
row. At the end it prints each scenario's figures over its runs and writes OUT/summary.json.

--overhead then measures the recorder's cost in wall time (results.overhead): --pairs N (9) pairs
per scenario, each a run with the recorder and one without (with --fix: with the fix alone), back
to back, neither written nor checked. The pairs are interleaved: pair i runs every scenario in
turn, with the recorder first in odd pairs and second in even ones, so that drift on the machine
hits both halves of a pair alike. A scenario's cost is the median over its pairs of wall with /
wall without - 1 (the total: of the sums over the scenarios).

Before the runs, an untimed, unrecorded single-thread pass compiles every config (so that runs
time tuning, not Triton's compiler), unless --no-warmup. --bench-ms sets do_bench's warm-up and
repetition times (Triton's default is 25,100; shorter keeps the 100-config scenario within
minutes, and the race does not depend on it).

Exit status: 0 every trace passed the check, 1 a trace broke a rule (or threads hung), 2 usage or
checker input error, 3 skipped: Triton, torch or a CUDA device is missing.
"""

import argparse
import gc
import json
import os
import sys
import time

from ..checker import check, find_safetune
from ..fix import SingleFlightFix
from ..recorder import Recorder, describe
from ..triton_api import triton_version
from .results import judge_overhead, overhead, per_scenario, table

SCENARIO_NAMES = ("report", "vector_add", "restore", "two_kernels")
EXIT_SKIPPED = 3


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="safetune-triton drive", description=__doc__.split("\n\n")[0]
    )
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
        "--overhead", action="store_true", help="then time runs with and without the recorder"
    )
    parser.add_argument(
        "--pairs", type=int, default=9, help="--overhead's pairs of runs per scenario (9)"
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
    args.bench_ms = parse_bench_ms(parser, args.bench_ms)
    if args.runs < 1 or args.pairs < 1 or (args.threads is not None and args.threads < 1):
        parser.error("--runs, --pairs and --threads must be at least 1")
    args.out = args.out or os.path.join(
        "build", "triton-stress", "fixed" if args.fix else "unfixed"
    )
    return args


def parse_bench_ms(parser, text):
    """--bench-ms WARMUP,REP as two positive numbers, or the parser's usage error."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 2 or min(values) <= 0:
        parser.error("--bench-ms wants two positive numbers, WARMUP,REP (e.g. 1,5)")
    return values


def import_gpu_side():
    """(torch, scenarios, workers), or why this machine cannot run them ("skipped: ...")."""
    try:
        import torch
        import triton  # noqa: F401
    except Exception as error:  # ImportError, or a broken install failing as it loads
        return "skipped: triton not importable ({})".format(describe(error))
    if not torch.cuda.is_available():
        return "skipped: torch sees no CUDA device"
    # From here on, a failure is the driver's, not a missing Triton.
    from . import scenarios, workers

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


class Hung(Exception):
    """Threads of a run never ended: the process cannot join them, so it must exit."""


def timed_wall(scenario, args, bench, threads, workers, traced):
    """One run for --overhead, with the recorder or without (the fix alone with --fix): its wall."""
    kernels = scenario.build(bench)
    gc.collect()  # before, not during: a collection would fall in one half of a pair only
    if traced:
        with Recorder(fix=args.fix) as recorder:
            outcome = workers.run_threads(scenario, kernels, threads, recorder)
    else:
        fix = SingleFlightFix().install() if args.fix else None
        try:
            outcome = workers.run_threads(scenario, kernels, threads)
        finally:
            if fix:
                fix.uninstall()
    if outcome["hung_threads"]:
        raise Hung(
            "{} thread(s) hung in {} ({} the recorder)".format(
                outcome["hung_threads"], scenario.name, "with" if traced else "without"
            )
        )
    return outcome["wall_s"]


def measure_overhead(chosen, args, bench, workers):
    """--overhead's pairs (results.overhead reads them), interleaved as the docstring says."""
    pairs = []
    for pair in range(1, args.pairs + 1):
        traced_first = pair % 2 == 1
        walls = []
        for scenario in chosen:
            threads = args.threads or scenario.threads
            wall = {}
            for traced in (True, False) if traced_first else (False, True):
                wall[traced] = timed_wall(scenario, args, bench, threads, workers, traced)
            pairs.append(
                {
                    "scenario": scenario.name,
                    "pair": pair,
                    "traced_first": traced_first,
                    "traced_s": wall[True],
                    "untraced_s": wall[False],
                }
            )
            walls.append(
                "{} {}/{}".format(scenario.name, _seconds(wall[True]), _seconds(wall[False]))
            )
        print(
            "overhead pair {}/{}, wall s with/without the recorder: {}".format(
                pair, args.pairs, ", ".join(walls)
            ),
            flush=True,
        )
    return pairs


def _seconds(wall):
    return "-" if wall is None else "{:.3f}".format(wall)


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
    # Triton's disk cache of tuning results would let every run after the first load its keys
    # (the recorder records those loads) instead of tuning them: these scenarios are about the
    # tuning, in one process, so every run must tune.
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
    pairs = []
    if args.overhead:
        try:
            pairs = measure_overhead(chosen, args, bench, workers)
        except Hung as hung:
            print("driver: {}; stopping".format(hung))
            finish(results, args, pairs)
            os._exit(1)  # hung threads cannot be joined
    return finish(results, args, pairs)


def run_all(chosen, args, bench, workers, safetune):
    results = []
    print(table([]))
    for run in range(1, args.runs + 1):
        for scenario in chosen:
            threads = args.threads or scenario.threads
            result = traced_run(scenario, run, args, bench, threads, workers, safetune)
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


def finish(results, args, pairs=()):
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as out:
        json.dump(
            {
                "fix": args.fix,
                "triton": triton_version(),
                "bench_ms": args.bench_ms,
                "results": results,
                "overhead_pairs": list(pairs),
                "overhead": overhead(pairs),
            },
            out,
            indent=1,
        )
    print("\n" + table(results) + "\n")
    for line in per_scenario(results):
        print(line)
    if pairs:
        print(judge_overhead(pairs)[1])
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


def run(argv=None):
    """main(), as a command: its exit status, and a one-line message on an unexpected error."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a recorder mismatch, a CUDA failure: say it in one line
        print("driver: " + describe(error), file=sys.stderr)
        raise
