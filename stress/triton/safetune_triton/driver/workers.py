"""Runs one scenario from N threads, each on its own torch.cuda.Stream, released together.

Contract: run_threads(scenario, kernels, threads, recorder) prepares every thread's tensors on its
stream, releases all threads at once (a barrier), makes each thread's scenario.calls calls,
synchronizes each stream, and then verifies the results. It returns a dict:
- wall_s: from the release to the last thread's synchronized end (verification not included);
- failed_calls: the messages of the calls that raised, one per call;
- wrong_results: the scenario's verify() findings;
- hung_threads: threads still running after timeout_s (their calls never ended; the process
  cannot stop them, so the caller should write what it has and exit).
"""

import threading
import time

import torch

from ..recorder import describe


def run_threads(scenario, kernels, threads, recorder=None, timeout_s=600):
    barrier = threading.Barrier(threads + 1, timeout=timeout_s)
    outcomes = [{"failed": [], "wrong": [], "end": None} for _ in range(threads)]
    pool = [
        threading.Thread(
            target=_worker,
            name="safetune-worker-{}".format(i),
            daemon=True,
            args=(scenario, kernels, i, barrier, outcomes[i], recorder),
        )
        for i in range(threads)
    ]
    for thread in pool:
        thread.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        pass  # a worker failed to prepare; its outcome says why
    start = time.perf_counter()
    deadline = start + timeout_s
    for thread in pool:
        thread.join(max(0.0, deadline - time.perf_counter()))
    ends = [o["end"] for o in outcomes if o["end"] is not None]
    return {
        "wall_s": (max(ends) - start) if ends else None,
        "failed_calls": [m for o in outcomes for m in o["failed"]],
        "wrong_results": [m for o in outcomes for m in o["wrong"]],
        "hung_threads": sum(thread.is_alive() for thread in pool),
    }


def _worker(scenario, kernels, index, barrier, outcome, recorder):
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        try:
            if recorder is not None:
                recorder.set_stream(stream.cuda_stream)
            state = scenario.prepare(index)
            stream.synchronize()
        except Exception as error:
            outcome["failed"].append("preparing thread {}: {}".format(index, describe(error)))
            barrier.abort()
            return
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return
        done = set()
        for j in range(scenario.calls):
            try:
                scenario.call(kernels, state, index, j)
                done.add(j)
            except Exception as error:  # the trace records it too; here it is counted
                outcome["failed"].append(describe(error))
        try:
            stream.synchronize()
            outcome["end"] = time.perf_counter()
            outcome["wrong"] = scenario.verify(state, done)
        except Exception as error:  # e.g. a CUDA error left by a bad launch
            outcome["failed"].append(
                "after the calls of thread {}: {}".format(index, describe(error))
            )
