"""The recorder fails loudly, naming what it did not find, when Triton's private API differs."""

import importlib.util
import unittest

from harness import fresh_autotuner_class
from safetune_triton.fix import SingleFlightFix
from safetune_triton.recorder import Recorder
from safetune_triton.triton_api import (
    KeyRule,
    TritonApiMismatch,
    load_autotuner_class,
    tuning_key,
)
from standin_autotuner import StandinKernel, block_configs


class ApiCheckTest(unittest.TestCase):
    def test_a_class_without_the_wrapped_methods_is_refused_by_name(self):
        bare = type("Autotuner", (), {"run": lambda self, *a, **k: None})
        with self.assertRaises(TritonApiMismatch) as caught:
            Recorder().install(bare)
        message = str(caught.exception)
        self.assertIn("Autotuner._bench, Autotuner.prune_configs", message)
        self.assertIn("written against Triton 3.6", message)

    def test_a_bench_that_takes_config_positionally_is_refused(self):
        cls = fresh_autotuner_class()
        cls._bench = lambda self, config, *args, **meta: [1.0]
        with self.assertRaisesRegex(TritonApiMismatch, r"Autotuner._bench\(self, \*args, config"):
            Recorder().install(cls)

    def test_an_instance_without_cache_fails_at_its_first_call(self):
        cls = fresh_autotuner_class()
        kernel = StandinKernel()
        tuner = cls(kernel, kernel.arg_names, block_configs((64, 128)), ["n"])
        del tuner.cache
        with Recorder().install(cls):
            with self.assertRaisesRegex(TritonApiMismatch, "needs Autotuner.cache"):
                tuner.run([0], 8, grid=(1,))

    def test_the_fix_alone_names_a_missing_field_too(self):
        cls = fresh_autotuner_class()
        kernel = StandinKernel()
        tuner = cls(kernel, kernel.arg_names, block_configs((64, 128)), ["n"])
        del tuner.keys
        fix = SingleFlightFix().install(cls)
        self.addCleanup(fix.uninstall)
        with self.assertRaisesRegex(TritonApiMismatch, "needs Autotuner.keys"):
            tuner.run([0], 8, grid=(1,))

    def test_a_key_rule_that_differs_from_tritons_fails_after_the_tuning(self):
        cls = fresh_autotuner_class()
        original_run = cls.run

        def run_keyed_by_nothing(self, *args, **kwargs):  # a Triton whose key ignores `key`
            keys, self.keys = self.keys, []
            try:
                return original_run(self, *args, **kwargs)
            finally:
                self.keys = keys

        cls.run = run_keyed_by_nothing
        kernel = StandinKernel()
        tuner = cls(kernel, kernel.arg_names, block_configs((64, 128)), ["n"])
        with Recorder().install(cls):
            with self.assertRaisesRegex(TritonApiMismatch, r"\(8,\)\) is not in Autotuner.cache"):
                tuner.run([0], 8, grid=(1,))

    def test_the_cached_key_rule_gives_tuning_keys_tuple_however_the_call_passes_arguments(self):
        class Tensor:
            def __init__(self, dtype):
                self.dtype = dtype

        x, y = Tensor("torch.float32"), Tensor("torch.float16")
        calls = [
            ((x, y, 8, 9), {}),
            ((x, y, 8, 9), {"grid": (1,), "warmup": False}),
            ((x, y, 8), {"m": 9}),
            ((x,), {"n": 8, "y": y, "grid": (1,)}),
            ((x, y, 8, 9, Tensor("extra")), {}),  # more values than names: zip drops the rest
            ((x, y), {}),  # the key's arguments not passed
            ((), {}),
            ((x, [1, 2], 8, 9), {}),  # an unhashable value
        ]
        for arg_names, keys in [
            (["x", "y", "n", "m"], ["n", "m"]),
            (["x", "y", "n", "m"], ["m", "k", "n"]),  # order of `key`, a name that is no argument
            (["x", "y", "n", "m"], []),
            (["x", "x", "n", "m"], ["n"]),  # a name twice: dict(zip) keeps the last
        ]:
            tuner = fresh_autotuner_class()(StandinKernel(), arg_names, block_configs((1, 2)), keys)
            rule = KeyRule(tuner)
            for args, kwargs in calls:
                with self.subTest(arg_names=arg_names, keys=keys, args=args, kwargs=kwargs):
                    self.assertEqual(rule.key(args, kwargs), tuning_key(tuner, args, kwargs))

    @unittest.skipIf(importlib.util.find_spec("triton") is not None, "Triton is installed here")
    def test_without_triton_the_default_install_says_it_cannot_import_it(self):
        with self.assertRaisesRegex(TritonApiMismatch, "cannot import triton.runtime.autotuner"):
            load_autotuner_class()
        with self.assertRaisesRegex(TritonApiMismatch, "cannot import triton.runtime.autotuner"):
            Recorder().install()


if __name__ == "__main__":
    unittest.main()
