"""The driver (safetune_triton.driver) and run_gpu end to end, on fake torch and triton (fake_gpu/).

The fakes run the real driver, scenarios, recorder, fix and `safetune check` over the stand-in
autotuner: this tests the plumbing that ci/gpu relies on (files, exit codes, the summary line),
not Triton."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from harness import REPO, safetune_binary

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_SOURCE = os.path.join(REPO, "stress", "triton")


def python(module, *args, fake_gpu=True):
    """python3 -m safetune_triton.driver.MODULE ARGS, from the package's source."""
    path = ([os.path.join(HERE, "fake_gpu"), HERE] if fake_gpu else []) + [PACKAGE_SOURCE]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    return subprocess.run(
        [sys.executable, "-m", "safetune_triton.driver" + module, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


class DriverUsageTest(unittest.TestCase):
    def test_an_unknown_scenario_is_a_usage_error(self):
        result = python("", "--scenarios", "report,matmul")
        self.assertEqual(result.returncode, 2)
        self.assertIn("unknown scenario(s) ['matmul']", result.stderr)

    def test_without_torch_and_triton_run_gpu_says_skipped(self):
        try:
            import torch  # noqa: F401

            self.skipTest("torch is installed here")
        except ImportError:
            pass
        with tempfile.TemporaryDirectory() as out:
            result = python(".run_gpu", out, "--safetune", sys.executable, fake_gpu=False)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertRegex(result.stdout.splitlines()[-1], r"^skipped: triton not importable \(")


class RunGpuOnFakesTest(unittest.TestCase):
    def test_unfixed_fails_fixed_passes_and_every_output_is_written(self):
        with tempfile.TemporaryDirectory() as out:
            result = python(
                ".run_gpu", out, "--runs", "2", "--pairs", "3", "--safetune", safetune_binary()
            )
            lines = result.stdout.splitlines()
            self.assertIn(result.returncode, (0, 1), result.stdout + result.stderr)
            self.assertRegex(lines[0], r"^unfixed report: 2/2 runs fail with R2/R3 ")
            self.assertEqual(lines[1], "fixed: 8/8 runs pass with one attempt per key")
            self.assertRegex(lines[2], r"^recorder overhead report [+-]")
            self.assertIn(
                "(limit 10% per scenario and total, median of 3 interleaved pairs", lines[2]
            )
            self.assertEqual(lines[-1], "; ".join(lines[:3]))
            for mode in ("unfixed", "fixed"):
                files = set(os.listdir(os.path.join(out, mode)))
                self.assertLessEqual(
                    {
                        "summary.json",
                        "report-run1.jsonl",
                        "report-run1.check.txt",
                        "report-run1.chrome.json",
                        "two_kernels-run2.jsonl",
                    },
                    files,
                )
                self.assertTrue(os.path.exists(os.path.join(out, "driver-{}.log".format(mode))))
            with open(os.path.join(out, "fixed", "summary.json"), encoding="utf-8") as summary:
                summary = json.load(summary)
            self.assertEqual(len(summary["results"]), 8)
            pairs = summary["overhead_pairs"]
            self.assertEqual(len(pairs), 12)  # 3 pairs of each of the 4 scenarios
            self.assertEqual([p["traced_first"] for p in pairs[::4]], [True, False, True])
            self.assertEqual(
                [p["scenario"] for p in pairs[:4]],
                ["report", "vector_add", "restore", "two_kernels"],
            )
            with open(os.path.join(out, "driver-fixed.log"), encoding="utf-8") as log:
                self.assertIn(
                    "overhead pair 3/3, wall s with/without the recorder: report ", log.read()
                )


class ProcessesOnFakesTest(unittest.TestCase):
    def test_unfixed_processes_are_flagged_and_fixed_ones_tune_once_then_never(self):
        with tempfile.TemporaryDirectory() as out:
            result = python(
                ".processes", out, "--processes", "3", "--threads", "2", "--safetune", safetune_binary()
            )
            lines = result.stdout.splitlines()
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            # Duplicate tuning is R2 or R3 among the rules, which are sorted as text ("R12,R2,R4"):
            # the unfixed threads also overlap within a process (R4) and their loads disagree (R12).
            self.assertRegex(lines[0], r"^unfixed generation 1 \(3 x 2 threads\): fail, .*rules (\S+,)?R[23]\b")
            self.assertRegex(lines[2], r"^fixed generation 1 .*: pass, tunings 1, duplicates 0, benches 100,")
            self.assertRegex(lines[3], r"^fixed generation 2 .*: pass, tunings 0, duplicates 0, benches 0,")
            self.assertIn("fixed: every call returned and computed x + y", lines[-1])
            files = set(os.listdir(os.path.join(out, "fixed")))
            self.assertLessEqual({"gen1-p1.jsonl", "gen2-p3.jsonl", "gen1.check.txt", "store"}, files)
            with open(os.path.join(out, "summary.json"), encoding="utf-8") as summary:
                self.assertTrue(json.load(summary)["holds"])


if __name__ == "__main__":
    unittest.main()
