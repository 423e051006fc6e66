"""One worker process of the cross-process tests (test_store_processes.py): THREADS threads, each
calling the stand-in kernel `add` (8 configs, key n) once on the same cold key, recorded into
TRACE, with the fix on a shared results store (--store) or unfixed with the stand-in's disk cache
(--disk-cache). It prints one JSON line: benches, launches and failed calls.

    python3 store_worker.py TRACE --threads 4 (--store DIR | --disk-cache DIR | neither)
                            [--marker PATH] [--die-at-bench K]

--marker: a file created at this process's first bench (so that the test knows it owns the
attempt); --die-at-bench K: the process kills itself with SIGKILL at its K-th bench (an owner
killed mid-tuning).
"""

import argparse
import json
import os
import signal
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "stress" / "triton")]

from harness import fresh_autotuner_class, run_together  # noqa: E402
from safetune_triton import Recorder  # noqa: E402
from safetune_triton.store import Device  # noqa: E402
from standin_autotuner import StandinKernel, block_configs  # noqa: E402

DEVICE = Device(name="stand-in GPU", compute_capability="0.0", driver="0", toolkit="stand-in")
BLOCKS = (64, 128, 256, 512, 1024, 2048, 4096, 8192)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--store")
    parser.add_argument("--disk-cache")
    parser.add_argument("--marker")
    parser.add_argument("--die-at-bench", type=int)
    args = parser.parse_args()
    kernel = StandinKernel(name="add", arg_names=("x", "n"), bench_sleep_s=0.01)
    benches = []
    stand_in_bench = kernel.do_bench

    def do_bench(kernel_call, quantiles):
        benches.append(1)
        if len(benches) == 1 and args.marker:
            Path(args.marker).touch()
        if args.die_at_bench and len(benches) >= args.die_at_bench:
            os.kill(os.getpid(), signal.SIGKILL)
        return stand_in_bench(kernel_call, quantiles)

    kernel.do_bench = do_bench
    options = {"cache_results": True, "cache_dir": args.disk_cache} if args.disk_cache else {}
    cls = fresh_autotuner_class()
    tuner = cls(kernel, ["x", "n"], block_configs(BLOCKS), ["n"], **options)
    fixed = {"fix": True, "store": args.store, "device": DEVICE} if args.store else {}
    recorder = Recorder(**fixed).install(cls)
    try:
        outcomes = run_together(args.threads, lambda i: tuner.run(None, 4096))
    finally:
        recorder.uninstall()
    recorder.write(args.trace)
    print(
        json.dumps(
            {
                "benches": len(benches),
                "launches": len(kernel.launches) - len(benches),
                "failed": [repr(o) for o in outcomes if isinstance(o, Exception)],
            }
        )
    )


if __name__ == "__main__":
    main()
