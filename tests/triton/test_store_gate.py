"""The fix's store gate in one process (safetune_triton/store/gate.py): a store that fails, or a
device that cannot be identified, never fails a call (one warning, the call tunes on its own);
and the entry's kernel id carries the JIT function's source hash."""

import shutil

import pytest

from harness import fresh_autotuner_class, run_together
from safetune_triton import SingleFlightFix
from safetune_triton.store import StoreError
from safetune_triton.store.gate import StoreGate, kernel_id
from standin_autotuner import StandinKernel, block_configs
from store_worker import DEVICE


def tuner_and_kernel():
    kernel = StandinKernel(name="add", arg_names=("x", "n"), bench_sleep_s=0)
    cls = fresh_autotuner_class()
    return cls, cls(kernel, ["x", "n"], block_configs((64, 128, 256)), ["n"]), kernel


def install(cls, store, device, warnings):
    fix = SingleFlightFix(store=store, device=device)
    fix.gate._warn = warnings.append
    return fix.install(cls)


def test_a_store_that_fails_warns_once_and_every_call_still_tunes_and_launches(tmp_path):
    cls, tuner, kernel = tuner_and_kernel()
    warnings = []
    fix = install(cls, str(tmp_path / "store"), DEVICE, warnings)
    try:
        shutil.rmtree(tmp_path / "store")
        (tmp_path / "store").write_text("not a directory any more")
        outcomes = run_together(4, lambda i: tuner.run(None, 4096 + i % 2))
    finally:
        fix.uninstall()
    assert not [o for o in outcomes if isinstance(o, Exception)]
    assert len(warnings) == 1 and "results store failed" in warnings[0], warnings
    assert sum(1 for _, kwargs in kernel.launches) == 2 * 3 + 4  # two keys tuned here, 4 launches


def test_a_device_that_cannot_be_identified_warns_and_tunes_on_its_own(tmp_path):
    cls, tuner, kernel = tuner_and_kernel()
    warnings = []

    def no_gpu():
        raise RuntimeError("no CUDA device")

    fix = install(cls, str(tmp_path / "store"), no_gpu, warnings)
    try:
        tuner.run(None, 4096)
        tuner.run(None, 8192)
    finally:
        fix.uninstall()
    assert len(warnings) == 1
    assert "cannot identify the device: RuntimeError: no CUDA device" in warnings[0]
    assert not list((tmp_path / "store").glob("*.json"))  # nothing shared without a device


def test_the_kernel_id_carries_the_jit_functions_source_hash():
    class Jit:
        cache_key = "0123456789abcdef0123"

        def __init__(self, fn):
            self.fn = fn

    class Probe:  # the recorder's launch probe: forwards, has no cache_key of its own
        def __init__(self, fn):
            self.fn = fn

    _, tuner, kernel = tuner_and_kernel()
    assert kernel_id(tuner) == "standin_autotuner.add"
    tuner.fn = Probe(Jit(kernel))
    assert kernel_id(tuner) == "standin_autotuner.add@0123456789abcdef"


def test_a_gate_on_a_path_that_is_a_file_is_a_clear_error_at_install(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreError, match="is not a directory|cannot create"):
        StoreGate(str(tmp_path / "file"), DEVICE)
