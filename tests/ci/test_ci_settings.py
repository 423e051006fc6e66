"""The CI scripts (ci/gpu, ci/mutate, ci/mutate-model, ci/redis-stress) on bad settings and
arguments: each must exit 2, naming the setting and the value it got, and change nothing (no
output folder made, an earlier run's table left as it was).

Each script runs from a scratch copy of the files it reads (the scripts resolve the tree from their
own path), never from the checkout: a refusal that failed would go on to build, or to clear an
output folder, in the copy, where there is nothing to build, so it fails fast and harms nothing.
A good setting must get past the checks: in the copy it then fails at its first real step (exit 1),
which shows the checks do not refuse everything.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

SOURCE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
# What each script reads before its first real step (paths under the tree).
READS = {
    "ci/gpu": ["ci/gpu"],
    "ci/mutate": ["ci/mutate", "ci/mutants"],
    "ci/mutate-model": ["ci/mutate-model", "ci/model-mutants.txt", "model"],
    "ci/redis-stress": ["ci/redis-stress"],
}


class CiScriptSettings(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.tree = os.path.join(folder.name, "tree")
        self.outdir = os.path.join(folder.name, "out")
        for paths in READS.values():
            for path in paths:
                source, copy = os.path.join(SOURCE, path), os.path.join(self.tree, path)
                if os.path.isdir(source):
                    shutil.copytree(source, copy, dirs_exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(copy), exist_ok=True)
                    shutil.copy2(source, copy)

    def run_script(self, script, settings, *args):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SAFETUNE_")}
        env.update(settings)
        return subprocess.run([os.path.join(self.tree, script), *args], env=env, capture_output=True, text=True,
                              timeout=120)

    def assert_refused(self, script, settings, *named, args=None):
        """Exit 2, every one of `named` in the message, and no output folder."""
        result = self.run_script(script, settings, *(args if args is not None else [self.outdir]))
        self.assertEqual(result.returncode, 2, f"{script} {settings}: {result.stderr}")
        for text in named:
            self.assertIn(text, result.stderr)
        self.assertFalse(os.path.exists(self.outdir), f"{script} {settings} made its output folder")
        self.assertFalse(os.path.exists(os.path.join(self.tree, "build")), f"{script} {settings} wrote build/")

    def test_ci_gpu_refuses_each_bad_setting_before_it_builds(self):
        for name, value in [("SAFETUNE_GPU_TSAN_SECONDS", "0"), ("SAFETUNE_GPU_TSAN_SECONDS", "1.5"),
                            ("SAFETUNE_GPU_WERROR", "yes"), ("SAFETUNE_GPU_PAIRED_PROCESSES", "-1")]:
            with self.subTest(name=name, value=value):
                self.assert_refused("ci/gpu", {name: value}, name, f"got '{value}'")

    def test_ci_gpu_refuses_an_unknown_step_before_it_builds(self):
        for value, unknown in [("benchmark", "benchmark"), ("benchmarks hot_pat", "hot_pat"), ("*", "*")]:
            with self.subTest(value=value):
                self.assert_refused("ci/gpu", {"SAFETUNE_GPU_STEPS": value}, "SAFETUNE_GPU_STEPS",
                                    f"(unknown: {unknown})", f"got '{value}'")

    def test_ci_gpu_refuses_steps_that_name_none(self):
        self.assert_refused("ci/gpu", {"SAFETUNE_GPU_STEPS": "  "}, "SAFETUNE_GPU_STEPS", "one step or more")

    def test_ci_gpu_takes_good_steps_past_its_checks(self):
        result = self.run_script("ci/gpu", {"SAFETUNE_GPU_STEPS": "benchmarks hot_path",
                                            "SAFETUNE_GPU_PAIRED_PROCESSES": "2"}, self.outdir)
        self.assertEqual(result.returncode, 1, result.stderr)  # the copy has nothing to build
        self.assertIn("| build | FAIL |", result.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.outdir, "summary.md")))

    def test_ci_mutate_refuses_each_bad_setting_and_keeps_an_earlier_table(self):
        os.makedirs(self.outdir)
        table = os.path.join(self.outdir, "mutate.md")
        with open(table, "w") as f:
            f.write("an earlier run's table\n")
        for name, value, named in [("SAFETUNE_MUTATE_SEEDS", "0", "got '0'"),
                                   ("SAFETUNE_MUTATE_SECONDS", "four", "got 'four'"),
                                   ("SAFETUNE_MUTATE_CTEST", "yes", "got 'yes'"),
                                   ("SAFETUNE_MUTATE_ONLY", "^no such mutant$", "'^no such mutant$'"),
                                   ("SAFETUNE_MUTATE_ONLY", "(", "must be a regular expression, got '('")]:
            with self.subTest(name=name, value=value):
                result = self.run_script("ci/mutate", {name: value}, self.outdir)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(named, result.stderr)
                self.assertEqual(sorted(os.listdir(self.outdir)), ["mutate.md"])
                self.assertFalse(os.path.exists(os.path.join(self.tree, "build")))

    def test_ci_mutate_takes_good_settings_past_its_checks(self):
        result = self.run_script("ci/mutate", {"SAFETUNE_MUTATE_SEEDS": "2", "SAFETUNE_MUTATE_ONLY": "."}, self.outdir)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("the unpatched tree does not build", result.stderr)

    def test_ci_mutate_model_refuses_a_bad_pattern_or_argument(self):
        self.assert_refused("ci/mutate-model", {"SAFETUNE_MUTATE_MODEL_ONLY": "("}, "SAFETUNE_MUTATE_MODEL_ONLY",
                            "must be a regular expression, got '('")
        self.assert_refused("ci/mutate-model", {"SAFETUNE_MUTATE_MODEL_ONLY": "^no such mutant$"},
                            "no mutant matched SAFETUNE_MUTATE_MODEL_ONLY '^no such mutant$'")
        self.assert_refused("ci/mutate-model", {}, "usage:", args=["--no-such-flag"])
        self.assert_refused("ci/mutate-model", {}, "usage:", args=[self.outdir, "extra"])

    def test_ci_mutate_model_takes_a_good_pattern_past_its_checks(self):
        result = self.run_script("ci/mutate-model", {"SAFETUNE_MUTATE_MODEL_ONLY": "."}, "--list")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("model mutants, each applying to the model exactly once", result.stdout)

    def test_ci_redis_stress_refuses_each_bad_setting_and_a_missing_preset(self):
        for name in ("SAFETUNE_REDIS_SEEDS", "SAFETUNE_REDIS_SECONDS", "SAFETUNE_REDIS_LANES"):
            for value in ("0", "x"):
                with self.subTest(name=name, value=value):
                    self.assert_refused("ci/redis-stress", {name: value}, name, f"'{value}'", args=["release"])
        self.assert_refused("ci/redis-stress", {}, "usage: ci/redis-stress PRESET", args=[])

    def test_ci_redis_stress_takes_good_settings_past_its_checks(self):
        # Then it looks for the preset's binary, which the copy has not built.
        self.assert_refused("ci/redis-stress", {"SAFETUNE_REDIS_SEEDS": "3"}, "build/release/bin/safetune is not built",
                            args=["release"])


if __name__ == "__main__":
    unittest.main()
