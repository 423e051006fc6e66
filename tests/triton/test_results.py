"""The driver's summary and run_gpu's judgement (safetune_triton/driver/results.py), on made-up
runs."""

import unittest

from safetune_triton.driver.results import (
    judge_fixed,
    judge_overhead,
    judge_unfixed,
    overhead,
    per_scenario,
    table,
)


def run(
    scenario="report",
    number=1,
    exit=0,
    rules=(),
    attempts=1,
    keys=1,
    failed=0,
    wall=1.0,
):
    return {
        "scenario": scenario,
        "run": number,
        "keys": keys,
        "wall_s": wall,
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


def pair(scenario, number, traced, untraced):
    return {
        "scenario": scenario,
        "pair": number,
        "traced_first": number % 2 == 1,
        "traced_s": traced,
        "untraced_s": untraced,
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

    def test_overhead_is_the_median_of_the_per_pair_ratios(self):
        # Drift: the machine slows down over the pairs, and one pair is hit by noise on one side.
        # Medians of each side's walls would give 1.4 / 1.2 - 1 = +16.7%; the pairs say +5%.
        pairs = [
            pair("report", i, w, u)
            for i, (w, u) in enumerate(
                [(1.05, 1.0), (1.26, 1.2), (3.0, 1.4), (1.68, 1.6), (1.89, 1.8)], 1
            )
        ]
        self.assertAlmostEqual(overhead(pairs)["report"], 0.05)
        self.assertAlmostEqual(overhead(pairs)["total"], 0.05)

    def test_the_total_sums_each_pair_over_the_scenarios_that_all_completed_it(self):
        pairs = [
            pair("report", 1, 1.1, 1.0),
            pair("restore", 1, 0.2, 0.1),  # pair 1: 1.3 / 1.1
            pair("report", 2, 1.0, 1.0),
            pair("restore", 2, 0.1, 0.1),  # pair 2: 1.0
            pair("report", 3, 1.2, 1.0),
            pair("restore", 3, None, 0.1),  # pair 3: no wall with the recorder, left out
        ]
        costs = overhead(pairs)
        self.assertAlmostEqual(costs["report"], 0.1)
        self.assertAlmostEqual(costs["restore"], 0.5)
        self.assertAlmostEqual(costs["total"], (1.3 / 1.1 + 1.0) / 2 - 1)
        self.assertEqual(overhead([pair("report", 1, 1.0, None)]), {})

    def test_overhead_holds_only_when_every_scenario_and_the_total_are_within_the_limit(self):
        within = [pair(s, i, 1.05, 1.0) for i in (1, 2, 3) for s in ("report", "two_kernels")]
        self.assertEqual(
            judge_overhead(within),
            (
                True,
                "recorder overhead report +5.0%, two_kernels +5.0%, total +5.0% (limit 10% per "
                "scenario and total, median of 3 interleaved pairs with/without)",
            ),
        )
        # A small scenario over the limit fails the claim, though the total is within it.
        mixed = [pair("report", i, 10.2, 10.0) for i in (1, 2, 3)]
        mixed += [pair("two_kernels", i, 0.113, 0.1) for i in (1, 2)]
        holds, line = judge_overhead(mixed)
        self.assertFalse(holds)
        self.assertRegex(line, r"two_kernels \+13.0%, total \+\d.\d%")
        self.assertIn("median of 2-3 interleaved pairs", line)
        self.assertTrue(line.endswith(", over the limit: two_kernels"), line)
        self.assertEqual(judge_overhead([]), (False, "recorder overhead: not measured"))

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
