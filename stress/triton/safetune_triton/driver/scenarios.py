"""The GPU scenarios the driver runs: Triton kernels under @triton.autotune, and their checks.

Imports torch and triton: only the driver imports this module, and only on a machine with both.

Contract of a scenario:
- build(bench) makes fresh autotuned kernels (a new Autotuner each, so every run starts cold;
  the @triton.jit functions are shared, so compiled binaries are reused after the warm-up);
  `bench` is the do_bench every Autotuner uses.
- prepare(thread) allocates that thread's tensors for each of its calls, on its current stream.
- call(kernels, state, thread, j) is the thread's j-th call (one launch of each kernel).
- verify(state, done) returns the wrong results (text) of the calls in `done` (those that
  returned), read after the thread's stream is synchronized.
- threads and calls are the defaults; the driver may change threads.

Scenarios (issue 6):
- report: the Triton report's: 100 configs of an empty kernel, key=[], 10 threads, one call each.
- vector_add: key=["n"], four sizes cold at once, every thread calling every size.
- restore: an in-place kernel with restore_value (x) and reset_to_zero (total): each thread's x
  holds its own values, so a restore from another thread's copy shows as a wrong result.
- two_kernels: two different autotuned kernels (add, scale) called alternately by each thread.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def empty_kernel(n, DUMMY: tl.constexpr):
    pass


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2.0 + 1.0, mask=mask)


@triton.jit
def bump_and_total_kernel(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(x_ptr + offsets, x + 1.0, mask=mask)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))


def autotuned(fn, configs, key, bench, **options):
    """A fresh Autotuner over `fn`, with do_bench = `bench`."""
    try:
        return triton.autotune(configs=configs, key=key, do_bench=bench, **options)(fn)
    except TypeError as error:
        raise RuntimeError(
            "triton.autotune has no do_bench argument here ({}); the driver needs "
            "it to shorten benchmarks".format(error)
        )


def grid_for(n):
    return lambda meta: (triton.cdiv(n, meta["BLOCK"]),)


def block_configs(blocks, warps=(4,)):
    return [triton.Config({"BLOCK": b}, num_warps=w) for b in blocks for w in warps]


class Report:
    name, threads, calls = "report", 10, 1

    def build(self, bench):
        configs = [triton.Config({"DUMMY": i}, num_warps=4) for i in range(100)]
        return {"empty": autotuned(empty_kernel, configs, [], bench)}

    def prepare(self, thread):
        return None

    def call(self, kernels, state, thread, j):
        kernels["empty"][(1,)](1024)

    def verify(self, state, done):
        return []


class VectorAdd:
    name, threads, calls = "vector_add", 10, 4
    sizes = (1 << 12, 1 << 15, 1 << 18, 1 << 20)

    def build(self, bench):
        configs = block_configs((256, 512, 1024, 2048), warps=(4, 8))
        return {"add": autotuned(add_kernel, configs, ["n"], bench)}

    def prepare(self, thread):
        return [_operands(self.sizes[(thread + j) % len(self.sizes)], 3) for j in range(self.calls)]

    def call(self, kernels, state, thread, j):
        n, (x, y, out) = state[j]
        kernels["add"][grid_for(n)](x, y, out, n)

    def verify(self, state, done):
        return [
            "add n={}: out != x + y".format(n)
            for n, (x, y, out) in _done(state, done)
            if not torch.equal(out, x + y)
        ]


class Restore:
    name, threads, calls = "restore", 10, 2
    sizes = (1 << 14, 1 << 18)

    def build(self, bench):
        configs = block_configs((256, 1024, 4096))
        return {
            "bump": autotuned(
                bump_and_total_kernel,
                configs,
                ["n"],
                bench,
                restore_value=["x_ptr"],
                reset_to_zero=["total_ptr"],
            )
        }

    def prepare(self, thread):
        # Values of this thread only (thread + 1), so that a copy restored from another thread's
        # tensors shows. Sums stay below 2**24, where float32 adds integers exactly.
        value = thread + 1.0
        return [
            (n, (value, torch.full((n,), value, device="cuda"), torch.zeros(1, device="cuda")))
            for n in (self.sizes[(thread + j) % len(self.sizes)] for j in range(self.calls))
        ]

    def call(self, kernels, state, thread, j):
        n, (_, x, total) = state[j]
        kernels["bump"][grid_for(n)](x, total, n)

    def verify(self, state, done):
        wrong = []
        for n, (value, x, total) in _done(state, done):
            if not bool(torch.all(x == value + 1)):
                wrong.append("bump n={}: x is not {} + 1 everywhere".format(n, value))
            if total.item() != n * value:
                wrong.append("bump n={}: total {} != {}".format(n, total.item(), n * value))
        return wrong


class TwoKernels:
    name, threads, calls = "two_kernels", 10, 3
    sizes = (1 << 14, 1 << 18)

    def build(self, bench):
        return {
            "add": autotuned(add_kernel, block_configs((256, 1024), warps=(4, 8)), ["n"], bench),
            "scale": autotuned(
                scale_kernel, block_configs((512, 2048), warps=(4, 8)), ["n"], bench
            ),
        }

    def prepare(self, thread):
        return [_operands(self.sizes[(thread + j) % len(self.sizes)], 4) for j in range(self.calls)]

    def call(self, kernels, state, thread, j):
        n, (x, y, added, scaled) = state[j]
        kernels["add"][grid_for(n)](x, y, added, n)
        kernels["scale"][grid_for(n)](x, scaled, n)

    def verify(self, state, done):
        wrong = []
        for n, (x, y, added, scaled) in _done(state, done):
            if not torch.equal(added, x + y):
                wrong.append("add n={}: out != x + y".format(n))
            if not torch.allclose(scaled, x * 2.0 + 1.0):
                wrong.append("scale n={}: out != 2x + 1".format(n))
        return wrong


class CrossProcess:
    """Issue 17's: the processes of one machine (ranks of one job) on one cold key of 100 configs
    (driver/processes.py runs it in each process). Not one of the driver's in-process scenarios."""

    name, threads, calls = "processes", 4, 1
    n = 1 << 20

    def configs(self):
        return [
            triton.Config({"BLOCK": block}, num_warps=warps, num_stages=stages)
            for block in (128, 256, 512, 1024, 2048)
            for warps in (1, 2, 4, 8)
            for stages in (1, 2, 3, 4, 5)
        ]

    def build(self, bench, cache_results=False):
        options = {"cache_results": True} if cache_results else {}
        return {"add": autotuned(add_kernel, self.configs(), ["n"], bench, **options)}

    def warm_up(self):
        """Compiles every config once, with no autotuner (so no tuning result is cached)."""
        _, (x, y, out) = _operands(self.n, 3)
        for config in self.configs():
            add_kernel[grid_for(self.n)](x, y, out, self.n, **config.all_kwargs())
        torch.cuda.synchronize()

    def prepare(self, thread):
        return [_operands(self.n, 3)]

    def call(self, kernels, state, thread, j):
        n, (x, y, out) = state[j]
        kernels["add"][grid_for(n)](x, y, out, n)

    def verify(self, state, done):
        return VectorAdd.verify(self, state, done)


def _operands(n, count):
    """(n, (count tensors of n floats)): random inputs first, then outputs to be written."""
    inputs = [torch.rand(n, device="cuda") for _ in range(2)]
    outputs = [torch.empty(n, device="cuda") for _ in range(count - 2)]
    return n, tuple(inputs + outputs)


def _done(state, done):
    """The per-call state of the calls that returned (a failed call wrote nothing to check)."""
    return [state[j] for j in sorted(done)]


SCENARIOS = {s.name: s for s in (Report(), VectorAdd(), Restore(), TwoKernels())}
