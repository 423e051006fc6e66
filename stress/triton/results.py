"""The driver's results: one dict per traced run, the summary table, the overhead, the verdicts.

A run's result (the driver makes them; summary.json holds the list) has: scenario, run, fix,
threads, keys (distinct kernel/key pairs called), wall_s, wall_untraced_s (None without
--overhead), failed_calls and wrong_results (message lists), hung_threads, trace, and check
(safetune_check.check's dict, its violation list cut to the first of each rule).

Pure functions of those dicts, so that run_gpu.py's judgement is tested without a GPU:
- table(results): the text table, one row per run;
- per_scenario(results): one line per scenario over its runs;
- overhead(results): the recorder's cost, median wall with / median wall without - 1;
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


def overhead(results):
    """{scenario: fraction} and "total", from runs with both walls; {} when there are none."""
    timed = [r for r in results if r["wall_s"] is not None and r.get("wall_untraced_s") is not None]
    costs, traced_total, untraced_total = {}, 0.0, 0.0
    for name, runs in _by_scenario(timed).items():
        traced = statistics.median(r["wall_s"] for r in runs)
        untraced = statistics.median(r["wall_untraced_s"] for r in runs)
        costs[name] = traced / untraced - 1.0
        traced_total += traced
        untraced_total += untraced
    if costs:
        costs["total"] = traced_total / untraced_total - 1.0
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


def judge_overhead(results, limit=0.10):
    costs = overhead(results)
    if "total" not in costs:
        return False, "recorder overhead: not measured"
    parts = ", ".join("{} {:+.1%}".format(name, cost) for name, cost in costs.items())
    return costs["total"] <= limit, "recorder overhead {} (limit {:.0%})".format(parts, limit)
