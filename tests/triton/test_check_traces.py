"""Traces the recorder writes of the stand-in, judged by the real `safetune check` binary.

Racing unfixed threads must fail with R2 or R3; the same programs with the fix must pass. The
binary comes from $SAFETUNE_BINARY (ctest sets it to the build's safetune)."""

import json
import os
import tempfile
import unittest
from unittest import mock

from harness import fresh_autotuner_class, run_together, safetune_binary, safetune_check
from safetune_triton.recorder import Recorder
from standin_autotuner import StandinKernel, block_configs


class CheckTracesTest(unittest.TestCase):
    def setUp(self):
        self.cls = fresh_autotuner_class()
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def tuner(self, name, blocks, key=("n",)):
        kernel = StandinKernel(name=name, bench_sleep_s=0.001)
        return self.cls(kernel, kernel.arg_names, block_configs(blocks), list(key))

    def check(self, fix, threads, body, *flags):
        """Records body(i) on racing threads and runs `safetune check` on the trace."""
        recorder = Recorder(fix=fix).install(self.cls)
        try:
            run_together(threads, body)
        finally:
            recorder.uninstall()
        path = os.path.join(self.dir.name, "trace.jsonl")
        recorder.write(path)
        return safetune_check(path, *flags)

    def report_scenario(self, fix):
        """The Triton report's shape: one kernel, key=[], 10 threads, one call each."""
        tuner = self.tuner("empty", range(1, 21), key=())
        return self.check(fix, 10, lambda i: tuner.run([0], 1, grid=(1,)), "--json")

    def test_unfixed_racing_threads_break_exclusive_or_single_tuning(self):
        result = self.report_scenario(fix=False)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        report = json.loads(result.stdout)
        self.assertEqual(report["verdict"], "fail")
        self.assertTrue(
            {"R2", "R3"} & {v["rule"] for v in report["violations"]}, report["violations"]
        )
        self.assertGreater(report["stats"]["attempts"], 1)

    def test_the_fix_makes_the_report_scenario_pass_with_one_attempt(self):
        result = self.report_scenario(fix=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        stats = json.loads(result.stdout)["stats"]
        self.assertEqual((stats["attempts"], stats["benches"], stats["errors"]), (1, 20, 0))

    def test_the_fix_passes_several_keys_and_two_kernels_from_the_same_threads(self):
        add, scale = self.tuner("add", (64, 128, 256)), self.tuner("scale", (32, 64))

        def calls(i):
            for j in range(4):
                add.run([0], 1 << ((i + j) % 4), grid=(1,))
                scale.run([0], 1 << ((i + 2 * j) % 3), grid=(1,))

        result = self.check(True, 8, calls, "--json")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        stats = json.loads(result.stdout)["stats"]
        self.assertEqual((stats["attempts"], stats["calls"], stats["errors"]), (4 + 3, 64, 0))

    def test_the_text_report_names_the_rule_and_a_chrome_trace_is_written(self):
        tuner = self.tuner("empty", range(1, 9), key=())
        chrome = os.path.join(self.dir.name, "trace.chrome.json")
        result = self.check(False, 6, lambda i: tuner.run([0], 1, grid=(1,)), "--chrome", chrome)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertRegex(result.stdout, r"VIOLATION R[23] ")
        with open(chrome, encoding="utf-8") as timeline:
            self.assertIn("traceEvents", json.load(timeline))

    def test_a_final_launch_that_raises_passes_as_a_launch_failed(self):
        kernel = StandinKernel(name="one", fail={64: RuntimeError}, bench_sleep_s=0.001)
        tuner = self.cls(kernel, kernel.arg_names, block_configs((64,)), ["n"])
        result = self.check(True, 4, lambda i: tuner.run([0], 1 << i, grid=(1,)), "--json")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(json.loads(result.stdout)["stats"]["errors"], 4)


class BinaryVariableTest(unittest.TestCase):
    """The suite fails, rather than skips, when it cannot run the binary it judges with."""

    def test_an_unset_variable_fails(self):
        with mock.patch.dict(os.environ, clear=True):
            with self.assertRaisesRegex(AssertionError, "SAFETUNE_BINARY is not set"):
                safetune_binary()

    def test_a_variable_naming_no_runnable_file_fails(self):
        with tempfile.NamedTemporaryFile() as not_executable:
            for path in (not_executable.name, not_executable.name + ".missing"):
                with mock.patch.dict(os.environ, {"SAFETUNE_BINARY": path}):
                    with self.assertRaisesRegex(AssertionError, "is not a runnable file"):
                        safetune_binary()


if __name__ == "__main__":
    unittest.main()
