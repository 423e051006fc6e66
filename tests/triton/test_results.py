"""The driver's summary and run_gpu.py's judgement (stress/triton/results.py), on made-up runs."""

import unittest

import harness  # noqa: F401  (puts stress/triton on sys.path)
from results import judge_fixed, judge_overhead, judge_unfixed, overhead, per_scenario, table


def run(
    scenario="report",
    number=1,
    exit=0,
    rules=(),
    attempts=1,
    keys=1,
    failed=0,
    wall=1.0,
    untraced=None,
):
    return {
        "scenario": scenario,
        "run": number,
        "keys": keys,
        "wall_s": wall,
        "wall_untraced_s": untraced,
        "failed_calls": ["TypeError: x"] * failed,
        "wrong_results": [],
        "hung_threads": 0,
        "check": {
            "exit": exit,
            "verdict": {0: "pass", 1: "fail"}[exit],
            "rules": list(rules),
            "stats": {
                "calls": 10,
                "attempts": attempts,
                "successful_tunings": min(attempts, keys),
                "benches": 100 * attempts,
                "duplicate_tunings": attempts - 1,
                "failed_benches": 0,
            },
        },
    }


class ResultsTest(unittest.TestCase):
    def test_unfixed_holds_when_every_report_run_fails_with_r2_or_r3(self):
        runs = [run(number=i, exit=1, rules=("R2", "R4"), attempts=10, failed=9) for i in (1, 2)]
        holds, line = judge_unfixed(runs + [run("vector_add")])
        self.assertTrue(holds)
        self.assertEqual(
            line,
            "unfixed report: 2/2 runs fail with R2/R3 (rules R2,R4); attempts 10,10; "
            "benches 1000,1000; failed calls 9,9",
        )

    def test_unfixed_does_not_hold_when_a_run_passes_or_breaks_other_rules_only(self):
        self.assertFalse(judge_unfixed([run(exit=1, rules=("R2",)), run(number=2)])[0])
        self.assertFalse(judge_unfixed([run(exit=1, rules=("R4",))])[0])
        self.assertFalse(judge_unfixed([])[0])

    def test_fixed_needs_a_pass_and_one_successful_attempt_per_key(self):
        self.assertTrue(judge_fixed([run(), run("vector_add", attempts=4, keys=4)])[0])
        holds, line = judge_fixed([run(), run("vector_add", attempts=5, keys=4)])
        self.assertFalse(holds)
        self.assertEqual(
            line, "fixed: 1/2 runs pass with one attempt per key (not: vector_add run 1)"
        )
        self.assertFalse(judge_fixed([run(failed=1)])[0])

    def test_overhead_compares_median_walls(self):
        runs = [
            run(number=i, wall=w, untraced=u)
            for i, (w, u) in enumerate([(1.08, 1.0), (2.0, 1.0), (1.05, 1.0)])
        ]
        self.assertAlmostEqual(overhead(runs)["report"], 0.08)
        self.assertAlmostEqual(overhead(runs)["total"], 0.08)
        self.assertTrue(judge_overhead(runs)[0])
        self.assertFalse(judge_overhead([run(wall=1.2, untraced=1.0)])[0])
        self.assertEqual(judge_overhead([run()]), (False, "recorder overhead: not measured"))

    def test_table_and_per_scenario_lines(self):
        runs = [run(exit=1, rules=("R2", "R3"), attempts=10, failed=9)]
        self.assertEqual(
            table(runs).splitlines()[1].split(),
            ["report", "1", "10", "9", "0", "1", "10", "9", "1000", "0", "fail", "R2,R3", "1.00"],
        )
        self.assertEqual(
            per_scenario(runs),
            [
                "report: 0/1 pass; rules R2,R3; attempts 10; benches 1000; "
                "failed calls 9; wrong results 0"
            ],
        )


if __name__ == "__main__":
    unittest.main()
