"""The fix (safetune_triton/fix.py) with real threads against the stand-in autotuner."""

import os
import tempfile
import threading
import unittest

from harness import fresh_autotuner_class, read_trace, run_together
from safetune_triton.fix import ReentrantTuning, SingleFlightFix, TuningFailed
from safetune_triton.recorder import Recorder
from standin_autotuner import Cell, Config, StandinKernel, block_configs

BLOCKS = (64, 128, 256, 512)


class FixTest(unittest.TestCase):
    def setUp(self):
        self.cls = fresh_autotuner_class()

    def tuner(self, kernel, configs=None, **options):
        return self.cls(
            kernel, kernel.arg_names, configs or block_configs(BLOCKS), ["n"], **options
        )

    def install(self, fix=True):
        patch = SingleFlightFix() if fix else None
        if patch:
            patch.install(self.cls)
            self.addCleanup(patch.uninstall)

    def recorded(self, fix, threads, body):
        """Runs body(i) on threads released together under a recorder; (outcomes, events)."""
        recorder = Recorder(fix=fix).install(self.cls)
        try:
            outcomes = run_together(threads, body)
        finally:
            recorder.uninstall()
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "trace.jsonl")
            recorder.write(path)
            return outcomes, read_trace(path)[1]

    def test_unfixed_threads_retune_and_crash_as_in_the_triton_report(self):
        kernel = StandinKernel(bench_sleep_s=0.005)
        tuner = self.tuner(kernel)
        outcomes, events = self.recorded(False, 10, lambda i: tuner.run([0], 4096, grid=(1,)))
        crashes = [o for o in outcomes if isinstance(o, TypeError)]
        self.assertTrue(crashes, "the stand-in should have Triton's nargs race")
        self.assertIn("'NoneType' object is not a mapping", str(crashes[0]))
        self.assertGreater(sum(e["event"] == "bench" for e in events), len(BLOCKS))

    def test_ten_threads_on_one_cold_key_tune_once_and_the_rest_wait(self):
        kernel = StandinKernel()
        tuner = self.tuner(kernel)
        outcomes, events = self.recorded(True, 10, lambda i: tuner.run([0], 4096, grid=(1,)))
        self.assertEqual(outcomes, [None] * 10)
        benches = [e for e in events if e["event"] == "bench"]
        self.assertEqual(len(benches), len(BLOCKS))
        self.assertEqual(len({e["thread"] for e in benches}), 1)
        owner = benches[0]["thread"]
        launches = {e["thread"]: e for e in events if e["event"] == "launch"}
        self.assertEqual(len(launches), 10)
        self.assertEqual({e["config"] for e in launches.values()}, {launches[owner]["config"]})
        waiters = [
            e["thread"]
            for e in events
            if e["event"] == "call_begin" and e["seq"] < benches[-1]["seq"] and e["thread"] != owner
        ]
        self.assertTrue(waiters)
        for thread in waiters:  # a call begun while the tuning was in flight waited for its end
            self.assertGreater(launches[thread]["seq"], launches[owner]["seq"])
        self.assertEqual(len(kernel.launches), len(BLOCKS) + 10)

    def test_different_keys_tune_at_the_same_time(self):
        # Each key's first bench waits until the other key's has begun: this only finishes (rather
        # than timing out) when two tunings can be in flight at once.
        started = {100: threading.Event(), 101: threading.Event()}
        met = []

        def meet(args):
            started[args["n"]].set()
            met.append(started[201 - args["n"]].wait(timeout=10))

        tuner = self.tuner(
            StandinKernel(), configs=[Config({"BLOCK": 64}, pre_hook=meet), Config({"BLOCK": 128})]
        )
        outcomes, events = self.recorded(True, 2, lambda i: tuner.run([0], 100 + i, grid=(1,)))
        self.assertEqual(outcomes, [None, None])
        self.assertTrue(met and all(met), "one key's tuning waited for the other's")
        self.assertEqual(
            sorted({e["key"] for e in events if e["event"] == "bench"}), ["n=100", "n=101"]
        )

    def test_a_failed_tuning_fails_its_waiters_and_a_later_call_tunes_again(self):
        self.install()
        # The owner fails at its second config, 200 ms in: by then the others are waiting on it.
        kernel = StandinKernel(fail={128: ValueError}, bench_sleep_s=0.2)
        tuner = self.tuner(kernel)
        outcomes = run_together(6, lambda i: tuner.run([0], 1, grid=(1,)))
        self.assertEqual(sum(isinstance(o, ValueError) for o in outcomes), 1)
        self.assertEqual(sum(isinstance(o, TuningFailed) for o in outcomes), 5)
        self.assertEqual(tuner.cache, {})
        with self.assertRaises(ValueError):  # the key went back to untuned: this call is an owner
            tuner.run([0], 1, grid=(1,))

    def test_a_call_on_the_key_from_the_tuning_thread_is_an_error_not_a_deadlock(self):
        self.install()
        holder = {}
        configs = [
            Config({"BLOCK": 64}, pre_hook=lambda args: holder["tuner"].run([0], 1, grid=(1,))),
            Config({"BLOCK": 128}),
        ]
        holder["tuner"] = self.tuner(StandinKernel(), configs=configs)
        with self.assertRaisesRegex(ReentrantTuning, r"add\[n=1\] was called again"):
            holder["tuner"].run([0], 1, grid=(1,))

    def test_restore_value_copies_are_per_thread(self):
        self.install()
        kernel = StandinKernel(increments=True)
        tuner = self.tuner(kernel, restore_value=["x"])
        data = [Cell(1000 * i) for i in range(8)]
        outcomes = run_together(8, lambda i: tuner.run(data[i], i % 4, grid=(1,)))
        self.assertEqual(outcomes, [None] * 8)
        self.assertEqual(
            [c.value for c in data], [1000 * i + 1 for i in range(8)]
        )  # restored, launched once

    def test_a_tie_on_the_median_goes_to_the_config_benched_first(self):
        times = {64: [1.0, 0.9, 1.1], 128: [1.0, 0.5, 1.1]}  # same median, lower p20 second
        unfixed = self.tuner(
            StandinKernel(time_ms=lambda kw: times[kw["BLOCK"]]), configs=block_configs(times)
        )
        unfixed.run([0], 1, grid=(1,))
        self.assertEqual(unfixed.best_config.kwargs, {"BLOCK": 128})
        self.install()
        fixed = self.tuner(
            StandinKernel(time_ms=lambda kw: times[kw["BLOCK"]]), configs=block_configs(times)
        )
        fixed.run([0], 1, grid=(1,))
        self.assertEqual(fixed.best_config.kwargs, {"BLOCK": 64})

    def test_uninstall_gives_back_the_shared_fields(self):
        fix = SingleFlightFix().install(self.cls)
        fix.uninstall()
        self.assertNotIn("nargs", self.cls.__dict__)
        self.assertNotIn("run", self.cls.__dict__)


if __name__ == "__main__":
    unittest.main()
