"""One tuning per machine for Triton: the fix's owner of a cold key goes through a directory
store (directory.py) before it tunes, so that every process sharing the store tunes each key once.

Contract of StoreGate.tune_once(tuner, key, args, kwargs, tune), called by the fix's in-process
owner of (tuner, key) while the key is not in tuner.cache; `tune` is Triton's run for the call:
1. Under a shared view, read the key's entry. A valid one (entry.decode: whole, this schema and
   fingerprint, a winner in the space) goes into tuner.cache[key]; then `tune` finds the key
   tuned and only launches. A load is reported to on_load(tuner, config text, None).
2. Otherwise take the entry's claim, waiting while another process's attempt holds it (policy
   block; the kernel drops a dead owner's claim), and read again: the holder may have published.
3. Still no valid entry: a rejected one is reported (on_load(tuner, its winner or None, reason)),
   warned about once, and quarantined; then `tune` benches and launches under the claim, and the
   winner Triton chose (tuner.cache[key]) is published, with the times of the attempt.
A store that fails (StoreError: a directory that cannot be written, a full disk) never hangs
or fails the call: the gate warns once and the call tunes locally, unshared.

The entry's id: kernel `module.qualname` of the kernel's Python function (with the JIT
function's cache key, which hashes its source, when it has one), Triton's key as the recorder
writes it (`n=4096,x_ptr.dtype=torch.float32`), and the device's name. Its fingerprint adds the
hash of the config space in order, the compute capability, the driver and toolkit versions.
"""

import math
import sys
import threading
from collections import namedtuple
from contextlib import contextmanager

from ..config_text import config_text
from ..triton_api import key_text
from .directory import DirectoryStore, StoreError
from .entry import Entry, Fingerprint, Rejected, decode, encode, space_hash


_Slot = namedtuple("_Slot", "kernel key path")  # one (kernel, key) entry of the store


class _Kernel:
    """What one autotuner's entries need, worked out once: its id, its space and fingerprint."""

    def __init__(self, tuner, device):
        self.tuner = tuner
        self.texts = [config_text(config) for config in tuner.configs]
        self.config_of = dict(zip(self.texts, tuner.configs))
        self.name = kernel_id(tuner)
        self.fingerprint = Fingerprint(
            kernel=self.name, space_hash=space_hash(self.texts), device=device
        )


def kernel_id(tuner):
    fn = tuner.base_fn
    name = "{}.{}".format(fn.__module__, fn.__qualname__)
    jit, cache_key = tuner.fn, None
    while jit is not None and cache_key is None:  # down the .fn chain to the JIT function
        if getattr(type(jit), "cache_key", None) is not None:
            try:
                cache_key = jit.cache_key
            except Exception:  # a source Triton cannot hash: the name alone
                break
        jit = getattr(jit, "fn", None)
    return name + ("@" + cache_key[:16] if isinstance(cache_key, str) else "")


class StoreGate:
    def __init__(self, directory, device, on_load=None, warn=None):
        """`device` (entry.Device) or a function that returns it, called at the first tuning."""
        if not isinstance(directory, DirectoryStore):
            directory = DirectoryStore(directory)
        self.store = directory
        self._device = device
        self.on_load = on_load
        self._warn = warn or (lambda text: print("safetune: warning: " + text, file=sys.stderr))
        self._warned = set()
        self._lock = threading.Lock()
        self._kernels = {}  # id(tuner) -> _Kernel

    def tune_once(self, tuner, key, args, kwargs, tune):
        slot = self._guarded(lambda: self._slot(tuner, args, kwargs))
        if slot is None or self._guarded(lambda: self._load(slot, key)):
            return tune()
        with self._claim(slot) as held:
            if not (held and self._guarded(lambda: self._load(slot, key, quarantine=True))):
                result = tune()
                if held:
                    self._guarded(lambda: self._publish(slot, key))
                return result
        return tune()  # loaded under the claim: launched after giving the claim back

    def _slot(self, tuner, args, kwargs):
        kernel = self._kernel(tuner)
        text_key = key_text(tuner, args, kwargs)
        path = self.store.where(kernel.name, text_key, kernel.fingerprint.device.name)
        return _Slot(kernel, text_key, path)

    def _guarded(self, step):
        """step(), or None when the store failed (warned once): the call then tunes locally."""
        try:
            return step()
        except StoreError as error:
            self._warn_once(
                "store", "results store failed ({}); this process tunes on its own".format(error)
            )
            return None

    @contextmanager
    def _claim(self, slot):
        """Holds the entry's claim (yields True), waiting for another process's attempt to end;
        yields False, unclaimed, when the store failed."""
        claim = self.store.claim(slot.path)
        if self._guarded(claim.__enter__) is None:
            yield False
            return
        try:
            yield True
        finally:
            claim.__exit__(None, None, None)

    def _kernel(self, tuner):
        kernel = self._kernels.get(id(tuner))
        if kernel is None or kernel.tuner is not tuner:
            with self._lock:
                if callable(self._device):
                    self._device = _identified(self._device)
                kernel = self._kernels[id(tuner)] = _Kernel(tuner, self._device)
        return kernel

    def _load(self, slot, key, quarantine=False):
        """True when a valid entry is now in tuner.cache[key]. A rejected one is reported, and,
        under the claim (`quarantine`), moved aside."""
        kernel, text_key, path = slot
        with self.store.view(path):
            text = self.store.read(path)
        if text is None:
            return False
        found = decode(text, text_key, kernel.fingerprint, kernel.config_of)
        if isinstance(found, Rejected):
            self._report(kernel.tuner, found.winner, found.reason)
            self._warn_once(
                (path, found.reason),
                "results store entry {} (kernel '{}', key '{}') is not used: {}; it is "
                "quarantined and the key is tuned again".format(
                    path, kernel.name, text_key, found.reason
                ),
            )
            if quarantine:
                self.store.quarantine(path, found.reason)
            return False
        kernel.tuner.cache[key] = kernel.config_of[found.winner]
        self._report(kernel.tuner, found.winner, None)
        return True

    def _publish(self, slot, key):
        kernel, text_key, path = slot
        winner = kernel.tuner.cache.get(key)
        text = config_text(winner) if winner is not None else None
        if text not in kernel.config_of:
            return  # Triton chose no config of the space (a pruned or changed list): no entry
        entry = Entry(
            key=text_key, fingerprint=kernel.fingerprint, winner=text, times=_times(kernel)
        )
        with self.store.view(path):
            self.store.publish(path, encode(entry))

    def _report(self, tuner, winner, error):
        if self.on_load is not None:
            self.on_load(tuner, winner, error)

    def _warn_once(self, what, text):
        with self._lock:
            if what in self._warned:
                return
            self._warned.add(what)
        self._warn(text)


def _identified(current_device):
    try:
        return current_device()
    except Exception as error:  # no torch, no GPU: the entries cannot say what they are valid for
        raise StoreError("cannot identify the device: {}: {}".format(type(error).__name__, error))


def _times(kernel):
    """The attempt's medians (ns) by config, from Triton's configs_timings when it has them.

    configs_timings is shared by every key of the autotuner (docs/checking-triton.md), so these
    are diagnostics only; nothing reads them back."""
    timings = getattr(kernel.tuner, "configs_timings", None) or {}
    times = []
    for config, timing in list(timings.items()):
        median = timing[0] if isinstance(timing, (list, tuple)) and timing else timing
        text = config_text(config)
        if text in kernel.config_of and isinstance(median, (int, float)) and math.isfinite(median):
            times.append((text, float(median) * 1e6))
    return times
