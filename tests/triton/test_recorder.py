"""The recorder's trace of the stand-in autotuner: header, events, order, seq, benches, launches."""

import os
import tempfile
import unittest

from harness import fresh_autotuner_class, read_trace, run_together
from safetune_triton.config_text import UNRECOGNISED_LAUNCH, config_text
from safetune_triton.recorder import Recorder, _Kernel
from standin_autotuner import Config, OutOfResources, StandinKernel, block_configs

BLOCKS = (64, 128, 256)
TEXT = {b: "BLOCK={},num_ctas=1,num_stages=3,num_warps=4".format(b) for b in BLOCKS}


class RecorderTest(unittest.TestCase):
    def setUp(self):
        self.cls = fresh_autotuner_class()
        self.recorder = Recorder().install(self.cls)
        self.addCleanup(self.recorder.uninstall)
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def tuner(self, kernel=None, configs=None, key=("n",), **options):
        kernel = kernel or StandinKernel()
        return self.cls(
            kernel, kernel.arg_names, configs or block_configs(BLOCKS), list(key), **options
        )

    def trace(self):
        path = os.path.join(self.dir.name, "trace.jsonl")
        self.recorder.write(path)
        return read_trace(path)

    def test_a_cold_call_records_begin_every_bench_the_launch_and_end(self):
        self.tuner().run([0], 4096, grid=(1,))
        header, events = self.trace()
        self.assertEqual(header["format"], "safetune-trace")
        self.assertEqual(header["version"], 1)
        self.assertFalse(header["white_box"])
        self.assertEqual(header["policy"], {"wait": "block", "reentry": "error"})
        self.assertEqual(header["configs"], {"add": [TEXT[b] for b in BLOCKS]})
        self.assertEqual(
            [e["event"] for e in events],
            ["call_begin", "bench", "bench", "bench", "launch", "call_end"],
        )
        self.assertEqual([e["seq"] for e in events], list(range(1, 7)))
        self.assertEqual(
            {(e["thread"], e["kernel"], e["key"]) for e in events}, {(1, "add", "n=4096")}
        )
        self.assertEqual([e["config"] for e in events[1:4]], [TEXT[b] for b in BLOCKS])
        self.assertEqual([e["time_ns"] for e in events[1:4]], [1.064e6, 1.128e6, 1.256e6])
        self.assertEqual(events[4]["config"], TEXT[64])
        self.assertEqual(events[5]["config"], TEXT[64])

    def test_a_tuned_call_launches_without_benching(self):
        tuner = self.tuner()
        tuner.run([0], 4096, grid=(1,))
        tuner.run([0], 4096, grid=(1,))
        _, events = self.trace()
        self.assertEqual([e["event"] for e in events[6:]], ["call_begin", "launch", "call_end"])

    def test_the_key_names_key_arguments_and_dtypes(self):
        class Tensor(list):
            dtype = "torch.float16"

        self.tuner().run(Tensor([0]), 1024, grid=(1,))
        _, events = self.trace()
        self.assertEqual(events[0]["key"], "n=1024,x.dtype=torch.float16")

    def test_a_config_timed_as_inf_is_a_failed_bench(self):
        kernel = StandinKernel(fail={64: OutOfResources})
        self.tuner(kernel).run([0], 8, grid=(1,))
        _, events = self.trace()
        self.assertIn("inf", events[1]["error"])
        self.assertNotIn("time_ns", events[1])
        self.assertEqual(events[-1]["config"], TEXT[128])

    def test_an_exception_from_bench_is_a_failed_bench_and_a_failed_call(self):
        kernel = StandinKernel(fail={128: ValueError})
        with self.assertRaises(ValueError):
            self.tuner(kernel).run([0], 8, grid=(1,))
        _, events = self.trace()
        self.assertEqual([e["event"] for e in events], ["call_begin", "bench", "bench", "call_end"])
        self.assertEqual(events[2]["error"], "ValueError: config BLOCK=128 cannot launch")
        self.assertEqual(events[3]["error"], "ValueError: config BLOCK=128 cannot launch")

    def test_a_final_launch_that_raises_is_a_launch_failed_and_a_failed_call(self):
        kernel = StandinKernel(fail={64: RuntimeError})  # one config: Triton launches it unbenched
        with self.assertRaises(RuntimeError):
            self.tuner(kernel, configs=block_configs((64,))).run([0], 8, grid=(1,))
        _, events = self.trace()
        self.assertEqual([e["event"] for e in events], ["call_begin", "launch_failed", "call_end"])
        self.assertEqual(events[1]["config"], TEXT[64])
        self.assertEqual(events[1]["error"], "RuntimeError: config BLOCK=64 cannot launch")
        self.assertEqual(events[2]["error"], events[1]["error"])

    def test_seq_is_global_and_each_thread_nests_its_calls(self):
        tuner = self.tuner()

        def three_calls(i):  # unfixed, racing threads may crash: each call counts anyway
            for _ in range(3):
                try:
                    tuner.run([0], 1 << i, grid=(1,))
                except TypeError:
                    pass

        run_together(4, three_calls)
        _, events = self.trace()
        self.assertEqual([e["seq"] for e in events], list(range(1, len(events) + 1)))
        self.assertEqual({e["thread"] for e in events}, {1, 2, 3, 4})
        for thread in (1, 2, 3, 4):
            kinds = [e["event"] for e in events if e["thread"] == thread]
            self.assertEqual(kinds.count("call_begin"), 3)
            self.assertEqual(kinds[0], "call_begin")
            self.assertEqual(kinds[-1], "call_end")

    def test_set_stream_tags_the_threads_events(self):
        self.recorder.set_stream(7)
        self.tuner().run([0], 8, grid=(1,))
        _, events = self.trace()
        self.assertEqual({e["stream"] for e in events}, {7})

    def test_two_autotuners_of_one_function_get_two_names(self):
        kernel = StandinKernel()
        self.tuner(kernel).run([0], 8, grid=(1,))
        self.tuner(kernel).run([0], 8, grid=(1,))
        header, events = self.trace()
        self.assertEqual(sorted(header["configs"]), ["add", "add#2"])
        self.assertEqual(sorted({e["kernel"] for e in events}), ["add", "add#2"])

    def test_a_kernel_whose_configs_were_pruned_is_not_listed_in_the_header(self):
        prune = {"early_config_prune": lambda configs, nargs, **kw: configs[:2]}
        self.tuner(prune_configs_by=prune).run([0], 8, grid=(1,))
        header, events = self.trace()
        self.assertEqual(header["configs"], {})
        self.assertEqual([e["event"] for e in events].count("bench"), 2)

    def test_a_call_from_a_hook_nests_inside_the_bench_that_ran_the_hook(self):
        inner = self.tuner(StandinKernel(name="inner"), configs=block_configs((32,)))
        outer_configs = [
            Config({"BLOCK": 64}, pre_hook=lambda args: inner.run([0], 1, grid=(1,))),
            Config({"BLOCK": 128}),
        ]
        self.tuner(configs=outer_configs).run([0], 8, grid=(1,))
        _, events = self.trace()
        shown = [(e["kernel"], e["event"]) for e in events]
        self.assertEqual(
            shown[:6],
            [
                ("add", "call_begin"),
                ("inner", "call_begin"),
                ("inner", "launch"),
                ("inner", "call_end"),
                ("add", "bench"),
                ("add", "bench"),
            ],
        )
        self.assertEqual(shown[-2:], [("add", "launch"), ("add", "call_end")])

    def test_a_launch_is_named_by_the_config_whose_values_it_passes(self):
        configs = [
            Config({"BLOCK": 64}),
            Config({"BLOCK": 128}, maxnreg=128),  # another set of names
            Config({"BLOCK": 256, "MODE": [1]}),  # an unhashable value: named by formatting
        ]
        kernel = _Kernel(self.tuner(configs=configs), "add")
        for config in configs:
            launch = {"grid": (1,), "warmup": False, **config.all_kwargs()}
            self.assertEqual(kernel.launched_text(launch), config_text(config))
        outside = {"BLOCK": 512, "num_warps": 4, "num_stages": 3, "num_ctas": 1}
        self.assertEqual(kernel.launched_text(outside), TEXT[64].replace("64", "512"))
        self.assertEqual(kernel.launched_text({"grid": (1,)}), UNRECOGNISED_LAUNCH)

    def test_uninstall_restores_the_class_and_each_wrapped_fn(self):
        kernel = StandinKernel()
        tuner = self.tuner(kernel)
        tuner.run([0], 8, grid=(1,))
        self.assertIsNot(tuner.fn, kernel)
        self.recorder.uninstall()
        self.assertIs(tuner.fn, kernel)
        self.assertNotIn("run", self.cls.__dict__)
        self.assertNotIn("_bench", self.cls.__dict__)

    def test_a_second_recorder_on_the_same_class_is_refused(self):
        with self.assertRaisesRegex(RuntimeError, "already installed"):
            Recorder().install(self.cls)


if __name__ == "__main__":
    unittest.main()
