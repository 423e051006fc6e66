"""A Triton program as its user writes it: one autotuned kernel called from racing threads.

tests/package/python_package.sh runs it under the installed `safetune-triton record`, on the fake
triton of tests/triton/fake_gpu/ (no GPU here), and has the trace judged.
"""

import threading

import triton
import triton.language as tl
import triton.testing

THREADS, CONFIGS = 8, 12


@triton.jit
def empty_kernel(n, DUMMY: tl.constexpr):
    pass


kernel = triton.autotune(
    configs=[triton.Config({"DUMMY": i}) for i in range(CONFIGS)],
    key=[],
    do_bench=triton.testing.do_bench,
)(empty_kernel)

barrier = threading.Barrier(THREADS)


def call():
    barrier.wait()
    kernel[(1,)](1)


threads = [threading.Thread(target=call) for _ in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
