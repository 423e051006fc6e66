"""Triton across processes (issue 17): the processes of one machine on one cold key, judged as one
run by a multi-file `safetune check`.

    python3 -m safetune_triton.driver.processes OUT [--processes 8] [--threads 4]
                                                [--safetune PATH] [--bench-ms 1,5]

Two modes, each run twice (generation 1 on a cold store, generation 2 on what the first left):
- unfixed: Triton as its users run it with its disk cache on (cache_results=True), recorded;
- fixed: the fix with a results store (SingleFlightFix(store=...)), recorded.
Each generation starts --processes worker processes at once (each this module with --child), each
running --threads threads on their own streams (workers.run_threads) of the CrossProcess scenario
(scenarios.py: add_kernel, 100 configs, key n), and writes one trace per process. Before them, one
untimed pass compiles every config (TRITON_CACHE_DIR is OUT/triton-cache, shared), with no
autotuner, so that no tuning result is cached and the generations time tuning, not compiling.

It writes OUT/MODE/genG-pN.jsonl (and the process's standard error, .stderr), OUT/MODE/genG.check.txt
and OUT/summary.json, and prints one line
per mode and generation, then one line of the figures. Exit status: 0 when the claims hold (the
unfixed first generation is flagged, R2 or R3; the fixed one tunes once and passes; the fixed second
generation benches nothing and passes; every fixed call returns and computes x + y); 1 when one
does not; 2 a usage error; 3 skipped (no Triton, torch or GPU: the last line says why).
"""

import argparse
import json
import os
import subprocess
import sys

from ..checker import check, find_safetune
from ..recorder import Recorder
from .main import EXIT_SKIPPED, import_gpu_side, make_bench, parse_bench_ms

MODES = ("unfixed", "fixed")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python3 -m safetune_triton.driver.processes")
    parser.add_argument("out", help="results folder")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--safetune", help="the safetune binary (as the driver finds it)")
    parser.add_argument("--bench-ms", default="1,5", help="do_bench warm-up,repetition ms (1,5)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # a worker: its trace file
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.processes < 1 or args.threads < 1:
        parser.error("--processes and --threads must be at least 1")
    args.bench_ms = parse_bench_ms(parser, args.bench_ms)
    return args


def child(args, gpu_side):
    """One worker process: its threads' calls, recorded into args.child; prints its outcome."""
    _, scenarios, workers = gpu_side
    scenario = scenarios.CrossProcess()
    fixed = args.mode == "fixed"
    kernels = scenario.build(make_bench(*args.bench_ms), cache_results=not fixed)
    store = os.path.join(args.out, "fixed", "store") if fixed else None
    with Recorder(fix=fixed, store=store) as recorder:
        outcome = workers.run_threads(scenario, kernels, args.threads, recorder)
    recorder.write(args.child)
    print(json.dumps(outcome))
    return 0


def generation(args, mode, number):
    """Starts the generation's processes at once; (trace files, their outcomes)."""
    folder = os.path.join(args.out, mode)
    traces = [
        os.path.join(folder, "gen{}-p{}.jsonl".format(number, p))
        for p in range(1, args.processes + 1)
    ]
    bench_ms = ",".join(map(str, args.bench_ms))
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "safetune_triton.driver.processes", args.out, "--child", trace]
            + ["--mode", mode, "--threads", str(args.threads), "--bench-ms", bench_ms],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for trace in traces
    ]
    outcomes = []
    for trace, worker in zip(traces, workers):
        out, err = worker.communicate(timeout=900)
        with open(trace[: -len(".jsonl")] + ".stderr", "w", encoding="utf-8") as log:
            log.write(err)  # the store's warnings, if any: why a process tuned on its own
        lines = out.splitlines()
        outcome = json.loads(lines[-1]) if worker.returncode == 0 and lines else None
        outcomes.append(outcome or {"exit": worker.returncode, "stderr": err[-2000:]})
    return traces, outcomes


def judged(args, mode, number, safetune):
    traces, outcomes = generation(args, mode, number)
    crashed = [o for o in outcomes if "exit" in o]
    report = os.path.join(args.out, mode, "gen{}.check.txt".format(number))
    verdict = check(safetune, [t for t in traces if os.path.exists(t)], report)
    stats = verdict.get("stats", {})
    return {
        "mode": mode,
        "generation": number,
        "processes": args.processes,
        "threads": args.threads,
        "crashed": crashed,
        "failed_calls": sum(len(o.get("failed_calls", [])) for o in outcomes),
        "wrong_results": sum(len(o.get("wrong_results", [])) for o in outcomes),
        "hung_threads": sum(o.get("hung_threads", 0) for o in outcomes),
        "verdict": verdict["verdict"],
        "exit": verdict["exit"],
        "rules": verdict["rules"],
        "tunings": stats.get("successful_tunings"),
        "duplicates": stats.get("duplicate_tunings"),
        "benches": stats.get("benches"),
    }


def line(result):
    fields = dict(
        result, rules=",".join(result["rules"]) or "none", crashed=len(result["crashed"])
    )
    return (
        "{mode} generation {generation} ({processes} x {threads} threads): {verdict}, "
        "tunings {tunings}, duplicates {duplicates}, benches {benches}, rules {rules}, "
        "failed calls {failed_calls}, wrong results {wrong_results}, crashed {crashed}"
    ).format(**fields)


def claims(results):
    """(all hold, [one line per claim]) over the results of MODES x generations 1 and 2."""
    by = {(r["mode"], r["generation"]): r for r in results}
    unfixed, fixed, again = by[("unfixed", 1)], by[("fixed", 1)], by[("fixed", 2)]
    right = all(
        not (r["crashed"] or r["failed_calls"] or r["wrong_results"] or r["hung_threads"])
        for r in (fixed, again)
    )
    checks = [
        (
            unfixed["exit"] == 1 and bool({"R2", "R3"} & set(unfixed["rules"])),
            "unfixed Triton with its disk cache: {} tunings, flagged {}".format(
                unfixed["tunings"], ",".join(unfixed["rules"]) or "by nothing"
            ),
        ),
        (
            fixed["exit"] == 0 and fixed["tunings"] == 1 and fixed["duplicates"] == 0,
            "fixed: {} tuning(s) on the machine, {}".format(fixed["tunings"], fixed["verdict"]),
        ),
        (
            again["exit"] == 0 and again["benches"] == 0,
            "fixed, second run: {} benches, {}".format(again["benches"], again["verdict"]),
        ),
        (
            right,
            "fixed: every call returned and computed x + y"
            if right
            else "fixed: calls failed, hung, crashed or computed wrong results",
        ),
    ]
    return all(ok for ok, _ in checks), [text for _, text in checks]


def main(argv=None):
    args = parse_args(argv)
    gpu_side = import_gpu_side()
    if isinstance(gpu_side, str):
        print(gpu_side)
        return EXIT_SKIPPED
    if args.child:
        return child(args, gpu_side)
    try:
        safetune = find_safetune(args.safetune)
    except ValueError as error:
        print("processes: " + str(error), file=sys.stderr)
        return 2
    for mode in MODES:
        os.makedirs(os.path.join(args.out, mode), exist_ok=True)
    # One cache of compiled kernels for the warm-up here and every worker (which inherit this
    # environment); each mode says itself whether Triton caches tuning results.
    os.environ["TRITON_CACHE_DIR"] = os.path.abspath(os.path.join(args.out, "triton-cache"))
    os.environ.pop("TRITON_CACHE_AUTOTUNING", None)
    _, scenarios, _ = gpu_side
    scenarios.CrossProcess().warm_up()
    results = []
    for mode in MODES:
        for number in (1, 2):
            results.append(judged(args, mode, number, safetune))
            print(line(results[-1]), flush=True)
    holds, texts = claims(results)
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as out:
        json.dump({"results": results, "claims": texts, "holds": holds}, out, indent=1)
    print("; ".join(texts))
    return 0 if holds else 1


if __name__ == "__main__":
    sys.exit(main())
