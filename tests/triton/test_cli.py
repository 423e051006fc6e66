"""The safetune-triton command (safetune_triton/cli.py) and how it finds the checker
(safetune_triton/checker.py), run as `python3 -m safetune_triton` from the package's source.
record runs on the fake triton (fake_gpu/), in a child process, as a user's program would."""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from harness import REPO, read_trace, safetune_binary
from safetune_triton.checker import find_safetune

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_SOURCE = str(REPO / "stress" / "triton")
ROUND_TRIP = str(REPO / "tests" / "package" / "triton_round_trip.py")


def command(*args, env=None):
    path = os.pathsep.join([os.path.join(HERE, "fake_gpu"), HERE, PACKAGE_SOURCE])
    return subprocess.run(
        [sys.executable, "-m", "safetune_triton", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=path, **(env or {})),
        timeout=120,
    )


class RecordTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.trace = os.path.join(self.dir.name, "trace.jsonl")

    def script(self, body):
        path = os.path.join(self.dir.name, "program.py")
        with open(path, "w", encoding="utf-8") as file:
            file.write(body)
        return path

    def test_record_with_the_fix_then_check_passes_with_one_attempt(self):
        recorded = command("record", "--fix", "--out", self.trace, ROUND_TRIP)
        self.assertEqual(recorded.returncode, 0, recorded.stderr)
        self.assertIn("recorded", recorded.stderr)
        checked = command("check", "--safetune", safetune_binary(), self.trace, "--json")
        self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)
        stats = json.loads(checked.stdout)["stats"]
        self.assertEqual((stats["calls"], stats["attempts"]), (8, 1))

    def test_the_script_gets_its_arguments_and_its_exit_status_is_records(self):
        program = self.script("import sys\nsys.exit(int(sys.argv[1]) + len(sys.argv))\n")
        result = command("record", "--out", self.trace, program, "4", "--flag")
        self.assertEqual(result.returncode, 7, result.stderr)
        header, events = read_trace(self.trace)
        self.assertEqual(events, [])
        self.assertEqual(header["recorder"]["tool"], "safetune_triton.recorder")

    def test_a_script_that_raises_exits_1_and_its_trace_is_still_written(self):
        program = self.script("raise ValueError('boom')\n")
        result = command("record", "--out", self.trace, program)
        self.assertEqual(result.returncode, 1)
        self.assertIn("ValueError: boom", result.stderr)
        self.assertTrue(os.path.exists(self.trace))

    def test_record_without_out_is_a_usage_error(self):
        result = command("record", ROUND_TRIP)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--out", result.stderr)

    def test_a_missing_script_or_out_folder_is_a_usage_error_before_anything_runs(self):
        missing = command("record", "--out", self.trace, os.path.join(self.dir.name, "none.py"))
        self.assertEqual(missing.returncode, 2)
        self.assertIn("none.py' is not a file", missing.stderr)
        nowhere = os.path.join(self.dir.name, "no", "such", "folder", "trace.jsonl")
        unwritable = command("record", "--out", nowhere, ROUND_TRIP)
        self.assertEqual(unwritable.returncode, 2)
        self.assertIn("is not a writable folder", unwritable.stderr)
        self.assertFalse(os.path.exists(self.trace))


class CheckTest(unittest.TestCase):
    def test_check_passes_its_flags_to_safetune_and_returns_its_status(self):
        with tempfile.TemporaryDirectory() as folder:
            trace = os.path.join(folder, "bad.jsonl")
            with open(trace, "w", encoding="utf-8") as file:
                file.write("not json\n")
            result = command("check", trace, "--json", env={"SAFETUNE": safetune_binary()})
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(json.loads(result.stdout)["verdict"], "input_error")

    def test_with_no_binary_to_find_check_says_where_it_looked(self):
        result = command("check", "x.jsonl", env={"SAFETUNE": "/nonexistent/safetune"})
        self.assertEqual(result.returncode, 2)
        self.assertIn(
            "$SAFETUNE names '/nonexistent/safetune', which is not a runnable file", result.stderr
        )


class FindSafetuneTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def binary(self, folder):
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "safetune")
        with open(path, "w", encoding="utf-8") as file:
            file.write("#!/bin/sh\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def test_the_order_is_argument_then_environment_then_path(self):
        given = self.binary(os.path.join(self.dir.name, "given"))
        environment = self.binary(os.path.join(self.dir.name, "environment"))
        on_path = self.binary(os.path.join(self.dir.name, "on_path"))
        folders = {"SAFETUNE": environment, "PATH": os.path.dirname(on_path)}
        with mock.patch.dict(os.environ, folders):
            self.assertEqual(find_safetune(given), given)
            self.assertEqual(find_safetune(), environment)
        with mock.patch.dict(os.environ, {"PATH": os.path.dirname(on_path)}):
            os.environ.pop("SAFETUNE", None)
            self.assertEqual(find_safetune(), on_path)

    def test_a_given_path_that_is_not_runnable_is_an_error_not_skipped(self):
        self.binary(os.path.join(self.dir.name, "on_path"))
        with mock.patch.dict(os.environ, {"PATH": os.path.join(self.dir.name, "on_path")}):
            with self.assertRaisesRegex(ValueError, "--safetune names"):
                find_safetune(os.path.join(self.dir.name, "missing"))

    def test_from_the_source_tree_the_build_tree_is_last(self):
        with mock.patch.dict(os.environ, {"PATH": self.dir.name}):
            os.environ.pop("SAFETUNE", None)
            try:
                found = find_safetune()
            except ValueError as error:
                self.assertIn("build/release/bin/safetune", str(error))
            else:
                self.assertTrue(found.startswith(str(REPO)), found)


if __name__ == "__main__":
    unittest.main()
