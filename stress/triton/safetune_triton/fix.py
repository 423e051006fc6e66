"""The fix (`--fix`): the smallest change that makes Triton's autotuner meet safetune's model.

Triton 3.6 keeps its tuning state on the shared Autotuner object and takes no lock (see
docs/checking-triton.md). SingleFlightFix patches the Autotuner class, from outside, with three
changes:

1. Single-flight tuning per (autotuner, key). A call on a key in `cache` goes straight to
   Triton's run: no lock (a dict lookup is atomic under the GIL). On a key not in `cache`, the
   first caller becomes the owner and runs Triton's run (it benches, publishes into `cache` and
   launches); every other caller blocks until the owner's run returns and then launches the
   published config through Triton's run, which now finds the key in `cache`. If the owner
   fails and nothing was published, its waiters get TuningFailed (the owner's error as cause)
   and the key stays untuned, so a later call tries again. The gate's lock is held only to look
   up or change the table of attempts in flight: never during a bench, a hook or a launch.
   A call on the key from the owner's own thread (from a hook, say) raises ReentrantTuning
   instead of tuning inside its own tuning.
2. Per-thread scratch fields. Triton's run, _bench and the restore_value hooks pass arguments
   between each other through `self.nargs` and `self.restore_copies`. Two threads overwrite each
   other's (the `'NoneType' object is not a mapping` crash: one thread's run ends with
   `self.nargs = None` while another is still benching). The fix makes both fields per-thread.
3. Selection on the median alone. Triton picks `min` over [median, p20, p80] lists, so a tie on
   the median goes to the config with the lower 20th percentile; the model (R4) says a tie goes
   to the config benched first. The fix hands Triton only the median, and Python's min keeps the
   first of equal values.

4. With a store (`SingleFlightFix(store=DIR)`, or install(store=DIR)): one tuning per machine.
   The in-process owner of a cold key goes through store.gate.StoreGate before it tunes: it
   loads a valid entry that another process published, or takes the entry's claim (an OFD lock
   that the kernel drops when its holder dies, even on SIGKILL), waits while another process's
   attempt holds it, and publishes the winner atomically once it has tuned. The protocol and the
   files are the C++ directory store's (docs/store.md), so C++ and Python processes can share a
   store. Without a store the fix is per process, as Triton's autotuner is.

An upstream fix would do the same inside Autotuner.run: a per-key in-flight table with a
condition (or a future per key) around the bench-and-publish step, nargs and restore_copies
passed as arguments instead of stored on self, and the comparison on the median. It would also
stop storing best_config, bench_time and configs_timings on self as the way to hand them to the
listener and the disk cache (with two keys tuning at once they are the other key's): this fix
leaves those three shared, since only diagnostics read them.
"""

import threading

from .class_patch import ClassPatch
from .store.device import current_device
from .store.gate import StoreGate
from .triton_api import KeyRule, key_text, load_autotuner_class, require_class, require_instance

PER_THREAD_FIELDS = ("nargs", "restore_copies")
_INSTALLED_MARK = "_safetune_fix"


class ReentrantTuning(RuntimeError):
    """A thread called a kernel on a key whose tuning that same thread owns."""


class TuningFailed(RuntimeError):
    """The attempt this call waited on failed, and published nothing."""


class _Flight:
    """One tuning attempt in flight: its owner thread, and an event set when it ends."""

    def __init__(self, owner):
        self.owner = owner
        self.done = threading.Event()
        self.error = None


class _PerThreadField:
    """A data descriptor that keeps one value per thread for each Autotuner (default None)."""

    _SLOT = "_safetune_per_thread"

    def __init__(self, name):
        self.name = name

    def _local(self, tuner):
        local = tuner.__dict__.get(self._SLOT)
        if local is None:  # setdefault keeps the first local when two threads race here
            local = tuner.__dict__.setdefault(self._SLOT, threading.local())
        return local

    # Triton's run sets and reads these on every call: one dict lookup in the common case.
    def __get__(self, tuner, owner=None):
        if tuner is None:
            return self
        local = tuner.__dict__.get(self._SLOT) or self._local(tuner)
        return getattr(local, self.name, None)

    def __set__(self, tuner, value):
        setattr(tuner.__dict__.get(self._SLOT) or self._local(tuner), self.name, value)

    def __delete__(self, tuner):
        self.__set__(tuner, None)


def install(cls=None, store=None, device=None):
    """The fix alone, on Triton's Autotuner (or `cls`), for a program that does not record:

        import safetune_triton.fix
        safetune_triton.fix.install()   # before the first call of an autotuned kernel

    With `store` (a directory), one tuning per machine: see SingleFlightFix.
    Returns the installed SingleFlightFix (its uninstall() undoes it). TritonApiMismatch when
    Triton's Autotuner lacks a name the fix relies on; RuntimeError when a fix is installed already.
    """
    return SingleFlightFix(store=store, device=device).install(cls)


def median_only(result):
    """do_bench's [median, p20, p80] cut to [median]; anything else unchanged."""
    if isinstance(result, (list, tuple)) and len(result) > 1:
        return [result[0]]
    return result


class SingleFlightFix:
    def __init__(self, store=None, device=None):
        """`store`: a directory shared by the processes of this machine (None: this process
        alone). `device`: the entry.Device the store's entries are valid for (default: the
        current GPU's, store.device.current_device, read at the first tuning)."""
        self.gate = StoreGate(store, device or current_device) if store is not None else None
        self._lock = threading.Lock()
        self._flights = {}  # (id(autotuner), key tuple) -> _Flight
        self._rules = {}  # id(autotuner) -> its KeyRule, made once its fields were checked
        self._patch = ClassPatch()

    def install(self, cls=None):
        """Patches `cls` (default: Triton's Autotuner, checked); undo with uninstall()."""
        cls = require_class(cls) if cls is not None else load_autotuner_class()
        if self._patch.cls is not None or cls.__dict__.get(_INSTALLED_MARK):
            raise RuntimeError("the safetune fix is already installed on {}".format(cls.__name__))
        original_run, original_bench = cls.run, cls._bench
        fix = self

        def run(tuner, *args, **kwargs):
            return fix.run(original_run, tuner, args, kwargs)

        def _bench(tuner, *args, config, **meta):
            return median_only(original_bench(tuner, *args, config=config, **meta))

        patches = {"run": run, "_bench": _bench, _INSTALLED_MARK: True}
        patches.update({name: _PerThreadField(name) for name in PER_THREAD_FIELDS})
        self._patch.apply(cls, patches)
        return self

    def uninstall(self):
        self._patch.restore()

    def run(self, original_run, tuner, args, kwargs, key=None):
        """One call: Triton's run, with tuning single-flight per (tuner, key).

        `key` is the call's key when the caller (the recorder) has computed it already."""
        rule = self._rules.get(id(tuner))
        if rule is None or rule.tuner is not tuner:
            rule = self._rules[id(tuner)] = KeyRule(require_instance(tuner))
        if not rule.tunes:  # Triton neither keys nor tunes these
            return original_run(tuner, *args, **kwargs)
        if key is None:
            key = rule.key(args, kwargs)
        while key not in tuner.cache:  # a tuned key goes straight through: no lock
            flight, owner = self._enter(tuner, key, args, kwargs)
            if flight is None:
                break  # published between the two looks
            if owner:
                return self._tune(flight, (id(tuner), key), original_run, tuner, args, kwargs)
            flight.done.wait()
            if key not in tuner.cache and flight.error is not None:
                raise TuningFailed(
                    "tuning {}[{}] failed in another thread: {!r}".format(
                        tuner.base_fn.__name__, key_text(tuner, args, kwargs), flight.error
                    )
                ) from flight.error
        return original_run(tuner, *args, **kwargs)

    def _enter(self, tuner, key, args, kwargs):
        """(None, False) if the key is tuned now, else (its flight, whether we own it)."""
        me = threading.get_ident()
        with self._lock:
            if key in tuner.cache:
                return None, False
            flight = self._flights.get((id(tuner), key))
            if flight is None:
                flight = self._flights[(id(tuner), key)] = _Flight(me)
                return flight, True
        if flight.owner == me:
            raise ReentrantTuning(
                "{}[{}] was called again on the thread that is tuning it (from a "
                "hook?)".format(tuner.base_fn.__name__, key_text(tuner, args, kwargs))
            )
        return flight, False

    def _tune(self, flight, slot, original_run, tuner, args, kwargs):
        def tune():
            return original_run(tuner, *args, **kwargs)

        try:
            if self.gate is None:
                return tune()
            _, key = slot
            return self.gate.tune_once(tuner, key, args, kwargs, tune)
        except BaseException as error:
            flight.error = error
            raise
        finally:
            with self._lock:
                del self._flights[slot]
            flight.done.set()
