"""The driver's results: one dict per traced run, the summary table, the overhead, the verdicts.

A run's result (the driver makes them; summary.json's "results" holds the list) has: scenario,
run, fix, threads, keys (distinct kernel/key pairs called), wall_s, failed_calls and wrong_results
(message lists), hung_threads, trace, and check (checker.check's dict, its violation list
cut to the first of each rule).

An overhead pair (the driver's --overhead; summary.json's "overhead_pairs") is one run of a scenario
with the recorder and one without, back to back: scenario, pair (1, 2, ...), traced_first,
traced_s and untraced_s (wall times; None when no thread ended).

Pure functions of those dicts, so that run_gpu's judgement is tested without a GPU:
- table(results): the text table, one row per run;
- per_scenario(results): one line per scenario over its runs;
- overhead(pairs): the recorder's cost, a median of per-pair ratios (see there);
- judge_unfixed, judge_fixed, judge_overhead: (ok, one line of figures) for issue 6's claims.
"""

import statistics

COLUMNS = (
    "scenario",
    "run",
    "calls",
    "failed",
    "wrong",
    "keys",
    "attempts",
    "dup",
    "benches",
    "bad_benches",
    "verdict",
    "rules",
    "wall_s",
)
# Wide enough for every scenario name and most rule lists, so that rows printed one at a time
# (as runs end) line up with the header.
MIN_WIDTHS = {"scenario": 11, "benches": 7, "verdict": 11, "rules": 17}


def stats(result):
    return result["check"].get("stats", {})


def row(result):
    s = stats(result)
    return {
        "scenario": result["scenario"],
        "run": result["run"],
        "calls": s.get("calls", "-"),
        "failed": len(result["failed_calls"]),
        "wrong": len(result["wrong_results"]),
        "keys": result["keys"],
        "attempts": s.get("attempts", "-"),
        "dup": s.get("duplicate_tunings", "-"),
        "benches": s.get("benches", "-"),
        "bad_benches": s.get("failed_benches", "-"),
        "verdict": result["check"]["verdict"],
        "rules": ",".join(result["check"]["rules"]) or "-",
        "wall_s": "-" if result["wall_s"] is None else "{:.2f}".format(result["wall_s"]),
    }


def table(results):
    rows = [COLUMNS] + [tuple(str(row(r)[c]) for c in COLUMNS) for r in results]
    widths = [
        max([MIN_WIDTHS.get(c, 0)] + [len(line[i]) for line in rows]) for i, c in enumerate(COLUMNS)
    ]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in rows
    )


def _by_scenario(results):
    grouped = {}
    for result in results:
        grouped.setdefault(result["scenario"], []).append(result)
    return grouped


def per_scenario(results):
    lines = []
    for name, runs in _by_scenario(results).items():
        verdicts = [r["check"]["verdict"] for r in runs]
        rules = sorted({rule for r in runs for rule in r["check"]["rules"]})
        lines.append(
            "{}: {}/{} pass; rules {}; attempts {}; benches {}; failed calls {}; wrong "
            "results {}".format(
                name,
                verdicts.count("pass"),
                len(runs),
                ",".join(rules) or "none",
                _series(runs, "attempts"),
                _series(runs, "benches"),
                ",".join(str(len(r["failed_calls"])) for r in runs),
                ",".join(str(len(r["wrong_results"])) for r in runs),
            )
        )
    return lines


def _series(runs, field):
    return ",".join(str(stats(r).get(field, "-")) for r in runs)


def overhead(pairs):
    """{scenario: cost} and "total": the recorder's cost as a fraction of the wall time.

    Each pair gives a ratio, wall with / wall without; a scenario's cost is the median of its
    pairs' ratios - 1. The two halves of a pair run back to back, so drift on the machine (clocks,
    other load) hits both, and the median drops the odd pair that noise hit on one side only.
    The total does the same over whole pairs: pair i's ratio is the sum of its scenarios' walls
    with / without, over the pair numbers that every scenario completed. Pairs with a missing or
    zero wall are left out; {} when no pair is left."""
    timed = [p for p in pairs if p["traced_s"] and p["untraced_s"]]
    costs = {}
    for name, group in _by_scenario(timed).items():
        costs[name] = statistics.median(p["traced_s"] / p["untraced_s"] for p in group) - 1.0
    by_pair = {}
    for p in timed:
        by_pair.setdefault(p["pair"], []).append(p)
    totals = [
        sum(p["traced_s"] for p in group) / sum(p["untraced_s"] for p in group)
        for group in by_pair.values()
        if {p["scenario"] for p in group} == set(costs)
    ]
    if totals:
        costs["total"] = statistics.median(totals) - 1.0
    return costs


def judge_unfixed(results):
    """Unfixed Triton on the report scenario: every run fails, naming R2 or R3."""
    runs = [r for r in results if r["scenario"] == "report"]
    caught = [
        r for r in runs if r["check"]["exit"] == 1 and {"R2", "R3"} & set(r["check"]["rules"])
    ]
    rules = sorted({rule for r in runs for rule in r["check"]["rules"]})
    line = (
        "unfixed report: {}/{} runs fail with R2/R3 (rules {}); attempts {}; benches {}; failed "
        "calls {}".format(
            len(caught),
            len(runs),
            ",".join(rules) or "none",
            _series(runs, "attempts"),
            _series(runs, "benches"),
            ",".join(str(len(r["failed_calls"])) for r in runs),
        )
    )
    return bool(runs) and len(caught) == len(runs), line


def _one_attempt_per_key(result):
    s = stats(result)
    return s.get("attempts") == result["keys"] == s.get("successful_tunings")


def judge_fixed(results):
    """With the fix: every run of every scenario passes, one attempt per key, every result right."""
    good = [
        r
        for r in results
        if r["check"]["exit"] == 0
        and _one_attempt_per_key(r)
        and not r["failed_calls"]
        and not r["wrong_results"]
        and not r["hung_threads"]
    ]
    bad = sorted({"{} run {}".format(r["scenario"], r["run"]) for r in results if r not in good})
    line = "fixed: {}/{} runs pass with one attempt per key".format(len(good), len(results))
    if bad:
        line += " (not: {})".format(", ".join(bad))
    return bool(results) and not bad, line


def judge_overhead(pairs, limit=0.10):
    """The recorder adds at most `limit` to each scenario's wall time, and to the total."""
    costs = overhead(pairs)
    if "total" not in costs:
        return False, "recorder overhead: not measured"
    timed = [p for p in pairs if p["traced_s"] and p["untraced_s"]]
    counts = sorted({len(group) for group in _by_scenario(timed).values()})
    count = str(counts[0]) if len(counts) == 1 else "{}-{}".format(counts[0], counts[-1])
    over = [name for name, cost in costs.items() if cost > limit]
    line = (
        "recorder overhead {} (limit {:.0%} per scenario and total, median of {} interleaved "
        "pairs with/without)".format(
            ", ".join("{} {:+.1%}".format(name, cost) for name, cost in costs.items()),
            limit,
            count,
        )
    )
    if over:
        line += ", over the limit: " + ", ".join(over)
    return not over, line
