"""Canonical config strings of Triton configs (safetune_triton/config_text.py)."""

import unittest

from safetune_triton.config_text import UNRECOGNISED_LAUNCH, config_text, launch_text
from standin_autotuner import Config


class ConfigTextTest(unittest.TestCase):
    def test_kwargs_and_launch_fields_sorted_in_byte_order(self):
        config = Config({"BLOCK_SIZE": 128, "GROUP": 8}, num_warps=8, num_stages=2)
        self.assertEqual(
            config_text(config), "BLOCK_SIZE=128,GROUP=8,num_ctas=1,num_stages=2,num_warps=8"
        )

    def test_uppercase_sorts_before_lowercase(self):
        self.assertEqual(
            config_text(Config({"b": 1, "Z": 2})), "Z=2,b=1,num_ctas=1,num_stages=3,num_warps=4"
        )

    def test_empty_kwargs_still_name_the_launch_fields(self):
        self.assertEqual(config_text(Config({})), "num_ctas=1,num_stages=3,num_warps=4")

    def test_maxnreg_is_written_only_when_set(self):
        self.assertEqual(
            config_text(Config({"B": 1}, maxnreg=128)),
            "B=1,maxnreg=128,num_ctas=1,num_stages=3,num_warps=4",
        )

    def test_forbidden_characters_are_percent_escaped(self):
        text = config_text(Config({"MODE": "a,b=c d%", "EMPTY": ""}))
        self.assertEqual(text, "EMPTY='',MODE=a%2Cb%3Dc%20d%25,num_ctas=1,num_stages=3,num_warps=4")

    def test_distinct_configs_get_distinct_texts(self):
        configs = [Config({"B": b}, num_warps=w) for b in (64, 128) for w in (4, 8)]
        self.assertEqual(len({config_text(c) for c in configs}), 4)

    def test_launch_text_reads_the_config_back_from_launch_kwargs(self):
        config = Config({"BLOCK": 256}, num_warps=2)
        kwargs = {"grid": (4,), "warmup": False, **config.all_kwargs()}
        names = ("BLOCK", "num_ctas", "num_stages", "num_warps")
        self.assertEqual(launch_text(names, kwargs), config_text(config))

    def test_a_launch_without_config_fields_is_still_canonical(self):
        self.assertEqual(launch_text(("BLOCK",), {"grid": (1,)}), UNRECOGNISED_LAUNCH)

    def test_a_kwarg_named_like_a_field_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "kwargs name 'num_warps' clashes"):
            config_text(Config({"num_warps": 4}))

    def test_a_non_config_is_an_error_naming_the_missing_fields(self):
        with self.assertRaisesRegex(ValueError, "has no kwargs, num_warps, num_stages, num_ctas"):
            config_text(object())


if __name__ == "__main__":
    unittest.main()
