"""impl/cuda/bench_figures.py (ci/gpu's benchmark figures) on made-up benchmark outputs: no GPU."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "impl", "cuda"))
import bench_figures  # noqa: E402


def record(name, **counters):
    return {"name": name, "run_type": "iteration", **counters}


def launch_records(bare_rate=200e3, tuned_rate=100e3):
    records = []
    for threads in (1, 4, 16):
        # 16 threads get other rates, so that matching "threads:1" against it would show.
        scale = 10 if threads == 16 else 1
        records.append(record(f"BM_BareLaunch/real_time/threads:{threads}", items_per_second=bare_rate * scale))
        records.append(record(f"BM_TunedLaunch/real_time/threads:{threads}", items_per_second=tuned_rate * scale))
    return records


def tuning_records():
    return [
        record("BM_ColdKeys/parallel:0/iterations:3/real_time", real_time=70.0),
        record("BM_ColdKeys/parallel:1/iterations:3/real_time", real_time=20.0),
    ] + [record(f"BM_TuningQuality/size:{size}/iterations:1", ratio=1.0 + size / 1e5) for size in (256, 1024, 2048)]


def paired_records(ratios_by_through, thread_counts=(1, 4, 16), bare_ns=3000.0):
    """Each thread count's ratios are the 1-thread ones plus 0.1 per extra thread count, and its
    bare launch 1000 ns longer, so a figure read at the wrong thread count shows; a bare launch
    beside another path costs 500 ns more, so one read beside the wrong path shows."""
    records = []
    for through, ratios in ratios_by_through.items():
        for index, threads in enumerate(thread_counts):
            name = f"BM_LaunchPaired/through:{through}/min_time:2.000/real_time/threads:{threads}"
            bare = bare_ns + 1000 * index + (0 if through == 0 else 500)
            records += [record(name, threads=threads, tuned_over_bare=ratio + index / 10, bare_ns=bare)
                        for ratio in ratios]
            # An aggregate far off, which must not count.
            records.append({"name": name + "_mean", "run_type": "aggregate", "aggregate_name": "mean",
                            "threads": threads, "tuned_over_bare": 9.0})
    return records


STEADY = {0: [1.0], 3: [1.0], 5: [1.0]}


class BenchFigures(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def write(self, name, records):
        path = os.path.join(self.folder.name, name)
        with open(path, "w") as f:
            json.dump({"context": {}, "benchmarks": records}, f)
        return path

    def run_script(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = bench_figures.main(list(args))
        return status, out.getvalue(), err.getvalue()

    def standard_args(self, paired_files):
        return ["--launch", self.write("launch.json", launch_records()),
                "--tuning", self.write("tuning.json", tuning_records()),
                "--paired", *paired_files]

    def test_the_ratio_is_the_median_over_processes_of_each_process_median(self):
        processes = [
            {0: [1.010, 1.020, 1.030], 5: [1.001, 1.001, 1.001], 3: [1.0, 1.0, 1.0]},  # median 1.020
            {0: [1.001, 1.002, 1.003], 5: [1.003, 1.003, 1.003], 3: [1.0, 1.0, 1.0]},  # median 1.002
            {0: [1.005, 1.006, 1.100], 5: [1.002, 1.002, 1.002], 3: [1.0, 1.0, 1.0]},  # median 1.006
        ]
        files = [self.write(f"p{i}.json", paired_records(p)) for i, p in enumerate(processes)]
        status, out, err = self.run_script(*self.standard_args(files))
        self.assertEqual(status, 0, err)
        self.assertIn("over 3 processes): 1 thr paired (a bare launch 3000 ns): tuned cost / bare cost"
                      " 1.0060 [1.0020-1.0200],"
                      " through a key's handle 1.0020 [1.0010-1.0030], control (bare against bare)"
                      " 1.0000 [1.0000-1.0000]", out)

    def test_each_thread_count_of_the_paired_benchmark_is_its_own_figure(self):
        files = [self.write("p.json", paired_records({0: [1.01], 3: [1.0], 5: [1.004]}))]
        status, out, err = self.run_script(*self.standard_args(files))
        self.assertEqual(status, 0, err)
        self.assertIn("4 thr paired (a bare launch 4000 ns): tuned cost / bare cost 1.1100 [1.1100-1.1100],"
                      " through a key's handle"
                      " 1.1040 [1.1040-1.1040], control (bare against bare) 1.1000 [1.1000-1.1000]", out)
        self.assertIn("16 thr paired (a bare launch 5000 ns): tuned cost / bare cost 1.2100 [1.2100-1.2100]", out)

    def test_the_bare_launch_is_the_median_over_processes_of_each_process_median(self):
        files = [self.write(f"p{ns}.json", paired_records(STEADY, bare_ns=ns)) for ns in (2000.0, 2600.0, 9000.0)]
        status, out, err = self.run_script(*self.standard_args(files))
        self.assertEqual(status, 0, err)
        self.assertIn("1 thr paired (a bare launch 2600 ns):", out)
        self.assertIn("16 thr paired (a bare launch 4600 ns):", out)

    def test_a_thread_count_missing_from_the_paired_benchmark_is_named(self):
        files = [self.write("p.json", paired_records(STEADY, thread_counts=(1, 4)))]
        status, out, err = self.run_script(*self.standard_args(files))
        self.assertEqual(status, 1)
        self.assertIn("p.json: no benchmark named BM_LaunchPaired/through:0/ at 16 threads", err)

    def test_each_thread_count_reads_its_own_benchmark(self):
        files = [self.write("p.json", paired_records(STEADY))]
        status, out, err = self.run_script(*self.standard_args(files))
        self.assertEqual(status, 0, err)
        self.assertIn("unpaired launch rates (for the ratios, see the paired launches), 1 thr: bare 200k/s"
                      " tuned 100k/s, 4 thr", out)
        self.assertNotIn("(tuned cost / bare cost 2.000)", out)
        self.assertIn("16 thr: bare 2000k/s tuned 1000k/s", out)
        self.assertIn("8 cold keys: sequential 70.0 ms, 8 threads 20.0 ms", out)
        self.assertIn("quality 2048: ratio 1.020", out)

    def test_the_one_process_figures_are_added_when_given(self):
        files = [self.write("p.json", paired_records(STEADY))]
        once = self.write("once.json", paired_records({1: [1.003], 2: [1.008], 4: [1.015]}, thread_counts=(1,)))
        status, out, err = self.run_script(*self.standard_args(files), "--paired-once", once)
        self.assertEqual(status, 0, err)
        self.assertIn("no lookup: 1.0030; the kernel's launch(inv, config), reading the config: 1.0080;"
                      " tuned, kernel that prepares nothing: 1.0150", out)

    def test_the_profile_shows_each_span_of_each_path_against_the_bare_launch(self):
        files = [self.write("p.json", paired_records(STEADY))]
        records = []
        for through in (0, 1, 5):
            name = f"BM_LaunchProfile/through:{through}/min_time:1.000/real_time"
            for extra in (0, 10, 20):  # medians: 10 more than the lowest
                records.append(record(name, bare_before=30 + extra, bare_driver=9000 + extra, bare_after=40 + extra,
                                      tuned_before=100 + through + extra, tuned_driver=9050 + extra,
                                      tuned_after=45 + extra))
        profile = self.write("profile.json", records)
        status, out, err = self.run_script(*self.standard_args(files), "--profile", profile)
        self.assertEqual(status, 0, err)
        self.assertIn("profile (TSC ticks per launch, bare -> the path): tuned call: before 40 -> 110 (+70),"
                      " driver 9010 -> 9060 (+50), after 50 -> 55 (+5); through a key's handle: before 40 -> 115"
                      " (+75), driver 9010 -> 9060 (+50), after 50 -> 55 (+5); prepared launch alone: before"
                      " 40 -> 111 (+71)", out)

    def test_a_profile_missing_a_span_is_named(self):
        files = [self.write("p.json", paired_records(STEADY))]
        profile = self.write("profile.json", [record("BM_LaunchProfile/through:0/min_time:1.000/real_time",
                                                     bare_before=1.0)])
        status, _, err = self.run_script(*self.standard_args(files), "--profile", profile)
        self.assertEqual(status, 1)
        self.assertIn("profile.json: BM_LaunchProfile/through:0/min_time:1.000/real_time has no tuned_before", err)

    def test_a_missing_benchmark_names_the_file_and_the_benchmark(self):
        files = [self.write("p.json", paired_records({0: [1.0], 3: [1.0]}))]
        status, out, err = self.run_script(*self.standard_args(files))
        self.assertEqual(status, 1)
        self.assertEqual(out, "")
        self.assertIn("p.json: no benchmark named BM_LaunchPaired/through:5/ at 1 threads", err)

    def test_a_skipped_benchmark_is_an_error_not_a_figure(self):
        skipped = record("BM_LaunchPaired/through:0/min_time:2.000/real_time/threads:1", threads=1,
                         error_occurred=True, error_message="no usable CUDA device: no driver")
        files = [self.write("p.json", [skipped] + paired_records({3: [1.0], 5: [1.0]}))]
        status, _, err = self.run_script(*self.standard_args(files))
        self.assertEqual(status, 1)
        self.assertIn("reported an error: no usable CUDA device: no driver", err)

    def test_a_file_that_is_not_benchmark_output_is_named(self):
        bad = os.path.join(self.folder.name, "bad.json")
        with open(bad, "w") as f:
            f.write("not json")
        status, _, err = self.run_script(*self.standard_args([bad]))
        self.assertEqual(status, 1)
        self.assertIn("bad.json: not a Google Benchmark JSON output", err)


if __name__ == "__main__":
    unittest.main()
