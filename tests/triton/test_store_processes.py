"""One tuning per machine for Triton across real processes (the fix with a results store,
safetune_triton/store/), judged by a multi-file `safetune check`; and unfixed Triton with its disk
cache, whose duplicate tunings the same check flags and whose cache hits it reads as loads.

Each worker (store_worker.py) is a real process: 4 threads on the stand-in kernel's one cold key
(8 configs), each process's trace in a file of its own."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from harness import read_trace, safetune_binary
from safetune_triton.store import DirectoryStore
from store_worker import BLOCKS, DEVICE

CONFIGS = len(BLOCKS)
WORKER = Path(__file__).resolve().parent / "store_worker.py"


def start(tmp_path, name, *flags):
    trace = tmp_path / (name + ".jsonl")
    command = [sys.executable, str(WORKER), str(trace), *flags]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    return trace, subprocess.Popen(command, **pipes)


def finish(process):
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return json.loads(out.splitlines()[-1]), err


def run_processes(tmp_path, count, prefix, *flags):
    started = [start(tmp_path, "{}{}".format(prefix, i), *flags) for i in range(count)]
    results = [finish(process)[0] for _, process in started]
    return [trace for trace, _ in started], results


def check(traces):
    result = subprocess.run(
        [safetune_binary(), "check", *map(str, traces), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def loads(traces):
    return [e for t in traces for e in read_trace(t)[1] if e["event"] == "load"]


def test_processes_on_one_store_tune_once_and_a_second_generation_tunes_nothing(tmp_path):
    store = str(tmp_path / "store")
    traces, results = run_processes(tmp_path, 4, "first-", "--store", store)
    assert sum(r["benches"] for r in results) == CONFIGS
    assert all(r["launches"] == 4 and not r["failed"] for r in results)
    status, report = check(traces)
    assert status == 0, report["violations"]
    assert report["stats"]["successful_tunings"] == 1
    assert report["stats"]["duplicate_tunings"] == 0
    assert len(loads(traces)) == 3  # every other process's owner loaded the winner

    again, results = run_processes(tmp_path, 4, "second-", "--store", store)
    assert sum(r["benches"] for r in results) == 0
    status, report = check(traces + again)
    assert status == 0, report["violations"]
    assert report["stats"]["successful_tunings"] == 1
    assert len(loads(again)) == 4


def test_an_owner_killed_mid_tuning_is_taken_over_once_and_blocks_no_one(tmp_path):
    store, marker = str(tmp_path / "store"), tmp_path / "benching"
    dies = ["--marker", str(marker), "--die-at-bench", "3"]
    _, doomed = start(tmp_path, "doomed", "--store", store, *dies)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert doomed.poll() is None and time.monotonic() < deadline, "the owner never benched"
        time.sleep(0.01)
    waiting = [start(tmp_path, "waiter{}".format(i), "--store", store) for i in range(3)]
    doomed.wait(timeout=60)
    assert doomed.returncode == -9
    results = [finish(process)[0] for _, process in waiting]
    assert sum(r["benches"] for r in results) == CONFIGS  # one takeover, whole
    status, report = check([trace for trace, _ in waiting])
    assert status == 0, report["violations"]
    assert report["stats"]["successful_tunings"] == 1


def test_a_damaged_entry_is_quarantined_with_a_warning_and_tuned_again_once(tmp_path):
    store = tmp_path / "store"
    traces, _ = run_processes(tmp_path, 1, "first-", "--store", str(store))
    # The kernel's id is its Python function's module and name (gate.kernel_id).
    entry = Path(DirectoryStore(str(store)).where("standin_autotuner.add", "n=4096", DEVICE.name))
    assert entry.exists(), "the kernel's entry is not where the C++ store would name it"
    entry.write_text(entry.read_text()[:20])  # torn
    trace, process = start(tmp_path, "second", "--store", str(store))
    result, err = finish(process)
    assert result["benches"] == CONFIGS
    assert "is not used: truncated" in err and "quarantined" in err
    assert len(list((store / "quarantine").glob("*.json"))) == 1
    # Read and rejected twice: before the claim, and again under it, before the quarantine.
    rejected = loads([trace])
    assert len(rejected) == 2 and all(r["error"].startswith("truncated") for r in rejected)
    assert entry.exists()  # published again


def test_unfixed_processes_with_the_disk_cache_tune_again_and_are_flagged(tmp_path):
    cache = str(tmp_path / "cache")
    os.makedirs(cache)
    traces, results = run_processes(tmp_path, 4, "unfixed-", "--disk-cache", cache)
    status, report = check(traces)
    assert sum(r["benches"] for r in results) > CONFIGS
    assert status == 1
    assert {"R2", "R3"} & {v["rule"] for v in report["violations"]}


def test_a_disk_cache_hit_is_a_load_not_an_early_use(tmp_path):
    cache = str(tmp_path / "cache")
    os.makedirs(cache)
    first, _ = run_processes(tmp_path, 1, "warm-", "--disk-cache", cache, "--threads", "1")
    later, results = run_processes(tmp_path, 3, "hit-", "--disk-cache", cache, "--threads", "1")
    assert sum(r["benches"] for r in results) == 0
    assert len(loads(later)) == 3
    status, report = check(first + later)
    assert status == 0, report["violations"]

